#if Postgres
import Logging
import Mailroom
import PostgresNIO
import Testing

@testable import MailroomPostgres

/// A link without a database: one that cannot be reached, a client nobody runs, and a queue that fills up while
/// nothing is written. No server is needed.
@Suite("Without a database")
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

    @Test(
        "posts beyond maximumUnsent are not queued: each is a queueFull failure on the poster's office, with the mail, and unsent stays at the limit"
    )
    func fullQueue() throws {
        var configuration = Self.configuration()
        configuration.maximumUnsent = 2
        let office = PostOffice()
        let link = try PostgresLink(
            office: office, carrying: [PriceChanged.self],
            database: .init(unixSocketPath: Self.socket, username: "u", password: nil, database: nil),
            configuration: configuration, logger: Server.logger)
        let failures = Inbox<DeliveryFailure>()
        office.register { (failure: DeliveryFailure) in failures.append(failure) }
        for cents in 1...4 { office.post(PriceChanged(sku: "tea", cents: cents)) }

        #expect(link.unsent == 2)
        #expect(failures.all.map { ($0.mail as? PriceChanged)?.cents } == [3, 4])
        let errors = failures.all.compactMap { $0.error as? PostgresLinkError }
        #expect(errors.map(\.code) == [.queueFull, .queueFull])
        #expect(errors.first?.size == 2)
        #expect(
            errors.first?.description == "2 mail are waiting to be written, the link's limit: this one was not sent")
    }
}
#endif
