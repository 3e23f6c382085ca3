#if Postgres
import Foundation
import Mailroom
import PostgresNIO
import Testing

@testable import MailroomPostgres

/// A recipient's error, thrown on purpose.
struct RecipientFailed: Error, Equatable {
    let sku: String
}

/// Tables of their own for one test, so that a subscription that starts at the beginning sees only its mail.
struct Apart {
    let prefix = "sub\(UInt32.random(in: .min ... .max))_"

    var configure: (inout PostgresLink.Configuration) -> Void {
        { [prefix] in $0.tablePrefix = prefix }
    }

    var tables: Tables { Tables(prefix: prefix, schema: nil) }

    /// The stored position of `subscription` on `channel`, or `nil` when it has none.
    func position(of subscription: String, on channel: String = PriceChanged.linkedChannel) async throws -> Int64? {
        try await Server.withConnection { connection in
            let query: PostgresQuery = """
                SELECT seq FROM \(unescaped: tables.cursors) WHERE subscription = \(subscription) AND channel = \(channel)
                """
            for try await position in try await connection.query(query, logger: Server.logger).decode(Int64.self) {
                return position
            }
            return nil
        }
    }

    /// The failed attempts stored for the mail after the position of `subscription` on `channel`.
    func attempts(of subscription: String, on channel: String = PriceChanged.linkedChannel) async throws -> Int? {
        try await Server.withConnection { connection in
            let query: PostgresQuery = """
                SELECT attempts FROM \(unescaped: tables.cursors)
                WHERE subscription = \(subscription) AND channel = \(channel)
                """
            for try await attempts in try await connection.query(query, logger: Server.logger).decode(Int32.self) {
                return Int(attempts)
            }
            return nil
        }
    }

