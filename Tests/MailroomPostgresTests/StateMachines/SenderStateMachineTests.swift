#if Postgres
import Testing

@testable import MailroomPostgres

/// The sender's bookkeeping, driven through each of its transitions without a database.
@Suite("Sender state machine")
struct SenderStateMachineTests {
    static let link: Int64 = 77

    func machine(limit: Int = 100) -> SenderStateMachine {
        SenderStateMachine(origin: "o", link: Self.link, limit: limit)
    }

    func mail(_ body: String, on channel: String = "c") -> Outgoing {
        Outgoing(channel: channel, linkedName: "N", body: body)
    }

    /// The numbers and bodies of each batch a write action carries, by channel.
    func written(_ action: SenderStateMachine.Action) -> [String: [(Int64, String)]] {
        guard case .write(let batches) = action else { return [:] }
        return Dictionary(
            uniqueKeysWithValues: batches.map { ($0.channel, Array(zip($0.numbers, $0.bodies))) })
    }

    func numbers(_ action: SenderStateMachine.Action) -> [Int64] {
        guard case .write(let batches) = action else { return [] }
        return batches.flatMap(\.numbers)
    }

    @Test("with nothing queued it waits; a queued mail is written with the link's first number")
    func waitsThenWrites() {
        var sender = machine()
        #expect(sender.next() == .wait)
        #expect(sender.enqueue(mail("a")) == .queued)
        #expect(sender.unsent == 1)
        let action = sender.next()
        #expect(
            action
                == .write([
                    Outbox.Batch(
                        channel: "c", origin: "o", link: Self.link, numbers: [1], echo: false, linkedNames: ["N"],
                        bodies: ["a"], contexts: [nil])
                ]))
    }

    @Test("a write stays unsent until the next answer confirms its commit; with nothing else queued, a confirmation")
    func writtenMailIsConfirmedByTheNextAnswer() {
        var sender = machine()
        _ = sender.enqueue(mail("a"))
        _ = sender.next()
        sender.succeeded()
        #expect(sender.unsent == 1, "answered, not yet known to be committed")
        #expect(sender.next() == .confirm)
        sender.succeeded()
        #expect(sender.unsent == 0)
        #expect(sender.next() == .wait)
    }

    @Test("the answer to a second write confirms the first, and leaves the second unconfirmed")
    func aSecondWriteConfirmsTheFirst() {
        var sender = machine()
        _ = sender.enqueue(mail("a"))
        _ = sender.next()
        sender.succeeded()
        _ = sender.enqueue(mail("b"))
        _ = sender.enqueue(mail("c"))
        let second = sender.next()
        #expect(numbers(second) == [2, 3])
        sender.succeeded()
        #expect(sender.unsent == 2)
        #expect(sender.next() == .confirm)
        sender.succeeded()
        #expect(sender.unsent == 0)
    }

    @Test("a batch is one write per channel, channels in name order, each in queue order")
    func batchesByChannel() {
        var sender = machine()
        for (body, channel) in [("1", "zeta"), ("2", "alpha"), ("3", "zeta"), ("4", "alpha")] {
            _ = sender.enqueue(mail(body, on: channel))
        }
        let action = sender.next()
        guard case .write(let batches) = action else {
            Issue.record("expected a write, got \(action)")
            return
        }
        #expect(batches.map(\.channel) == ["alpha", "zeta"])
        #expect(batches.map(\.bodies) == [["2", "4"], ["1", "3"]])
        #expect(batches.map(\.numbers) == [[2, 4], [1, 3]])
    }

    @Test("at most 256 mail are written at a time; the rest follow in the next write")
    func batchLimit() {
        var sender = machine(limit: 1000)
        for index in 0..<300 { _ = sender.enqueue(mail("\(index)")) }
        #expect(numbers(sender.next()) == Array(1...256))
        sender.succeeded()
        #expect(numbers(sender.next()) == Array(257...300))
        sender.succeeded()
        #expect(sender.unsent == 44)
        #expect(sender.next() == .confirm)
        sender.succeeded()
        #expect(sender.unsent == 0)
    }

    @Test(
        "after a failed write, the unconfirmed numbers are looked up first; what committed is dropped, the rest written again under the same numbers"
    )
    func failedWriteIsLookedUp() {
        var sender = machine()
        for body in ["a", "b", "c"] { _ = sender.enqueue(mail(body)) }
        _ = sender.next()
        sender.failed()
        #expect(sender.unsent == 3)
        #expect(sender.next() == .lookUp([1, 2, 3]))
        sender.lookedUp([1, 3])
        #expect(sender.unsent == 1)
        let again = sender.next()
        #expect(written(again)["c"]?.map(\.0) == [2])
        #expect(written(again)["c"]?.map(\.1) == ["b"])
    }

    @Test("a failed write puts in doubt the earlier unconfirmed write too; new mail gets new numbers")
    func failureAfterAnUnconfirmedWrite() {
        var sender = machine()
        _ = sender.enqueue(mail("a"))
        _ = sender.next()
        sender.succeeded()
        _ = sender.enqueue(mail("b"))
        _ = sender.next()
        sender.failed()
        _ = sender.enqueue(mail("c"))
        #expect(sender.next() == .lookUp([1, 2]))
        sender.lookedUp([])
        #expect(numbers(sender.next()) == [1, 2, 3])
    }

    @Test("a failed lookup keeps its numbers in doubt; a failed confirmation puts the confirmed write in doubt")
    func failedLookupAndConfirmation() {
        var sender = machine()
        _ = sender.enqueue(mail("a"))
        _ = sender.next()
        sender.succeeded()
        #expect(sender.next() == .confirm)
        sender.failed()
        #expect(sender.next() == .lookUp([1]))
        sender.failed()
        #expect(sender.next() == .lookUp([1]))
        sender.lookedUp([1])
        #expect(sender.unsent == 0)
        #expect(sender.next() == .wait)
    }

    @Test("failures in a row wait 20 ms, doubling to 1 s; a success starts again at 20 ms")
    func retryDelays() {
        var sender = machine()
        _ = sender.enqueue(mail("a"))
        var delays: [Duration] = []
        for _ in 0..<8 {
            _ = sender.next()
            sender.failed()
            delays.append(sender.retryDelay)
        }
        #expect(
            delays == [20, 40, 80, 160, 320, 640, 1000, 1000].map { Duration.milliseconds($0) })
        _ = sender.next()
        sender.lookedUp([])
        _ = sender.next()
        sender.failed()
        #expect(sender.retryDelay == .milliseconds(20))
    }

    @Test("a full queue refuses the post and keeps what it holds")
    func fullQueue() {
        var sender = machine(limit: 2)
        #expect(sender.enqueue(mail("a")) == .queued)
        #expect(sender.enqueue(mail("b")) == .queued)
        #expect(sender.enqueue(mail("c")) == .full)
        #expect(sender.unsent == 2)
        #expect(numbers(sender.next()) == [1, 2])
    }

    @Test("an expected echo is skipped once; a forgotten one is not skipped")
    func echoes() {
        var sender = machine()
        sender.expectEcho(of: mail("a"))
        #expect(sender.enqueue(mail("a")) == .echo)
        #expect(sender.enqueue(mail("a")) == .queued)
        sender.expectEcho(of: mail("b"))
        sender.forgetEcho(of: mail("b"))
        #expect(sender.enqueue(mail("b")) == .queued)
        #expect(sender.unsent == 2)
    }

    @Test("a stop with nothing queued finishes; with mail queued, it is written and confirmed first")
    func stopWritesFirst() {
        var idle = machine()
        idle.stop()
        #expect(idle.next() == .finish)

        var sender = machine()
        _ = sender.enqueue(mail("a"))
        sender.stop()
        #expect(numbers(sender.next()) == [1])
        sender.succeeded()
        #expect(sender.next() == .confirm)
        sender.succeeded()
        #expect(sender.next() == .finish)
        #expect(sender.unsent == 0)
    }

    @Test(
        "after the stop, a failure is looked up and written again, and the third failure finishes, with the mail unsent"
    )
    func failuresAfterStop() {
        var sender = machine()
        _ = sender.enqueue(mail("a"))
        sender.stop()
        _ = sender.next()
        sender.failed()
        #expect(sender.next() == .lookUp([1]))
        sender.lookedUp([])
        #expect(numbers(sender.next()) == [1])
        sender.failed()
        #expect(sender.next() == .lookUp([1]))
        sender.failed()
        #expect(sender.next() == .finish)
        #expect(sender.unsent == 1)
    }

    @Test("a long backlog is taken in order, batch after batch, however many were confirmed before")
    func longBacklogStaysInOrder() {
        var sender = machine(limit: 10_000)
        for index in 0..<2000 { _ = sender.enqueue(mail("\(index)")) }
        var bodies: [String] = []
        while case .write(let batches) = sender.next() {
            bodies += batches.flatMap(\.bodies)
            sender.succeeded()
        }
        sender.succeeded()
        #expect(bodies == (0..<2000).map { "\($0)" })
        #expect(sender.unsent == 0)
    }
}
#endif
