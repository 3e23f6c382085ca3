#if Postgres
import Mailroom
import PostgresNIO
import Testing

@testable import MailroomPostgres

struct PriceChanged: LinkedMail, Equatable {
    let sku: String
    let cents: Int
}

struct StockCounted: LinkedMail, Equatable {
    static let linkedChannel = "tests_stock"
    let sku: String
    let count: Int
}

struct Manual: LinkedMail, Equatable {
    static let linkedChannel = "tests_manual"
    let pages: String
}

/// Two links in one test process stand for two processes: each has its own office, origin and connections.
extension DatabaseTests {
    @Suite("Linked offices")
    struct LinkTests {
        @Test("mail posted on one office arrives on the other as the same type, in order, from a remote origin")
        func mailArrivesAsTheSameType() async throws {
            let (a, b) = (uniqueOrigin("a"), uniqueOrigin("b"))
            let sending = try await RunningLink.start([PriceChanged.self], origin: a)
            let receiving = try await RunningLink.start([PriceChanged.self], origin: b)
            let remote = Inbox<(PriceChanged, String)>()
            let either = Inbox<String?>()
            receiving.office.register { (change: PriceChanged, origin: RemoteOrigin) in
                remote.append((change, origin.name))
            }
            receiving.office.register { (_: PriceChanged, origin: RemoteOrigin?) in either.append(origin?.name) }
            let returned = Inbox<(PriceChanged, String)>()
            sending.office.register { (change: PriceChanged, origin: RemoteOrigin) in
                returned.append((change, origin.name))
            }

            let sent = (1...3).map { PriceChanged(sku: "sku-\($0)", cents: 100 * $0) }
            for change in sent { sending.office.post(change) }
            receiving.office.post(PriceChanged(sku: "local", cents: 1))
            try await waitUntil("three arrive") { remote.count == 3 }
            try await waitUntil("the receiving office's own post reaches the sending one") { returned.count == 1 }
            await sending.stop()
            await receiving.stop()

            #expect(remote.all.map(\.0) == sent)
            #expect(remote.all.map(\.1) == [a, a, a])
            #expect(either.all.filter { $0 == nil }.count == 1, "the local post, with no origin")
            #expect(either.all.compactMap { $0 } == [a, a, a])
            #expect(returned.all.map(\.0) == [PriceChanged(sku: "local", cents: 1)])
            #expect(returned.all.map(\.1) == [b], "a process does not receive its own mail back")
        }

        @Test("a link gives one RemoteOrigin object per origin, so a registration for one exact origin works")
        func oneOriginObjectPerOrigin() async throws {
            let sending = try await RunningLink.start([PriceChanged.self], origin: uniqueOrigin("a"))
            let receiving = try await RunningLink.start([PriceChanged.self], origin: uniqueOrigin("b"))
            let origins = Inbox<RemoteOrigin>()
            receiving.office.register { (_: PriceChanged, origin: RemoteOrigin) in origins.append(origin) }
            sending.office.post(PriceChanged(sku: "first", cents: 1))
            try await waitUntil("the first arrives") { origins.count == 1 }
            let exact = Inbox<PriceChanged>()
            receiving.office.register(sender: origins.all[0]) { (change: PriceChanged) in exact.append(change) }
            sending.office.post(PriceChanged(sku: "second", cents: 2))
            try await waitUntil("the second arrives") { exact.count == 1 }
            await sending.stop()
            await receiving.stop()

            #expect(origins.all.count == 2 && origins.all[0] === origins.all[1])
            #expect(exact.all == [PriceChanged(sku: "second", cents: 2)])
        }

        @Test("mail sent in a transaction that rolls back is sent nowhere; a committed one arrives everywhere once")
        func rolledBackTransactionsSendNothing() async throws {
            let sending = try await RunningLink.start([StockCounted.self], origin: uniqueOrigin("a"))
            let receiving = try await RunningLink.start([StockCounted.self], origin: uniqueOrigin("b"))
            let remote = Inbox<StockCounted>()
            receiving.office.register { (count: StockCounted, _: RemoteOrigin) in remote.append(count) }
            let local = Inbox<StockCounted>()
            sending.office.register { (count: StockCounted, origin: RemoteOrigin?) in
                if origin == nil { local.append(count) }
            }

            let rolledBack = StockCounted(sku: "rolled-back", count: 0)
            let committed = StockCounted(sku: "committed", count: 1)
            try await Server.withConnection { connection in
                do {
                    try await connection.withTransaction(logger: Server.logger) { connection in
                        try await sending.link.post(rolledBack, in: connection)
                        throw CancellationError()
                    }
                } catch is PostgresTransactionError {}
                try await connection.withTransaction(logger: Server.logger) { connection in
                    try await sending.link.post(committed, in: connection)
                }
            }
            // Posted after the commit on the same channel, so it arrives after everything the transactions sent.
            let after = StockCounted(sku: "after", count: 2)
            try await waitUntil("the committed mail reaches the sending office") { local.count == 1 }
            sending.office.post(after)
            try await waitUntil("the last arrives") { remote.all.last == after }
            await sending.stop()
            await receiving.stop()

            #expect(remote.all == [committed, after])
            #expect(local.all == [committed, after], "the committed mail reaches its own office once, as local mail")
            let rows = try await Server.withConnection { connection in
                let rows = try await connection.query(
                    "SELECT count(*) FROM mailroom_outbox WHERE body LIKE '%rolled-back%'", logger: Server.logger)
                var count: Int64 = -1
                for try await found in rows.decode(Int64.self) { count = found }
                return count
            }
            #expect(rows == 0)
        }

