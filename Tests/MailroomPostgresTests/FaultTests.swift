#if Postgres
import Mailroom
import PostgresNIO
import Testing

@testable import MailroomPostgres

struct Reading: LinkedMail, Equatable {
    static let linkedChannel = "tests_faults"
    let celsius: Int
}

struct Sample: LinkedMail, Equatable {
    static let linkedChannel = "tests_missed"
    let number: Int
}

/// Writes mail the way a link does, but with any name and body: what a buggy or foreign writer could commit.
func writeRaw(_ bodies: [(name: String, body: String)], on channel: String, origin: String) async throws {
    try await Server.withConnection { connection in
        let batch = Outbox.Batch(
            channel: channel, origin: origin, link: .random(in: 1...Int64.max),
            numbers: bodies.indices.map { Int64($0) + 1 }, echo: false, linkedNames: bodies.map(\.name),
            bodies: bodies.map(\.body))
        try await Server.outbox.write(batch, on: connection)
    }
}

extension DatabaseTests {
    @Suite("What cannot be delivered")
    struct FaultTests {
        @Test(
            "wrong JSON, truncated JSON, an unknown name, an oversize body and a stray notification are reported; the link goes on"
        )
        func badMailIsReportedAndSkipped() async throws {
            let receiving = try await RunningLink.start([Reading.self], origin: uniqueOrigin("b")) {
                $0.maximumMailSize = 100
            }
            let readings = Inbox<Reading>()
            receiving.office.register { (reading: Reading, _: RemoteOrigin) in readings.append(reading) }
            let failures = Inbox<DeliveryFailure>()
            receiving.office.register { (failure: DeliveryFailure) in failures.append(failure) }

            let name = Reading.linkedName
            let oversize = #"{"celsius":4,"note":""# + String(repeating: "x", count: 200) + #""}"#
            try await writeRaw(
                [
                    (name, #"{"celsius":"warm"}"#),
                    (name, #"{"celsius":2"#),
                    ("Elsewhere.Reading", #"{"celsius":3}"#),
                    (name, oversize),
                    (name, #"{"celsius":5}"#),
                ], on: Reading.linkedChannel, origin: uniqueOrigin("foreign"))
            try await Server.withConnection { connection in
                try await connection.query(
                    "SELECT pg_notify(\(Reading.linkedChannel), 'not a link''s')", logger: Server.logger)
            }
            try await writeRaw([(name, #"{"celsius":6}"#)], on: Reading.linkedChannel, origin: uniqueOrigin("foreign"))
            try await waitUntil("the last reading arrives") { readings.all.last == Reading(celsius: 6) }
            await receiving.stop()

            #expect(readings.all == [Reading(celsius: 5), Reading(celsius: 6)])
            let reported = failures.all
            #expect(reported.count == 5)
            guard reported.count == 5 else { return }
            #expect(reported[0].error is DecodingError)
            #expect(reported[1].error is DecodingError)
            #expect(
                reported[2].error as? PostgresLinkError
                    == PostgresLinkError(.unknownMailType, name: "Elsewhere.Reading", channel: Reading.linkedChannel))
            #expect(
                reported[3].error as? PostgresLinkError
                    == PostgresLinkError(
                        .mailTooLarge, name: name, channel: Reading.linkedChannel, size: oversize.utf8.count,
                        limit: 100))
            #expect(
                reported[4].error as? PostgresLinkError
                    == PostgresLinkError(
                        .malformedNotification, channel: Reading.linkedChannel, detail: "not a link's"))
            let letters = reported.compactMap { $0.mail as? RemoteLetter }
            #expect(letters.count == 5)
            #expect(letters.prefix(4).map(\.body).first == #"{"celsius":"warm"}"#)
        }

        @Test("mail pruned from the outbox before a disconnected process read it is reported as missed")
        func prunedMailIsReportedAsMissed() async throws {
            let sending = try await RunningLink.start([Sample.self], origin: uniqueOrigin("a"))
            let receiving = try await RunningLink.start([Sample.self], origin: uniqueOrigin("b"))
            let samples = Inbox<Sample>()
            receiving.office.register { (sample: Sample, _: RemoteOrigin) in samples.append(sample) }
            let failures = Inbox<DeliveryFailure>()
            receiving.office.register { (failure: DeliveryFailure) in failures.append(failure) }
            sending.office.post(Sample(number: 1))
            try await waitUntil("the first arrives") { samples.count == 1 }

            await receiving.stop()
            for number in 2...4 { sending.office.post(Sample(number: number)) }
            try await waitUntil("three are written") { sending.link.unsent == 0 }
            let pruned = try await Server.withConnection { connection in
                try await Server.outbox.prune(olderThan: 0, on: connection)
            }
            sending.office.post(Sample(number: 5))
            try await waitUntil("the fifth is written") { sending.link.unsent == 0 }
            let again = RunningLink(
                office: receiving.office, link: receiving.link, task: Task { try await receiving.link.run() })
            try await waitUntil("the fifth arrives") { samples.all.last == Sample(number: 5) }
            await again.stop()
            await sending.stop()

            #expect(pruned >= 3)
            #expect(samples.all == [Sample(number: 1), Sample(number: 5)])
            let last = try #require(failures.all.last?.error as? PostgresLinkError)
            #expect(last.code == .missedMail)
            #expect(last.channel == Sample.linkedChannel)
            #expect(last.sequences?.count == 3)
            #expect(failures.count == 1)
        }
    }
}
#endif
