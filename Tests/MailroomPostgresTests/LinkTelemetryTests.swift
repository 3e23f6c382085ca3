#if Postgres && Observability
import InMemoryLogging
import InMemoryTracing
import Logging
import Mailroom
import MetricsTestKit
import PostgresNIO
import Testing
import Tracing

@testable import MailroomPostgres

/// A link's telemetry kept by the libraries' test kits: its metrics in a `TestMetrics`, its log lines (from `info`
/// up) in an `InMemoryLogHandler`.
struct Measured {
    let metrics = TestMetrics()
    let logs = InMemoryLogHandler()

    /// The logger to give the link.
    var logger: Logger {
        let logs = logs
        var logger = Logger(label: "MailroomPostgresTests.telemetry", factory: { _ in logs })
        logger.logLevel = .info
        return logger
    }

    /// A configuration on `apart`'s tables with these metrics, and `tracer` when given (else the bootstrapped one).
    func configure(
        _ apart: Apart, tracer: (any Tracer)? = nil,
        _ more: @escaping (inout PostgresLink.Configuration) -> Void = { _ in }
    ) -> (inout PostgresLink.Configuration) -> Void {
        { [metrics] configuration in
            apart.configure(&configuration)
            configuration.telemetry.metricsFactory = metrics
            if let tracer { configuration.telemetry.tracer = tracer }
            more(&configuration)
        }
    }

    /// The total of the counter `label` of `channel` (or without dimensions); `nil` if the link did not make it.
    func count(_ label: String, on channel: String? = nil) -> Int64? {
        try? metrics.expectCounter(label, channel.map { [("channel", $0)] } ?? []).totalValue
    }

    /// The lags recorded for `channel`, in nanoseconds.
    func lags(on channel: String) -> [Int64]? {
        try? metrics.expectTimer("mailroom_link_lag", [("channel", channel)]).values
    }

    /// The values the unsent gauge recorded, in order.
    var unsent: [Double]? {
        try? metrics.expectGauge("mailroom_link_unsent").values
    }

    /// The lines that said the listening connection was lost.
    var lostConnections: [InMemoryLogHandler.Entry] {
        logs.entries.filter { $0.message == "lost the listening connection; leasing another" }
    }
}

/// The payload of the first notification of `tables` on `channel` after `post` begins, heard on a connection of
/// its own with a plain `LISTEN`; `nil` when the connection ended first. Throws if none comes within 30 s.
func notification(
    on channel: String, of tables: Tables, during post: @escaping @Sendable () async throws -> Void
) async throws -> String? {
    try await Server.withConnection { connection in
        try await within(.seconds(30), closing: connection) {
            try await connection.listen(on: channel) { notifications in
                try await post()
                for try await notification in notifications where notification.payload.hasPrefix("\(tables.tag)\n") {
                    return notification.payload
                }
                return nil
            }
        }
    }
}

/// A row of an outbox, as stored.
struct StoredMail: Equatable {
    var sequence: Int64
    var link: Int64
    var linkedName: String
    var body: String
    var context: String?
}

/// The mail of `origin` in `tables`' outbox, in order.
func storedMail(of origin: String, in tables: Tables) async throws -> [StoredMail] {
    try await Server.withConnection { connection in
        let query: PostgresQuery = """
            SELECT seq, link, type_name, body, context FROM \(unescaped: tables.outbox)
            WHERE origin = \(origin) ORDER BY seq
            """
        var stored: [StoredMail] = []
        let rows = try await connection.query(query, logger: Server.logger)
        for try await (sequence, link, linkedName, body, context) in rows.decode(
            (Int64, Int64, String, String, String?).self)
        {
            stored.append(
                StoredMail(sequence: sequence, link: link, linkedName: linkedName, body: body, context: context))
        }
        return stored
    }
}

