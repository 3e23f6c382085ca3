#if Postgres
import Logging
import Mailroom
import PostgresNIO
import Testing

@testable import MailroomPostgres

/// How a link starts when it cannot: no database, or a client nobody runs. No server is needed.
@Suite("Starting without a database")
struct StartTests {
    static let socket = "/nonexistent-mailroom-test/.s.PGSQL.5432"

    static func configuration() -> PostgresLink.Configuration {
        var configuration = PostgresLink.Configuration(origin: "start-tests")
        configuration.firstConnectionTimeout = .milliseconds(300)
        return configuration
    }

    @Test(
        "a database that cannot be reached makes run() and listening() throw an error that says what was not reached, and the time it was given"
    )
    func unreachableDatabase() async throws {
        let link = try PostgresLink(
            office: PostOffice(), carrying: [PriceChanged.self],
            database: .init(unixSocketPath: Self.socket, username: "u", password: nil, database: nil),
            configuration: Self.configuration(), logger: Server.logger)
        let listening = Task { try await link.listening() }
        let error = await #expect(throws: PostgresLinkError.self) { try await link.run() }
        #expect(error?.code == .unreachable)
        #expect(
            error?.description
                == "the link could not reach the database: no connection to the Unix socket \(Self.socket) within 0.3 seconds"
        )
        await #expect(throws: PostgresLinkError.self) { try await listening.value }
    }

    @Test("a client that nobody runs is unreachable too")
    func clientNotRunning() async throws {
        let client = PostgresClient(
            configuration: .init(unixSocketPath: Self.socket, username: "u", password: nil, database: nil),
            backgroundLogger: Server.logger)
        let link = try PostgresLink(
            office: PostOffice(), carrying: [PriceChanged.self], client: client, configuration: Self.configuration(),
            logger: Server.logger)
        let error = await #expect(throws: PostgresLinkError.self) { try await link.run() }
        #expect(error?.code == .unreachable)
        #expect(
            error?.detail == "no connection to the database of the PostgresClient given to the link within 0.3 seconds")
    }
}
#endif
