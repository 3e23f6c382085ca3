#if Postgres && Observability
import Foundation
import Logging
import Mailroom
import MailroomPostgres
import NIOConcurrencyHelpers
import PostgresNIO

/// What a receiving process saw of one run: the number of each mail of the run's path and number, in the order
/// they came, with its latency, and what did not belong. The sender checks the counts and works out the figures.
struct RunStats: Codable, Sendable {
    var run: Int
    var indices: [Int] = []
    /// Microseconds from the sender's stamp to the recipient, for each of ``indices``.
    var latencies: [Int] = []
    /// Mail of another run or path.
    var strays = 0
    /// Mail that could not be decoded or delivered.
    var failures = 0
    /// When the last mail of the run came (CLOCK_MONOTONIC, ns).
    var lastReceipt: UInt64 = 0
    /// When the process's link started to run.
    var started: UInt64 = 0
}

/// Records the run a receiving process expects, and says `last RUN INDEX` when the last mail of one of the run's
/// lanes comes: each lane arrives in order, so that is when the lane is complete (a mail missing before it shows in
/// the counts).
final class Collector: Sendable {
    private struct State {
        var path = Path.raw
        var count = 0
        var lanes = 1
        var stats = RunStats(run: -1)
    }

    private let state = NIOLockedValueBox(State())

    func expect(run: Int, path: Path, count: Int, lanes: Int) {
        state.withLockedValue { state in
            let started = state.stats.started
            state = State(path: path, count: count, lanes: lanes, stats: RunStats(run: run, started: started))
            state.stats.indices.reserveCapacity(count)
            state.stats.latencies.reserveCapacity(count)
        }
    }

    func started(at time: UInt64) {
        state.withLockedValue { $0.stats.started = time }
    }

    /// A recipient on `path` has handled `mail`.
    func handled(_ mail: some BenchLetter, on path: Path) {
        let time = monotonicNow()
        let last = state.withLockedValue { state -> (run: Int, index: Int)? in
            guard path == state.path, runNumber(of: mail.text) == state.stats.run, mail.index >= 0,
                mail.index < state.count
            else {
                state.stats.strays += 1
                return nil
            }
            state.stats.indices.append(mail.index)
            state.stats.latencies.append(Int((time &- mail.sentAt) / 1000))
            state.stats.lastReceipt = time
            return mail.index >= state.count - state.lanes ? (state.stats.run, mail.index) : nil
        }
        if let last { say("last \(last.run) \(last.index)") }
    }

    func fail() {
        state.withLockedValue { $0.stats.failures += 1 }
    }

    func stats() -> RunStats {
        state.withLockedValue(\.stats)
    }
}

/// Inserts the mail's row into `link_bench_effects` (which ``Session`` creates) on `connection`: the transactional
/// recipients' effect, in the subscription's transaction.
func insertEffect(of delivery: PostgresSubscription.Delivery, on connection: PostgresConnection, logger: Logger)
    async throws
{
    try await execute(
        "INSERT INTO link_bench_effects (channel, seq) VALUES (\(delivery.channel), \(delivery.sequence))",
        on: connection, logger: logger)
}