    /// Waits until the stored position of `subscription` is `sequence`.
    func waitForPosition(_ sequence: Int64, of subscription: String) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try await position(of: subscription) != sequence {
            guard ContinuousClock.now < deadline else {
                throw TimedOut(description: "the position of \(subscription) did not reach \(sequence)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Posts `PriceChanged` mail with the SKUs `s<n>` for `numbers` on `link`'s office, and waits until they are
    /// written.
    func post(_ numbers: ClosedRange<Int>, on link: RunningLink) async throws {
        for number in numbers { link.office.post(PriceChanged(sku: "s\(number)", cents: number)) }
        try await waitUntil("the link writes its mail") { link.link.unsent == 0 }
    }
}

/// What a subscription's recipient was handed, in order.
typealias Handed = Inbox<(sku: String, delivery: PostgresSubscription.Delivery)>

extension DatabaseTests {
    @Suite("Named subscriptions")
    struct SubscriptionTests {
        /// A link on `apart`'s tables whose subscription `name` hands `PriceChanged` to `handed`.
        func subscriber(
            _ name: String, _ apart: Apart, start: PostgresSubscription.Start = .beginning, handed: Handed,
            office: PostOffice = PostOffice()
        ) async throws -> RunningLink {
            try await RunningLink.start(
                [PriceChanged.self], origin: uniqueOrigin("subscriber"), office: office, configure: apart.configure
            ) { link in
                try link.subscription(name, startingAt: start).receive(PriceChanged.self) { change, delivery in
                    handed.append((change.sku, delivery))
                }
            }
        }

        @Test("a subscription is handed every mail in commit order, its own process's posts too, with its number")
        func handsEveryMailInOrder() async throws {
            let apart = Apart()
            let handed = Handed()
            let subscribing = try await subscriber("audit", apart, handed: handed)
            let posting = try await RunningLink.start(
                [PriceChanged.self], origin: uniqueOrigin("poster"), configure: apart.configure)
            try await apart.post(1...3, on: posting)
            try await apart.post(4...5, on: subscribing)
            try await apart.waitForPosition(5, of: "audit")
            #expect(throws: PostgresLinkError(.alreadyRunning, origin: subscribing.link.origin, subscription: "late")) {
                try subscribing.link.subscription("late")
            }
            await subscribing.stop()
            await posting.stop()

            #expect(handed.all.map(\.sku) == ["s1", "s2", "s3", "s4", "s5"])
            #expect(handed.all.map(\.delivery.sequence) == [1, 2, 3, 4, 5])
            #expect(
                handed.all.map(\.delivery.origin)
                    == Array(repeating: posting.link.origin, count: 3)
                    + Array(repeating: subscribing.link.origin, count: 2))
            #expect(
                handed.all.allSatisfy { $0.delivery.attempt == 1 && $0.delivery.channel == PriceChanged.linkedChannel })
        }

        @Test("a subscription started again under its name is handed what was committed while it was stopped")
        func resumesWhereItStopped() async throws {
            let apart = Apart()
            let posting = try await RunningLink.start(
                [PriceChanged.self], origin: uniqueOrigin("poster"), configure: apart.configure)
            let before = Handed()
            let first = try await subscriber("billing", apart, handed: before)
            try await apart.post(1...10, on: posting)
            try await apart.waitForPosition(10, of: "billing")
            await first.stop()
            try await apart.post(11...30, on: posting)
            let after = Handed()
            let second = try await subscriber("billing", apart, start: .end, handed: after)
            try await apart.waitForPosition(30, of: "billing")
            await second.stop()
            await posting.stop()

            #expect(before.all.map(\.delivery.sequence) == Array(1...10))
            #expect(after.all.map(\.delivery.sequence) == Array(11...30), "its stored position, not .end")
            #expect(after.all.map(\.sku) == (11...30).map { "s\($0)" })
        }

        @Test("a new subscription starts after a sequence number, after a time, or at the end, as asked")
        func startsWhereAsked() async throws {
            let apart = Apart()
            let posting = try await RunningLink.start(
                [PriceChanged.self], origin: uniqueOrigin("poster"), configure: apart.configure)
            try await apart.post(1...10, on: posting)
            let time = try await Server.withConnection { connection in
                for try await now in try await connection.query("SELECT now()", logger: Server.logger).decode(Date.self)
                {
                    return now
                }
                return Date.distantFuture
            }
            try await apart.post(11...15, on: posting)
            let (fromSequence, fromTime, fromEnd) = (Handed(), Handed(), Handed())
            let subscribing = try await RunningLink.start(
                [PriceChanged.self], origin: uniqueOrigin("subscriber"), configure: apart.configure
            ) { link in
                for (name, start, handed) in [
                    ("from-sequence", PostgresSubscription.Start.after(sequence: 4), fromSequence),
                    ("from-time", .after(time), fromTime), ("from-end", .end, fromEnd),
                ] {
                    try link.subscription(name, startingAt: start).receive(PriceChanged.self) { change, delivery in
                        handed.append((change.sku, delivery))
                    }
                }
            }
            try await apart.waitForPosition(15, of: "from-sequence")
            try await apart.waitForPosition(15, of: "from-time")
            try await apart.waitForPosition(15, of: "from-end")
            try await apart.post(16...16, on: posting)
            try await apart.waitForPosition(16, of: "from-end")
            await subscribing.stop()
            await posting.stop()

            #expect(fromSequence.all.map(\.delivery.sequence) == Array(5...16))
            #expect(fromTime.all.map(\.delivery.sequence) == Array(11...16))
            #expect(fromEnd.all.map(\.delivery.sequence) == [16])
        }

        @Test("a recipient in the transaction has each effect once; one that throws is rolled back, reported, retried")
        func transactionalEffectsOnce() async throws {
            let apart = Apart()
            let effects = "\(apart.prefix)effects"
            try await Server.withConnection { connection in
                try await connection.query(
                    PostgresQuery(unsafeSQL: "CREATE TABLE \(effects) (sku text NOT NULL)"), logger: Server.logger)
            }
            let office = PostOffice()
            let failures = Inbox<(RemoteLetter?, RecipientFailed?)>()
            office.register { (failure: DeliveryFailure) in
                failures.append((failure.mail as? RemoteLetter, failure.error as? RecipientFailed))
            }
            let attempts = Inbox<(String, Int)>()
            let subscribing = try await RunningLink.start(
                [PriceChanged.self], origin: uniqueOrigin("subscriber"), office: office, configure: apart.configure
            ) { link in
                try link.subscription("effects", startingAt: .beginning).receive(PriceChanged.self) {
                    change, delivery, connection in
                    attempts.append((change.sku, delivery.attempt))
                    try await connection.query(
                        "INSERT INTO \(unescaped: effects) (sku) VALUES (\(change.sku))", logger: Server.logger)
                    if change.sku == "s3" && delivery.attempt == 1 { throw RecipientFailed(sku: change.sku) }
                }
            }
            try await apart.post(1...5, on: subscribing)
            try await apart.waitForPosition(5, of: "effects")
            await subscribing.stop()

            let counts = try await Server.withConnection { connection in
                var counts: [String: Int] = [:]
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT sku, count(*) FROM \(effects) GROUP BY sku"),
                    logger: Server.logger)
                for try await (sku, count) in rows.decode((String, Int64).self) { counts[sku] = Int(count) }
                return counts
            }
            #expect(counts == ["s1": 1, "s2": 1, "s3": 1, "s4": 1, "s5": 1])
            #expect(attempts.all.map(\.0) == ["s1", "s2", "s3", "s3", "s4", "s5"])
            #expect(attempts.all.map(\.1) == [1, 1, 1, 2, 1, 1])
            #expect(failures.all.map(\.0?.sequence) == [3])
            #expect(failures.all.map(\.1) == [RecipientFailed(sku: "s3")])
        }

