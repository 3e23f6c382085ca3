#if Postgres
// Two instances of a service keep their price caches in step through PostgreSQL.
//
//   Scripts/with-postgres.sh swift run PostgresExample
//
// The first instance (api-1) starts the second (api-2) as a process of its own; each caches prices read from the
// database and drops a price when a `PriceChanged` arrives, from its own office or from the other instance. api-1
// changes a price in a transaction that also sends the mail, then tries another change that rolls back (nothing is
// sent), then posts a plain `CacheFlushed` on its office, which reaches api-2 as well.
import Foundation
import Logging
import Mailroom
import MailroomPostgres
import PostgresNIO

struct PriceChanged: LinkedMail {
    let sku: String
}

struct CacheFlushed: LinkedMail {}

struct Rollback: Error {}

/// The price of `sku`, from the cache or else from the database.
actor PriceCache {
    let client: PostgresClient
    let logger: Logger
    private var cents: [String: Int] = [:]

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    func price(of sku: String) async throws -> Int {
        if let cached = cents[sku] { return cached }
        let rows = try await client.query("SELECT cents FROM prices WHERE sku = \(sku)", logger: logger)
        var price = 0
        for try await found in rows.decode(Int.self) { price = found }
        cents[sku] = price
        return price
    }

    func drop(_ sku: String?) {
        if let sku { cents[sku] = nil } else { cents = [:] }
    }
}

/// Writes a line at once, prefixed with this instance's name (standard output may be a pipe to the other one).
func say(_ line: String, as name: String) {
    FileHandle.standardOutput.write(Data("\(name) | \(line)\n".utf8))
}

/// Reads lines from a pipe as they come, until the writer closes it (the other instance exits).
///
/// A thread of its own reads with blocking reads and ends at the end of the pipe. `FileHandle.readabilityHandler`
/// is not used: it watches the pipe with a dispatch source, and two CI runs (Swift 6.3.1 on Linux) crashed in
/// libdispatch's event loop just after such a source saw the end of its pipe, here and in `LinkBenchmark`.
struct Lines: AsyncSequence {
    let stream: AsyncStream<String>

    init(_ handle: FileHandle) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        self.stream = stream
        Thread.detachNewThread {
            var pending = ""
            while case let data = handle.availableData, !data.isEmpty {
                pending += String(decoding: data, as: UTF8.self)
                var lines = pending.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                pending = lines.removeLast()
                for line in lines { continuation.yield(line) }
            }
            continuation.finish()
        }
    }

    func makeAsyncIterator() -> AsyncStream<String>.Iterator { stream.makeAsyncIterator() }
}

@main
enum PostgresExample {
    /// Prints api-2's lines until one contains `expected`, or to their end (`nil`).
    static func relay(_ lines: inout AsyncStream<String>.Iterator, until expected: String?) async {
        while let line = await lines.next() {
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
            if let expected, line.contains(expected) { return }
        }
    }

    static func main() async throws {
        let socket =
            ProcessInfo.processInfo.environment["MAILROOM_POSTGRES_SOCKET"] ?? "/var/run/postgresql/.s.PGSQL.5432"
        let database = PostgresClient.Configuration(
            unixSocketPath: socket, username: "postgres", password: nil, database: "postgres")
        let name = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "api-1"
        var logger = Logger(label: name)
        logger.logLevel = .error

        // The service's own client, which the link shares: it runs beside the link, for as long as the link does.
        let client = PostgresClient(configuration: database, backgroundLogger: logger)
        let office = PostOffice()
        let cache = PriceCache(client: client, logger: logger)
        office.register { (change: PriceChanged, origin: RemoteOrigin?) in
            await cache.drop(change.sku)
            let price = try await cache.price(of: change.sku)
            say("\(change.sku) changed (\(origin.map { "from \($0.name)" } ?? "here")): now \(price) cents", as: name)
        }
        office.register { (_: CacheFlushed, origin: RemoteOrigin?) in
            await cache.drop(nil)
            say("cache flushed (\(origin.map { "from \($0.name)" } ?? "here"))", as: name)
        }
        let link = try PostgresLink(
            office: office, carrying: [PriceChanged.self, CacheFlushed.self], client: client,
            configuration: .init(origin: name), logger: logger)

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            group.addTask { try await link.run() }
            try await link.listening()
            try await run(as: name, link: link, client: client, office: office, cache: cache, logger: logger)
            group.cancelAll()
        }
    }

    static func run(
        as name: String, link: PostgresLink, client: PostgresClient, office: PostOffice, cache: PriceCache,
        logger: Logger
    ) async throws {
        if name == "api-1" {
            try await client.query("DROP TABLE IF EXISTS prices", logger: logger)
            try await client.query("CREATE TABLE prices (sku text PRIMARY KEY, cents int NOT NULL)", logger: logger)
            try await client.query("INSERT INTO prices VALUES ('tea', 400), ('cake', 250)", logger: logger)
        }
        say("tea costs \(try await cache.price(of: "tea")) cents", as: name)

        if name == "api-2" {
            say("listening", as: name)
            _ = readLine()  // until api-1 says quit
        } else {
            let other = Process()
            other.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            other.arguments = ["api-2"]
            let (toOther, fromOther) = (Pipe(), Pipe())
            other.standardInput = toOther
            other.standardOutput = fromOther
            try other.run()
            var lines = Lines(fromOther.fileHandleForReading).makeAsyncIterator()
            await relay(&lines, until: "listening")

            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("UPDATE prices SET cents = 450 WHERE sku = 'tea'", logger: logger)
                try await link.post(PriceChanged(sku: "tea"), in: connection)
            }
            say("raised tea to 450 cents and sent PriceChanged in the same transaction", as: name)
            await relay(&lines, until: "tea changed")

            do {
                try await client.withTransaction(logger: logger) { connection in
                    try await connection.query("UPDATE prices SET cents = 999 WHERE sku = 'cake'", logger: logger)
                    try await link.post(PriceChanged(sku: "cake"), in: connection)
                    throw Rollback()
                }
            } catch {
                say("a change to cake rolled back: its PriceChanged went nowhere", as: name)
            }

            office.post(CacheFlushed())
            say("posted CacheFlushed on this office", as: name)
            await relay(&lines, until: "cache flushed")
            toOther.fileHandleForWriting.write(Data("quit\n".utf8))
            // To the end of api-2's output, so that the thread reading it has ended too.
            await relay(&lines, until: nil)
            other.waitUntilExit()
        }
    }
}
#else
@main
enum PostgresExample {
    static func main() {
        print("PostgresExample needs the Postgres trait: swift run --traits Postgres PostgresExample")
    }
}
#endif