        @Test("mail over PostgreSQL's 8000-byte notification limit travels through the outbox, whole")
        func largeMailTravelsThroughTheOutbox() async throws {
            let sending = try await RunningLink.start([Manual.self], origin: uniqueOrigin("a"))
            let receiving = try await RunningLink.start([Manual.self], origin: uniqueOrigin("b"))
            let manuals = Inbox<Manual>()
            receiving.office.register { (manual: Manual, _: RemoteOrigin) in manuals.append(manual) }
            let sent = [
                Manual(pages: "small"), Manual(pages: String(repeating: "é", count: 20_000)), Manual(pages: "s"),
            ]
            for manual in sent { sending.office.post(manual) }
            try await waitUntil("three arrive") { manuals.count == 3 }
            await sending.stop()
            await receiving.stop()

            #expect(manuals.all == sent)
        }

        @Test(
            "links with a schema and a table prefix of their own exchange mail in their tables, apart from the default ones"
        )
        func schemaAndPrefix() async throws {
            try await Server.withConnection { connection in
                try await connection.query("CREATE SCHEMA IF NOT EXISTS link_tests", logger: Server.logger)
            }
            let apart: (inout PostgresLink.Configuration) -> Void = {
                $0.schema = "link_tests"
                $0.tablePrefix = "Apart_"
            }
            let sending = try await RunningLink.start([PriceChanged.self], origin: uniqueOrigin("a"), configure: apart)
            let receiving = try await RunningLink.start(
                [PriceChanged.self], origin: uniqueOrigin("b"), configure: apart)
            let elsewhere = try await RunningLink.start([PriceChanged.self], origin: uniqueOrigin("c"))
            let received = Inbox<PriceChanged>()
            receiving.office.register { (change: PriceChanged, _: RemoteOrigin) in received.append(change) }
            let leaked = Inbox<PriceChanged>()
            elsewhere.office.register { (change: PriceChanged, _: RemoteOrigin) in leaked.append(change) }
            sending.office.post(PriceChanged(sku: "apart", cents: 1))
            try await waitUntil("it arrives") { received.count == 1 }
            await sending.stop()
            await receiving.stop()
            await elsewhere.stop()

            #expect(received.all == [PriceChanged(sku: "apart", cents: 1)])
            #expect(leaked.all.isEmpty, "a link on the default tables shares nothing with them")
            let tables = try await Server.withConnection { connection in
                let rows = try await connection.query(
                    """
                    SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables
                    WHERE schemaname = 'link_tests'
                    """, logger: Server.logger)
                var names = ""
                for try await found in rows.decode(String.self) { names = found }
                return names
            }
            #expect(tables == "Apart_channels,Apart_cursors,Apart_dead_letters,Apart_members,Apart_outbox")
        }

        @Test("mail larger than the configured maximum is not sent: the poster's office reports it")
        func tooLargeToSendIsReported() async throws {
            let sending = try await RunningLink.start([Manual.self], origin: uniqueOrigin("a")) {
                $0.maximumMailSize = 1000
            }
            let failures = Inbox<DeliveryFailure>()
            sending.office.register { (failure: DeliveryFailure) in failures.append(failure) }
            sending.office.post(Manual(pages: String(repeating: "x", count: 2000)))
            await sending.stop()

            #expect(failures.count == 1)
            #expect(
                failures.all.first?.error as? PostgresLinkError
                    == PostgresLinkError(
                        .mailTooLarge, name: Manual.linkedName, channel: Manual.linkedChannel, size: 2012, limit: 1000))
            #expect(sending.link.unsent == 0)
        }

        @Test("post(_:in:) refuses a type the link does not carry")
        func transactionalPostOfAnUncarriedType() async throws {
            let sending = try await RunningLink.start([PriceChanged.self], origin: uniqueOrigin("a"))
            await #expect(
                throws: PostgresLinkError(.notCarried, name: Manual.linkedName, channel: Manual.linkedChannel)
            ) {
                try await Server.withConnection { try await sending.link.post(Manual(pages: ""), in: $0) }
            }
            await sending.stop()
        }

        @Test("run() throws while it is running, and runs again after it returned")
        func runningTwice() async throws {
            let running = try await RunningLink.start([PriceChanged.self], origin: uniqueOrigin("a"))
            await #expect(throws: PostgresLinkError(.alreadyRunning, origin: running.link.origin)) {
                try await running.link.run()
            }
            await running.stop()
            let again = RunningLink(
                office: running.office, link: running.link, task: Task { try await running.link.run() })
            try await again.listening()
            await again.stop()
        }
    }
}
#endif