        @Test("a recipient that fails twice is handed the mail a third time, after back-offs of 20 and 40 ms")
        func retriesAfterBackOff() async throws {
            let apart = Apart()
            let times = Inbox<(Int, ContinuousClock.Instant)>()
            let subscribing = try await RunningLink.start(
                [PriceChanged.self], origin: uniqueOrigin("subscriber"), configure: apart.configure
            ) { link in
                try link.subscription("retrying", startingAt: .beginning).receive(PriceChanged.self) { _, delivery in
                    times.append((delivery.attempt, .now))
                    if delivery.attempt < 3 { throw RecipientFailed(sku: "s1") }
                }
            }
            try await apart.post(1...1, on: subscribing)
            try await apart.waitForPosition(1, of: "retrying")
            await subscribing.stop()

            #expect(times.all.map(\.0) == [1, 2, 3])
            let instants = times.all.map(\.1)
            #expect(instants[1] - instants[0] >= .milliseconds(20))
            #expect(instants[2] - instants[1] >= .milliseconds(40))
        }

        @Test(
            "a recipient that always fails: its mail is buried after the attempts, the next goes on; moved back, it is handed once"
        )
        func deadLettersAndMovingBack() async throws {
            let apart = Apart()
            let watched = Inbox<String>()
            let posting = try await RunningLink.start(
                [PriceChanged.self], origin: uniqueOrigin("poster"), configure: apart.configure)
            let watching = try await RunningLink.start(
                [PriceChanged.self], origin: uniqueOrigin("watcher"), configure: apart.configure)
            watching.office.register { (change: PriceChanged, _: RemoteOrigin) in watched.append(change.sku) }
            let failing = Inbox<Bool>()
            failing.append(true)
            let handed = Handed()
            let subscription = Inbox<PostgresSubscription>()
            let subscribing = try await RunningLink.start(
                [PriceChanged.self], origin: uniqueOrigin("subscriber"), configure: apart.configure
            ) { link in
                let poison = try link.subscription("poison", startingAt: .beginning, maximumAttempts: 3)
                try poison.receive(PriceChanged.self) { change, delivery in
                    handed.append((change.sku, delivery))
                    if change.sku == "bad" && failing.all.last == true { throw RecipientFailed(sku: "bad") }
                }
                subscription.append(poison)
            }
            let poison = subscription.all[0]
            posting.office.post(PriceChanged(sku: "s1", cents: 1))
            posting.office.post(PriceChanged(sku: "bad", cents: 2))
            posting.office.post(PriceChanged(sku: "s3", cents: 3))
            try await apart.waitForPosition(3, of: "poison")
            let letters = try await Server.withConnection { try await poison.deadLetters(on: $0) }
            #expect(handed.all.map(\.sku) == ["s1", "bad", "bad", "bad", "s3"])
            #expect(handed.all.map(\.delivery.attempt) == [1, 1, 2, 3, 1])
            #expect(letters.count == 1)
            #expect(letters.first?.sequence == 2)
            #expect(letters.first?.attempts == 3)
            #expect(letters.first?.error == String(describing: RecipientFailed(sku: "bad")))
            #expect(letters.first?.origin == posting.link.origin)
            #expect(letters.first?.linkedName == PriceChanged.linkedName)

            failing.append(false)
            try await Server.withConnection { connection in
                try await connection.query("BEGIN", logger: Server.logger)
                for letter in letters { try await poison.moveBack(letter, in: connection) }
                try await connection.query("COMMIT", logger: Server.logger)
            }
            try await apart.waitForPosition(4, of: "poison")
            posting.office.post(PriceChanged(sku: "s5", cents: 5))
            try await apart.waitForPosition(5, of: "poison")
            try await waitUntil("the watcher has s5") { watched.all.contains("s5") }
            let left = try await Server.withConnection { try await poison.deadLetters(on: $0) }
            await subscribing.stop()
            await watching.stop()
            await posting.stop()

            #expect(Array(handed.all.map(\.sku).dropFirst(5)) == ["bad", "s5"])
            #expect(Array(handed.all.map(\.delivery.sequence).dropFirst(5)) == [4, 5])
            #expect(Array(handed.all.map(\.delivery.attempt).dropFirst(5)) == [1, 1])
            #expect(left.isEmpty)
            #expect(watched.all == ["s1", "bad", "s3", "s5"], "moved back for the subscription alone")
            await #expect(throws: PostgresLinkError.self) {
                try await Server.withConnection { try await poison.moveBack(letters[0], in: $0) }
            }
        }

        @Test("failed attempts are counted in the database: a subscription started again goes on counting")
        func attemptsSurviveARestart() async throws {
            let apart = Apart()
            let attempts = Inbox<Int>()
            /// A link whose recipient always throws, except that with `holdingThird`, it waits in its third attempt
            /// until the link stops (a stop does not count as a failure).
            func start(holdingThird: Bool) async throws -> RunningLink {
                try await RunningLink.start(
                    [PriceChanged.self], origin: uniqueOrigin("subscriber"), configure: apart.configure
                ) { link in
                    try link.subscription("stubborn", startingAt: .beginning, maximumAttempts: 3).receive(
                        PriceChanged.self
                    ) { _, delivery in
                        attempts.append(delivery.attempt)
                        if holdingThird && delivery.attempt == 3 { try await Task.sleep(for: .seconds(3600)) }
                        throw RecipientFailed(sku: "bad")
                    }
                }
            }
            let first = try await start(holdingThird: true)
            try await apart.post(1...1, on: first)
            try await waitUntil("the third attempt starts") { attempts.count == 3 }
            await first.stop()
            let counted = try await apart.attempts(of: "stubborn")
            let second = try await start(holdingThird: false)
            try await apart.waitForPosition(1, of: "stubborn")
            let letters = try await Server.withConnection { connection in
                try await Outbox(tables: apart.tables, logger: Server.logger).deadLetters(
                    of: "stubborn", on: connection)
            }
            await second.stop()

            #expect(counted == 2, "the stop in the third attempt is not counted")
            #expect(attempts.all == [1, 2, 3, 3], "the second process's first attempt is the third, and the last")
            #expect(letters.map(\.attempts) == [3])
        }

        @Test("two links with one subscription name: one reads the channel, the other takes over when it stops")
        func oneReaderPerChannel() async throws {
            let apart = Apart()
            let posting = try await RunningLink.start(
                [PriceChanged.self], origin: uniqueOrigin("poster"), configure: apart.configure)
            let (handedA, handedB) = (Handed(), Handed())
            let a = try await subscriber("shared", apart, handed: handedA)
            let b = try await subscriber("shared", apart, handed: handedB)
            try await apart.post(1...20, on: posting)
            try await apart.waitForPosition(20, of: "shared")
            let (owner, other) = handedA.count > 0 ? (a, b) : (b, a)
            let (ownerHanded, otherHanded) = handedA.count > 0 ? (handedA, handedB) : (handedB, handedA)
            #expect(ownerHanded.all.map(\.delivery.sequence) == Array(1...20))
            #expect(otherHanded.count == 0)
            await owner.stop()
            try await apart.post(21...30, on: posting)
            try await apart.waitForPosition(30, of: "shared")
            await other.stop()
            await posting.stop()

            #expect(ownerHanded.all.map(\.delivery.sequence) == Array(1...20))
            #expect(otherHanded.all.map(\.delivery.sequence) == Array(21...30))
        }

        @Test("mail pruned before a subscription read it is reported as missed; mail that does not decode is buried")
        func missedAndUndecodableMailIsReported() async throws {
            let apart = Apart()
            let posting = try await RunningLink.start(
                [PriceChanged.self], origin: uniqueOrigin("poster"), configure: apart.configure)
            try await apart.post(1...5, on: posting)
            try await Server.withConnection { connection in
                let tables = apart.tables
                try await connection.query(
                    PostgresQuery(unsafeSQL: "DELETE FROM \(tables.outbox) WHERE seq <= 3"), logger: Server.logger)
                try await connection.query(
                    """
                    SELECT \(unescaped: tables.write)(\(PriceChanged.linkedChannel), 'someone', 1, ARRAY[1::bigint],
                        false, ARRAY[\(PriceChanged.linkedName)], ARRAY['{'])
                    """, logger: Server.logger)
            }
            try await apart.post(7...7, on: posting)
            let office = PostOffice()
            let failures = Inbox<(PostgresLinkError?, Bool, Int64?)>()
            office.register { (failure: DeliveryFailure) in
                failures.append(
                    (
                        failure.error as? PostgresLinkError, failure.error is DecodingError,
                        (failure.mail as? RemoteLetter)?.sequence
                    ))
            }
            let handed = Handed()
            let subscribing = try await subscriber(
                "late", apart, start: .after(sequence: 0), handed: handed, office: office)
            try await apart.waitForPosition(7, of: "late")
            let letters = try await Server.withConnection { connection in
                try await Outbox(tables: apart.tables, logger: Server.logger).deadLetters(of: "late", on: connection)
            }
            await subscribing.stop()
            await posting.stop()

            #expect(handed.all.map(\.delivery.sequence) == [4, 5, 7])
            let missed = PostgresLinkError(
                .missedMail, channel: PriceChanged.linkedChannel, sequences: 1...3, subscription: "late")
            #expect(failures.all.map(\.0) == [missed, nil])
            #expect(failures.all.map(\.1) == [false, true])
            #expect(failures.all.map(\.2) == [1, 6])
            #expect(letters.map(\.sequence) == [6])
            #expect(letters.map(\.attempts) == [1])
            #expect(letters.first?.error.contains("dataCorrupted") == true, "\(letters)")
        }

        @Test("a subscription's name, its types and the time it is made are checked")
        func badSubscriptionsAreRefused() async throws {
            // Nothing here connects.
            let nowhere = PostgresClient.Configuration(
                host: "localhost", username: "nobody", password: nil, database: "nothing", tls: .disable)
            let link = try PostgresLink(
                office: PostOffice(), carrying: [PriceChanged.self], database: nowhere,
                configuration: .init(origin: uniqueOrigin("a")), logger: Server.logger)
            #expect(throws: PostgresLinkError.self) { try link.subscription("") }
            #expect(throws: PostgresLinkError.self) { try link.subscription("none", maximumAttempts: 0) }
            let subscription = try link.subscription("s")
            #expect(throws: PostgresLinkError(.duplicateSubscription, subscription: "s")) {
                try link.subscription("s")
            }
            #expect(
                throws: PostgresLinkError(
                    .notCarried, name: Manual.linkedName, channel: Manual.linkedChannel, subscription: "s")
            ) {
                try subscription.receive(Manual.self) { _, _ in }
            }
            try subscription.receive(PriceChanged.self) { _, _ in }
            #expect(
                throws: PostgresLinkError(
                    .duplicateName, name: PriceChanged.linkedName, channel: PriceChanged.linkedChannel,
                    subscription: "s")
            ) {
                try subscription.receive(PriceChanged.self) { _, _ in }
            }
        }
    }
}
#endif
