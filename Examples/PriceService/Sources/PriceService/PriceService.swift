// A price service, run as several instances against one PostgreSQL database. Each caches prices; a change made
// through any instance is written in a transaction that also sends `PriceChanged`, and every instance drops the
// price from its cache when the mail arrives.
//
//   PriceService NAME PORT      (the database: the Unix socket in MAILROOM_POSTGRES_SOCKET, as user postgres)
//
//   GET /prices/:sku            the price in cents, from the cache or else the database
//   PUT /prices/:sku            sets it from the body, {"cents": 450}, and tells the other instances
import Foundation
import Hummingbird
import Logging
import Mailroom
import MailroomPostgres
import PostgresNIO

struct PriceChanged: LinkedMail {
    let sku: String
    let cents: Int
}

struct Price: Codable, ResponseEncodable {
    let sku: String
    let cents: Int
}

struct NewPrice: Decodable {
    let cents: Int
}

/// The prices this instance has read, until a `PriceChanged` drops one.
actor PriceCache {
    private var cents: [String: Int] = [:]

    func cached(_ sku: String) -> Int? { cents[sku] }
    func keep(_ sku: String, _ price: Int) { cents[sku] = price }
    func drop(_ sku: String) { cents[sku] = nil }
}

@main
struct PriceService {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3, let port = Int(arguments[2]),
            let socket = ProcessInfo.processInfo.environment["MAILROOM_POSTGRES_SOCKET"]
        else {
            print("usage: MAILROOM_POSTGRES_SOCKET=PATH PriceService NAME PORT")
            exit(2)
        }
        let name = arguments[1]
        let logger = Logger(label: name)

        let client = PostgresClient(
            configuration: .init(unixSocketPath: socket, username: "postgres", password: nil, database: "postgres"),
            backgroundLogger: logger)
        let office = PostOffice()
        let link = try PostgresLink(
            office: office, carrying: [PriceChanged.self], client: client, configuration: .init(origin: name),
            logger: logger)
        let cache = PriceCache()
        office.register { (change: PriceChanged, origin: RemoteOrigin?) in
            await cache.drop(change.sku)
            logger.info(
                "price changed",
                metadata: ["sku": "\(change.sku)", "cents": "\(change.cents)", "on": "\(origin?.name ?? name)"])
        }

        let router = Router()
        router.get("prices/:sku") { _, context -> Price in
            let sku = try context.parameters.require("sku")
            if let cents = await cache.cached(sku) { return Price(sku: sku, cents: cents) }
            let rows = try await client.query("SELECT cents FROM prices WHERE sku = \(sku)", logger: context.logger)
            for try await cents in rows.decode(Int.self) {
                await cache.keep(sku, cents)
                return Price(sku: sku, cents: cents)
            }
            throw HTTPError(.notFound)
        }
        router.put("prices/:sku") { request, context -> HTTPResponse.Status in
            let sku = try context.parameters.require("sku")
            let price = try await request.decode(as: NewPrice.self, context: context)
            // The change and its mail commit together, or neither does.
            try await client.withTransaction(logger: context.logger) { connection in
                try await connection.query(
                    """
                    INSERT INTO prices (sku, cents) VALUES (\(sku), \(price.cents))
                    ON CONFLICT (sku) DO UPDATE SET cents = excluded.cents
                    """, logger: context.logger)
                try await link.post(PriceChanged(sku: sku, cents: price.cents), in: connection)
            }
            return .noContent
        }

        var app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            // Shut down in reverse: the server first, then the link (which writes what it has queued), then the
            // client.
            services: [client, link],
            onServerRunning: { _ in logger.info("serving", metadata: ["port": "\(port)"]) },
            logger: logger)
        app.beforeServerStarts {
            // Instances that start together take turns (CREATE TABLE IF NOT EXISTS alone would race).
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext('prices'))", logger: logger)
                try await connection.query(
                    "CREATE TABLE IF NOT EXISTS prices (sku text PRIMARY KEY, cents int NOT NULL)", logger: logger)
            }
            // No traffic before the link listens: from then on, no change made elsewhere is missed.
            try await link.listening()
        }
        try await app.runService()
    }
}
