#if Postgres
import Foundation
import Logging
import Mailroom
import NIOConcurrencyHelpers
import PostgresNIO
import Testing

@testable import MailroomPostgres

/// The tests that use the database, one at a time: some terminate every connection, restart the server or prune
/// the outbox.
@Suite(.serialized)
struct DatabaseTests {}

/// The server that `Scripts/with-postgres.sh` started for the tests.
enum Server {
    static let environment = ProcessInfo.processInfo.environment

    /// The Unix socket's path, or an error that says how to run the tests.
    static func socket() throws -> String {
        guard let socket = environment["MAILROOM_POSTGRES_SOCKET"] else {
            throw Unavailable(
                "no PostgreSQL server: run the tests as `Scripts/with-postgres.sh swift test`, which starts one")
        }
        return socket
    }

    static func configuration() throws -> PostgresConnection.Configuration {
        .init(unixSocketPath: try socket(), username: "postgres", password: nil, database: "postgres")
    }

    /// A client's configuration for the server, which a link makes its client from.
    static func clientConfiguration() throws -> PostgresClient.Configuration {
        .init(unixSocketPath: try socket(), username: "postgres", password: nil, database: "postgres")
    }

    /// The statements on the default tables, which the links of the tests use.
    static let outbox = Outbox(tables: Tables(prefix: "mailroom_", schema: nil), logger: logger)

    static let logger: Logger = {
        var logger = Logger(label: "MailroomPostgresTests")
        logger.logLevel = .critical
        return logger
    }()

    /// The result of `work` on a new connection, closed afterwards.
    @discardableResult
    static func withConnection<T: Sendable>(_ work: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await PostgresConnection.connect(configuration: configuration(), id: 0, logger: logger)
        do {
            let result = try await work(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Terminates every client connection but the caller's; returns how many.
    static func terminateConnections() async throws -> Int {
        try await withConnection { connection in
            let rows = try await connection.query(
                """
                SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'
                """, logger: logger)
            var count = 0
            for try await terminated in rows.decode(Int64.self) { count = Int(terminated) }
            return count
        }
    }

    /// Restarts the server (a fast shutdown, then a start), waiting up to a minute; returns pg_ctl's exit status.
    static func restart() throws -> Int32 {
        guard let control = environment["MAILROOM_POSTGRES_CTL"] else { throw Unavailable("no MAILROOM_POSTGRES_CTL") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: control)
        process.arguments = ["restart", "-m", "fast", "-w", "-t", "60"]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

struct Unavailable: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

struct TimedOut: Error, CustomStringConvertible {
    let description: String
}

/// Waits until `condition` holds, checking every 5 ms, or throws after `limit`.
func waitUntil(
    _ what: String, within limit: Duration = .seconds(30), _ condition: @Sendable () -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { throw TimedOut(description: "timed out waiting until \(what)") }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// What a recipient received, in order.
final class Inbox<Item: Sendable>: Sendable {
    private let items = NIOLockedValueBox<[Item]>([])

    func append(_ item: Item) { items.withLockedValue { $0.append(item) } }
    var all: [Item] { items.withLockedValue { $0 } }
    var count: Int { items.withLockedValue { $0.count } }
}

/// A link running in a task of its own, with its office.
struct RunningLink {
    let office: PostOffice
    let link: PostgresLink
    let task: Task<Void, any Error>

    /// Creates a link for `types` on a new office (or `office`), logging to `logger`, lets `prepare` give it
    /// subscriptions, runs it, and returns once it listens.
    static func start(
        _ types: [any LinkedMail.Type], origin: String, office: PostOffice = PostOffice(),
        logger: Logger = Server.logger, configure: (inout PostgresLink.Configuration) -> Void = { _ in },
        prepare: (PostgresLink) throws -> Void = { _ in }
    ) async throws -> RunningLink {
        var configuration = PostgresLink.Configuration(origin: origin)
        configuration.heartbeat = .milliseconds(500)
        configure(&configuration)
        let link = try PostgresLink(
            office: office, carrying: types, database: try Server.clientConfiguration(),
            configuration: configuration, logger: logger)
        try prepare(link)
        let running = RunningLink(office: office, link: link, task: Task { try await link.run() })
        try await running.listening()
        return running
    }

    /// Returns once the link listens, or throws why it does not, or throws after 30 s.
    func listening() async throws {
        let link = self.link
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await link.listening()
                return true
            }
            group.addTask {
                try await Task.sleep(for: .seconds(30))
                return false
            }
            defer { group.cancelAll() }
            guard try await group.next() == true else {
                throw TimedOut(description: "the link did not listen within 30 s")
            }
        }
    }

    /// Cancels the link's task and waits for `run()` to return.
    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

/// A unique name for this test run, so that tests do not read each other's origins.
func uniqueOrigin(_ name: String) -> String {
    "\(name)-\(UInt32.random(in: .min ... .max))"
}
#endif