/// A receiving process of a session (`--receiver GROUP`): it receives on every path at once. Raw `LISTEN`; the
/// plain link's office; the durable subscription named GROUP (all eight lanes, a plain recipient) and the one
/// named GROUP-transactional. The subscriptions start after the mail committed before the process started, so no
/// mail of the session is missed however long a reader takes to start; processes given the same GROUP are a
/// consumer group. Says `ready` once it listens, then answers the commands of ``answerCommands(_:)``.
func receive(group: String, socket: String, logger: Logger) async -> Int32 {
    let collector = Collector()
    let office = PostOffice()
    office.register { (mail: BenchMail, _: RemoteOrigin) in collector.handled(mail, on: .link) }
    office.register { (mail: TracedMail, _: RemoteOrigin) in collector.handled(mail, on: .traced) }
    office.register { (mail: CatchUpMail, _: RemoteOrigin) in collector.handled(mail, on: .catchUp) }
    office.register { (_: DeliveryFailure) in collector.fail() }
    do {
        return try await withConnection(socket: socket, id: 1, logger: logger) { raw in
            // The database's clock, which stamps the outbox's mail.
            guard let start = try await firstValue(Date.self, "SELECT now()", on: raw, logger: logger) else {
                throw BenchmarkError("SELECT now() answered nothing")
            }
            let link = try PostgresLink(
                office: office, carrying: carried, database: clientConfiguration(socket: socket),
                configuration: linkConfiguration(origin: "bench-receiver-\(ProcessInfo.processInfo.processIdentifier)"),
                logger: logger)
            let durable = try link.subscription(group, startingAt: .after(start))
            for lane in durableLanes { try lane.subscribe(durable, as: .durable, collector) }
            let transactional = try link.subscription(group + "-transactional", startingAt: .after(start))
            try transactional.receive(TransactionalMail.self) { mail, delivery, connection in
                try await insertEffect(of: delivery, on: connection, logger: logger)
                collector.handled(mail, on: .transactional)
            }
            let rawListening = Occurrence()
            return try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await link.run() }
                tasks.addTask {
                    try await raw.listen(on: rawChannel) { notifications in
                        rawListening.happen()
                        for try await notification in notifications {
                            do {
                                let mail = try JSONDecoder().decode(
                                    BenchMail.self, from: Data(notification.payload.utf8))
                                collector.handled(mail, on: .raw)
                            } catch {
                                collector.fail()
                            }
                        }
                    }
                }
                try await within(.seconds(30), "the receiver's link listening") { try await link.listening() }
                try await within(.seconds(30), "the receiver's raw LISTEN") {
                    await rawListening.wait()
                    try Task.checkCancellation()
                }
                say("ready")
                await answerCommands(collector)
                tasks.cancelAll()
                return 0
            }
        }
    } catch {
        complain("receiver: \(String(reflecting: error))")
        return 1
    }
}

/// A process whose subscription `name` catches up (`--catch-up NAME SEQUENCE RUN COUNT [--in-transaction]`): the
/// subscription starts after mail number SEQUENCE of the catch-up channel, as one that had handled that far before
/// its process went down, and is then behind by the COUNT mail of run RUN. It records from its link's start, and
/// answers the commands of ``answerCommands(_:)``.
func catchUp(_ arguments: [String], socket: String, logger: Logger) async -> Int32 {
    guard arguments.count >= 4, let sequence = Int64(arguments[1]), let run = Int(arguments[2]),
        let count = Int(arguments[3])
    else {
        complain("usage: LinkBenchmark --catch-up NAME SEQUENCE RUN COUNT [--in-transaction]")
        return 2
    }
    let collector = Collector()
    collector.expect(run: run, path: .catchUp, count: count, lanes: 1)
    let office = PostOffice()
    office.register { (_: DeliveryFailure) in collector.fail() }
    do {
        let link = try PostgresLink(
            office: office, carrying: [CatchUpMail.self], database: clientConfiguration(socket: socket),
            configuration: linkConfiguration(origin: "bench-catch-up-\(ProcessInfo.processInfo.processIdentifier)"),
            logger: logger)
        let subscription = try link.subscription(arguments[0], startingAt: .after(sequence: sequence))
        if arguments.contains("--in-transaction") {
            try subscription.receive(CatchUpMail.self) { mail, delivery, connection in
                try await insertEffect(of: delivery, on: connection, logger: logger)
                collector.handled(mail, on: .catchUp)
            }
        } else {
            try CatchUpMail.subscribe(subscription, as: .catchUp, collector)
        }
        collector.started(at: monotonicNow())
        await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await link.run() }
            await answerCommands(collector)
            tasks.cancelAll()
        }
        return 0
    } catch {
        complain("catch-up: \(String(reflecting: error))")
        return 1
    }
}

/// Answers the sender's commands, one per line on standard input, until `quit` or the input's end:
/// `expect RUN PATH COUNT LANES` (answers `expecting RUN`) and `stats` (answers `stats JSON`).
func answerCommands(_ collector: Collector) async {
    let commands = AsyncStream<String> { continuation in
        readLines(of: .standardInput, { continuation.yield($0) }, end: { continuation.finish() })
    }
    for await line in commands {
        let words = line.split(separator: " ").map(String.init)
        switch words.first {
        case "expect":
            guard words.count == 5, let run = Int(words[1]), let path = Path(rawValue: words[2]),
                let count = Int(words[3]), let lanes = Int(words[4])
            else {
                complain("receiver: malformed command \(line)")
                continue
            }
            collector.expect(run: run, path: path, count: count, lanes: lanes)
            say("expecting \(run)")
        case "stats":
            let stats = (try? JSONEncoder().encode(collector.stats())).map { String(decoding: $0, as: UTF8.self) }
            say("stats \(stats ?? "{}")")
        case "quit":
            return
        default:
            complain("receiver: unknown command \(line)")
        }
    }
}
#endif
