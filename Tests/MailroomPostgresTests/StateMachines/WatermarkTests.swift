#if Postgres
import Testing

@testable import MailroomPostgres

/// The mail a channel's watermark keeps for the subscriptions' readers: the listener's last, without a gap, or none.
@Suite("Watermark")
struct WatermarkTests {
    func rows(_ sequences: ClosedRange<Int64>, bytes: Int = 1) -> [Outbox.Row] {
        sequences.map {
            Outbox.Row(
                sequence: $0, origin: "o", link: 1, echo: false, linkedName: "N",
                body: String(repeating: "x", count: bytes))
        }
    }

    @Test("once a reader asks, the mail the listener delivers is kept, and handed out after any number within it")
    func keepsDeliveredMail() {
        let watermark = Watermark()
        watermark.advance(to: 3, delivering: rows(1...3))
        #expect(watermark.rows(after: 0) == nil, "nothing is kept before a reader asks")
        watermark.advance(to: 5, delivering: rows(4...5))
        #expect(watermark.rows(after: 3) == rows(4...5))
        watermark.advance(to: 8, delivering: rows(6...8))
        #expect(watermark.rows(after: 3) == rows(4...8))
        #expect(watermark.rows(after: 6) == rows(7...8))
        #expect(watermark.rows(after: 2) == nil, "mail before what is kept is the outbox's")
        #expect(watermark.rows(after: 8) == nil, "nothing after the last")
    }

    @Test("a gap, or an advance without its mail, keeps only what follows without a gap")
    func gapsAreNotKept() {
        let watermark = Watermark()
        _ = watermark.rows(after: 0)
        watermark.advance(to: 3, delivering: rows(1...3))
        watermark.advance(to: 6, delivering: rows(5...6))
        #expect(watermark.rows(after: 3) == nil, "4 was missed")
        #expect(watermark.rows(after: 4) == rows(5...6))
        watermark.advance(to: 9, delivering: rows(7...8))
        #expect(watermark.rows(after: 6) == nil, "the mail up to 9 was not all delivered")
        watermark.advance(to: 10, delivering: rows(10...10))
        #expect(watermark.rows(after: 9) == rows(10...10))
        #expect(watermark.rows(after: 8) == nil)
    }

    @Test("at most a page of mail, and at most 4 MiB of JSON, the newest")
    func keepsWithinLimits() {
        let watermark = Watermark()
        _ = watermark.rows(after: 0)
        let count = Int64(Watermark.recentLimit.mail)
        watermark.advance(to: count + 10, delivering: rows(1...count + 10))
        #expect(watermark.rows(after: 10) == rows(11...count + 10))
        #expect(watermark.rows(after: 9) == nil)
        let big = Watermark.recentLimit.bytes / 3
        watermark.advance(to: count + 14, delivering: rows(count + 11...count + 14, bytes: big))
        #expect(watermark.rows(after: count + 11) == rows(count + 12...count + 14, bytes: big))
        #expect(watermark.rows(after: count + 10) == nil)
    }
}
#endif