/// Terminates the server process of `origin`'s listening connection on `apart`'s tables (the one that holds the
/// origin's lock) and waits until it has exited, up to 10 s; returns whether it had, `false` when none was found.
@discardableResult
func terminateListening(of origin: String, _ apart: Apart, on connection: PostgresConnection) async throws -> Bool {
    let key = apart.tables.key(ofOrigin: origin)
    let query: PostgresQuery = """
        SELECT pg_terminate_backend(pid, 10000) FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND objsubid = 1
            AND classid = ((\(key) >> 32) & 4294967295)::oid AND objid = (\(key) & 4294967295)::oid
        """
    var terminated: [Bool] = []
    for try await one in try await connection.query(query, logger: Server.logger).decode(Bool.self) {
        terminated.append(one)
    }
    return terminated == [true]
}

extension DatabaseTests {
    @Suite("The link's metrics, and what its trace contexts add to the wire")
    struct LinkTelemetryTests {
        @Test(
            "mail is counted sent by its sender once confirmed and received by the other link, each with a lag; nothing is left unsent"
        )
        func sentAndReceivedAreCountedExactly() async throws {
            let apart = Apart()
            let (sender, receiver) = (Measured(), Measured())
            let types: [any LinkedMail.Type] = [PriceChanged.self, StockCounted.self]
            let sending = try await RunningLink.start(
                types, origin: uniqueOrigin("a"), configure: sender.configure(apart))
            let receiving = try await RunningLink.start(
                types, origin: uniqueOrigin("b"), configure: receiver.configure(apart))
            let prices = Inbox<PriceChanged>()
            receiving.office.register { (change: PriceChanged, _: RemoteOrigin) in prices.append(change) }
            let counts = Inbox<StockCounted>()
            receiving.office.register { (count: StockCounted, _: RemoteOrigin) in counts.append(count) }
            let echoes = Inbox<StockCounted>()
            sending.office.register { (count: StockCounted, origin: RemoteOrigin?) in
                if origin == nil { echoes.append(count) }
            }

            for number in 1...5 { sending.office.post(PriceChanged(sku: "s\(number)", cents: number)) }
            try await waitUntil("the sender confirmed its mail") { sending.link.unsent == 0 }
            try await waitUntil("five arrive") { prices.count == 5 }
            try await Server.withConnection { connection in
                try await connection.withTransaction(logger: Server.logger) { connection in
                    try await sending.link.post(StockCounted(sku: "in-transaction", count: 1), in: connection)
                }
            }
            try await waitUntil("the transaction's mail arrives") { counts.count == 1 }
            try await waitUntil("the transaction's mail reaches its own office") { echoes.count == 1 }
            await sending.stop()
            await receiving.stop()

            let (price, stock) = (PriceChanged.linkedChannel, StockCounted.linkedChannel)
            #expect(sender.count("mailroom_link_sent", on: price) == 5)
            #expect(
                sender.count("mailroom_link_sent", on: stock) == 1,
                "the transaction's mail, counted once: its post on its own office is not sent again")
            #expect(receiver.count("mailroom_link_received", on: price) == 5)
            #expect(receiver.count("mailroom_link_received", on: stock) == 1)
            #expect(receiver.count("mailroom_link_caught_up", on: price) == 0, "all came by notification")
            #expect(receiver.count("mailroom_link_caught_up", on: stock) == 0)
            #expect(sender.count("mailroom_link_received", on: price) == 0, "a link does not receive its own mail")
            #expect(
                sender.count("mailroom_link_received", on: stock) == 1,
                "but it does receive what it sent in a transaction")
            #expect(receiver.count("mailroom_link_sent", on: price) == 0)
            let lags = try #require(receiver.lags(on: price))
            #expect(lags.count == 5)
            // A delivery takes time: a lag of 0 would be one never measured (a negative one is recorded as 0).
            #expect(lags.allSatisfy { $0 > 0 }, "\(lags)")
            #expect(receiver.lags(on: stock)?.count == 1)
            #expect(sender.unsent?.last == 0)
            #expect(sender.unsent?.first == 1, "recorded as the first mail was queued")
            #expect(receiver.count("mailroom_link_missed", on: price) == 0)
            #expect(receiver.count("mailroom_link_malformed_contexts", on: price) == 0)
        }

        @Test("mail too large for a notification is counted caught up; the small mail around it is not")
        func largeMailIsCaughtUp() async throws {
            let apart = Apart()
            let receiver = Measured()
            let sending = try await RunningLink.start(
                [Manual.self], origin: uniqueOrigin("a"), configure: apart.configure)
            let receiving = try await RunningLink.start(
                [Manual.self], origin: uniqueOrigin("b"), configure: receiver.configure(apart))
            let manuals = Inbox<Manual>()
            receiving.office.register { (manual: Manual, _: RemoteOrigin) in manuals.append(manual) }
            let sent = [
                Manual(pages: "small"), Manual(pages: String(repeating: "x", count: 9000)), Manual(pages: "s"),
            ]
            // One at a time: mail committed with the large one would be read from the outbox along with it.
            for (count, manual) in zip(1..., sent) {
                sending.office.post(manual)
                try await waitUntil("mail \(count) arrives") { manuals.count == count }
            }
            await sending.stop()
            await receiving.stop()

            #expect(manuals.all == sent)
            #expect(receiver.count("mailroom_link_received", on: Manual.linkedChannel) == 3)
            #expect(receiver.count("mailroom_link_caught_up", on: Manual.linkedChannel) == 1)
            #expect(receiver.lags(on: Manual.linkedChannel)?.count == 3)
        }

        @Test(
            "mail committed while the listening connection is lost is counted caught up; each loss is counted, and logged once per interval"
        )
        func lostConnectionsAreCountedAndLoggedOnce() async throws {
            let apart = Apart()
            let receiver = Measured()
            let sending = try await RunningLink.start(
                [PriceChanged.self], origin: uniqueOrigin("a"), configure: apart.configure)
            // A heartbeat that does not close the connection while its read waits for the test's lock.
            let receiving = try await RunningLink.start(
                [PriceChanged.self], origin: uniqueOrigin("b"), logger: receiver.logger,
                configure: receiver.configure(apart) {
                    $0.heartbeat = .seconds(5)
                    $0.reconnectLogInterval = .seconds(3600)
                })
            let prices = Inbox<PriceChanged>()
            receiving.office.register { (change: PriceChanged, _: RemoteOrigin) in prices.append(change) }

            // While the transaction holds the outbox, the receiver's next connection cannot read it: the mail is
            // committed before the receiver can read, and after its old connection ended, whenever it reconnects.
            let first = try await Server.withConnection { connection in
                try await connection.withTransaction(logger: Server.logger) { connection in
                    try await connection.query(
                        PostgresQuery(unsafeSQL: "LOCK TABLE \(apart.tables.outbox) IN ACCESS EXCLUSIVE MODE"),
                        logger: Server.logger)
                    let terminated = try await terminateListening(of: receiving.link.origin, apart, on: connection)
                    try await sending.link.post(PriceChanged(sku: "while-lost", cents: 1), in: connection)
                    return terminated
                }
            }
            try await waitUntil("the mail committed meanwhile arrives") { prices.count == 1 }
            let caughtUp = receiver.count("mailroom_link_caught_up", on: PriceChanged.linkedChannel)
            let reconnectsAfterFirst = receiver.count("mailroom_link_reconnects")
            let linesAfterFirst = receiver.lostConnections

            let second = try await Server.withConnection { connection in
                try await terminateListening(of: receiving.link.origin, apart, on: connection)
            }
            try await waitUntil("the second loss is counted") { receiver.count("mailroom_link_reconnects") == 2 }
            // Posted after the second connection ended, it arrives through the third, leased after the loss was
            // logged or not.
            sending.office.post(PriceChanged(sku: "after", cents: 2))
            try await waitUntil("the mail after the second loss arrives") { prices.count == 2 }
            await sending.stop()
            await receiving.stop()

            #expect(first == true, "the listening connection was found and terminated")
            #expect(caughtUp == 1)
            #expect(reconnectsAfterFirst == 1)
            #expect(linesAfterFirst.count == 1)
            #expect(linesAfterFirst.first?.level == .warning)
            #expect(linesAfterFirst.first?.metadata["mailroom.suppressed"] == "0")
            #expect(second == true, "the second listening connection was found and terminated")
            #expect(receiver.count("mailroom_link_reconnects") == 2)
            #expect(receiver.lostConnections.count == 1, "the second loss, within the interval, is not logged")
            #expect(prices.all.map(\.sku) == ["while-lost", "after"])
        }

        @Test("mail pruned before the receiver read it is counted missed, one per mail")
        func prunedMailIsCountedMissed() async throws {
            let apart = Apart()
            let receiver = Measured()
            let sending = try await RunningLink.start(
                [Sample.self], origin: uniqueOrigin("a"), configure: apart.configure)
            let receiving = try await RunningLink.start(
                [Sample.self], origin: uniqueOrigin("b"), configure: receiver.configure(apart))
            let samples = Inbox<Sample>()
            receiving.office.register { (sample: Sample, _: RemoteOrigin) in samples.append(sample) }
            sending.office.post(Sample(number: 1))
            try await waitUntil("the first arrives") { samples.count == 1 }

            await receiving.stop()
            for number in 2...4 { sending.office.post(Sample(number: number)) }
            try await waitUntil("three are written") { sending.link.unsent == 0 }
            let pruned = try await Server.withConnection { connection in
                try await Outbox(tables: apart.tables, logger: Server.logger).prune(olderThan: 0, on: connection)
            }
            sending.office.post(Sample(number: 5))
            try await waitUntil("the fifth is written") { sending.link.unsent == 0 }
            let again = RunningLink(
                office: receiving.office, link: receiving.link, task: Task { try await receiving.link.run() })
            try await waitUntil("the fifth arrives") { samples.all.last == Sample(number: 5) }
            await again.stop()
            await sending.stop()

            #expect(pruned == 4, "the first four, the first of them read already")
            #expect(samples.all == [Sample(number: 1), Sample(number: 5)])
            #expect(receiver.count("mailroom_link_missed", on: Sample.linkedChannel) == 3)
            #expect(receiver.count("mailroom_link_received", on: Sample.linkedChannel) == 2)
            #expect(receiver.count("mailroom_link_caught_up", on: Sample.linkedChannel) == 1, "the fifth")
        }

        @Test(
            "mail whose context cannot be read is delivered without it and counted, whether its notification carried it or not"
        )
        func malformedContextsAreCountedAndDelivered() async throws {
            let apart = Apart()
            let receiver = Measured()
            let receiving = try await RunningLink.start(
                [PriceChanged.self], origin: uniqueOrigin("b"), configure: receiver.configure(apart))
            let prices = Inbox<PriceChanged>()
            receiving.office.register { (change: PriceChanged, _: RemoteOrigin) in prices.append(change) }

            /// Writes `change` with `context`, as a link of another process with a bug could; the cents number it.
            func write(_ change: PriceChanged, context: String) async throws {
                try await Server.withConnection { connection in
                    let tables = apart.tables
                    let body = #"{"cents":\#(change.cents),"sku":"\#(change.sku)"}"#
                    _ = try await connection.query(
                        """
                        SELECT \(unescaped: tables.write)(\(PriceChanged.linkedChannel), 'someone', 1,
                            ARRAY[\(Int64(change.cents))], false, ARRAY[\(PriceChanged.linkedName)], ARRAY[\(body)],
                            ARRAY[\(context)])
                        """, logger: Server.logger
                    ).collect()
                }
            }
            try await write(PriceChanged(sku: "not-json", cents: 1), context: "not json")
            try await waitUntil("the mail arrives") { prices.count == 1 }
            let afterNotified = receiver.count("mailroom_link_malformed_contexts", on: PriceChanged.linkedChannel)
            // A context with a newline cannot travel in a notification: the mail is read from the outbox.
            try await write(PriceChanged(sku: "two-lines", cents: 2), context: "{\n")
            try await waitUntil("the mail read from the outbox arrives") { prices.count == 2 }
            await receiving.stop()

            #expect(prices.all == [PriceChanged(sku: "not-json", cents: 1), PriceChanged(sku: "two-lines", cents: 2)])
            #expect(afterNotified == 1)
            #expect(receiver.count("mailroom_link_malformed_contexts", on: PriceChanged.linkedChannel) == 2)
            #expect(receiver.count("mailroom_link_received", on: PriceChanged.linkedChannel) == 2)
            #expect(receiver.count("mailroom_link_caught_up", on: PriceChanged.linkedChannel) == 1)
        }

        @Test(
            "a post with no context to carry adds no byte to its notification or row; one inside a span carries its context"
        )
        func noContextAddsNoBytes() async throws {
            try #require(
                InstrumentationSystem.tracer is NoOpTracer, "no tracer is bootstrapped in the tests' process")
            let apart = Apart()
            let tracer = InMemoryTracer()
            let tag = apart.tables.tag

            /// Posts `pages` on a new link with `tracer` (or the default one) inside `around`; returns the link's
            /// origin, the notification heard, and the mail stored.
            func post(
                _ pages: String, tracer: (any Tracer)?, around: @escaping @Sendable (() -> Void) -> Void = { $0() }
            ) async throws -> (origin: String, payload: String, stored: StoredMail) {
                let sending = try await RunningLink.start(
                    [Manual.self], origin: uniqueOrigin("a"), configure: Measured().configure(apart, tracer: tracer))
                let heard = try await notification(on: Manual.linkedChannel, of: apart.tables) {
                    around { sending.office.post(Manual(pages: pages)) }
                }
                try await waitUntil("the mail is confirmed") { sending.link.unsent == 0 }
                await sending.stop()
                let origin = sending.link.origin
                let stored = try await storedMail(of: origin, in: apart.tables)
                #expect(stored.count == 1)
                return (origin, try #require(heard), try #require(stored.first))
            }
            /// What a link wrote before contexts were carried.
            func oldPayload(_ origin: String, _ stored: StoredMail) -> String {
                "\(tag)\n\(stored.sequence)\n\(stored.link)\nf\n\(origin)\n\(Manual.linkedName)\n\(stored.body)"
            }

            let other = InMemoryTracer()
            let unrelated = other.startSpan("elsewhere")
            defer { unrelated.end() }
            let plain = try await post("plain", tracer: nil)
            let ignored = try await post("ignored", tracer: nil) { post in
                ServiceContext.withValue(unrelated.context) { post() }
            }
            let spanless = try await post("spanless", tracer: tracer) { post in
                ServiceContext.withValue(.topLevel) { post() }
            }
            let traced = try await post("traced", tracer: tracer) { post in
                tracer.withSpan("poster") { _ in post() }
            }

            for (origin, payload, stored) in [plain, ignored, spanless] {
                #expect(payload == oldPayload(origin, stored))
                #expect(payload.split(separator: "\n", omittingEmptySubsequences: false).count == 7)
                #expect(stored.context == nil)
            }
            #expect(plain.stored.body == #"{"pages":"plain"}"#)
            #expect(plain.stored.linkedName == Manual.linkedName)
            #expect(plain.stored.link != 0)
            let span = try #require(tracer.finishedSpans.first { $0.operationName == "poster" })
            let context = #"{"in-memory-span-id":"\#(span.spanID)","in-memory-trace-id":"\#(span.traceID)"}"#
            #expect(
                traced.payload
                    == "\(tag)\n\(traced.stored.sequence)\n\(traced.stored.link)\nF\n\(traced.origin)\n\(context)\n"
                    + "\(Manual.linkedName)\n\(traced.stored.body)")
            #expect(traced.stored.context == context)
        }
    }
}
#endif
