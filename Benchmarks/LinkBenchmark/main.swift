#if Postgres
// Measures a `PostgresLink` against raw postgres-nio `NOTIFY`/`LISTEN` between two processes (this one sends, a
// copy of it started with `--receiver` receives): throughput of mail sent as fast as each path allows, latency of
// mail paced every 2 ms (p50, p99, mean), the link again with fsync on, and what the outbox costs per mail.
//
//   Scripts/with-postgres.sh .build-bench/release/LinkBenchmark [--quick]
//
// `--quick` runs tiny sizes once, as a smoke test. Either way the exit status is 1 when any run's count is wrong.
import Foundation
import Logging
import Mailroom
import MailroomPostgres
import NIOConcurrencyHelpers
import PostgresNIO

struct BenchMail: LinkedMail {
    let index: Int
    let sentAt: UInt64
    let text: String
}

enum Path: String, Codable, Sendable {
    case raw, link
}

let rawChannel = "mailroom_bench_raw"

/// CLOCK_MONOTONIC in nanoseconds: on Linux both processes read the same clock, so the receiver can subtract the
/// sender's stamp.
func monotonicNow() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// About 100 bytes, starting with the run's number so that the receiver can tell a late mail of an earlier run.
func text(forRun run: Int) -> String {
    let tag = "run=\(run);"
    return tag + String(repeating: "x", count: 100 - tag.utf8.count)
}

func runNumber(of mail: BenchMail) -> Int? {
    guard mail.text.hasPrefix("run=") else { return nil }
    return Int(mail.text.dropFirst(4).prefix { $0 != ";" })
}

/// The JSON the link sends for the same mail (it sorts keys too), so that both paths carry the same bytes.
func json(_ mail: BenchMail) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(mail), as: UTF8.self)
}

/// Writes at once: standard output is a pipe to the parent, which `print` would hold back.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func complain(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out: \(what)" }
}

/// The result of `work`, or ``TimedOut`` after `limit`. A task group would wait for work that ignores
/// cancellation, so the work runs in a task of its own and is cancelled and left behind when the time is up.
func within<T: Sendable>(
    _ limit: Duration, _ what: String, _ work: @escaping @Sendable () async throws -> T
) async throws -> T {
    let waiting = NIOLockedValueBox<CheckedContinuation<T, any Error>?>(nil)
    return try await withCheckedThrowingContinuation { continuation in
        waiting.withLockedValue { $0 = continuation }
        let worker = NIOLockedValueBox<Task<Void, Never>?>(nil)
        let timer = Task {
            try? await Task.sleep(for: limit)
            guard let continuation = waiting.withLockedValue({ $0.take() }) else { return }
            worker.withLockedValue { $0?.cancel() }
            continuation.resume(throwing: TimedOut(what: what))
        }
        worker.withLockedValue { worker in
            worker = Task {
                let result: Result<T, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                timer.cancel()
                waiting.withLockedValue { $0.take() }?.resume(with: result)
            }
        }
    }
}

func connectionConfiguration(socket: String) -> PostgresConnection.Configuration {
    .init(unixSocketPath: socket, username: "postgres", password: nil, database: "postgres")
}

func clientConfiguration(socket: String) -> PostgresClient.Configuration {
    .init(unixSocketPath: socket, username: "postgres", password: nil, database: "postgres")
}

func firstValue<T: PostgresDecodable & Sendable>(
    _ type: T.Type, _ query: PostgresQuery, on connection: PostgresConnection, logger: Logger
) async throws -> T? {
    for try await value in try await connection.query(query, logger: logger).decode(T.self) { return value }
    return nil
}

// MARK: - Receiver

/// What the receiver saw of one run.
struct RunStats: Codable, Sendable {
    var run: Int
    var expected: Int
    var unique: Int
    var duplicates: Int
    /// Mail of another run or path.
    var strays: Int
    /// Mail that could not be decoded or delivered.
    var failures: Int
    var lastReceipt: UInt64
    /// Milliseconds; `nil` without mail (JSON has no NaN).
    var p50: Double?
    var p99: Double?
    var mean: Double?

    var isExact: Bool { unique == expected && duplicates == 0 && strays == 0 && failures == 0 }
}

final class Collector: Sendable {
    private struct State {
        var run = -1
        var path = Path.raw
        var seen: [Bool] = []
        var unique = 0
        var duplicates = 0
        var strays = 0
        var failures = 0
        var lastReceipt: UInt64 = 0
        var latencies: [UInt64] = []
        var announced = false
    }

    private let state = NIOLockedValueBox(State())

    func expect(run: Int, path: Path, count: Int) {
        state.withLockedValue { state in
            state = State(run: run, path: path, seen: Array(repeating: false, count: count))
            state.latencies.reserveCapacity(count)
        }
    }

    func receive(_ mail: BenchMail, on path: Path, at time: UInt64) {
        let completed = state.withLockedValue { state -> Int? in
            guard path == state.path, runNumber(of: mail) == state.run, state.seen.indices.contains(mail.index) else {
                state.strays += 1
                return nil
            }
            guard !state.seen[mail.index] else {
                state.duplicates += 1
                return nil
            }
            state.seen[mail.index] = true
            state.unique += 1
            state.lastReceipt = time
            state.latencies.append(time &- mail.sentAt)
            guard state.unique == state.seen.count, !state.announced else { return nil }
            state.announced = true
            return state.run
        }
        if let completed { say("complete \(completed)") }
    }

    func fail() {
        state.withLockedValue { $0.failures += 1 }
    }

    func stats() -> RunStats {
        state.withLockedValue { state in
            let sorted = state.latencies.sorted()
            func percentile(_ p: Double) -> Double? {
                guard !sorted.isEmpty else { return nil }
                let rank = Int((p * Double(sorted.count)).rounded(.up)) - 1
                return Double(sorted[min(max(rank, 0), sorted.count - 1)]) / 1e6
            }
            let mean = sorted.isEmpty ? nil : sorted.reduce(0.0) { $0 + Double($1) } / Double(sorted.count) / 1e6
            return RunStats(
                run: state.run, expected: state.seen.count, unique: state.unique, duplicates: state.duplicates,
                strays: state.strays, failures: state.failures, lastReceipt: state.lastReceipt,
                p50: percentile(0.5), p99: percentile(0.99), mean: mean)
        }
    }
}

/// Receives on both paths at once, and answers the parent's commands, one per line:
/// `expect RUN PATH COUNT` (answers `expecting RUN`), `stats RUN` (answers `stats JSON`) and `quit`. Says
/// `complete RUN` as soon as a run's mail has all arrived.
func receive(socket: String, logger: Logger) async -> Int32 {
    let collector = Collector()
    let configuration = connectionConfiguration(socket: socket)
    let rawListening = NIOLockedValueBox(false)
    let office = PostOffice()
    office.register { (mail: BenchMail, _: RemoteOrigin) in collector.receive(mail, on: .link, at: monotonicNow()) }
    office.register { (_: DeliveryFailure) in collector.fail() }
    let raw: PostgresConnection
    let link: PostgresLink
    do {
        raw = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        link = try PostgresLink(
            office: office, carrying: [BenchMail.self],
            database: clientConfiguration(socket: socket),
            configuration: .init(origin: "bench-receiver-\(ProcessInfo.processInfo.processIdentifier)"),
            logger: logger)
    } catch {
        complain("receiver: \(String(reflecting: error))")
        return 1
    }
    let rawReader = Task {
        do {
            try await raw.listen(on: rawChannel) { notifications in
                rawListening.withLockedValue { $0 = true }
                for try await notification in notifications {
                    do {
                        let mail = try JSONDecoder().decode(BenchMail.self, from: Data(notification.payload.utf8))
                        collector.receive(mail, on: .raw, at: monotonicNow())
                    } catch {
                        collector.fail()
                    }
                }
            }
        } catch {
            if !Task.isCancelled { complain("receiver: raw listening ended: \(String(reflecting: error))") }
        }
    }
    let linkRunning = Task {
        do { try await link.run() } catch { complain("receiver: link: \(String(reflecting: error))") }
    }
    defer {
        rawReader.cancel()
        linkRunning.cancel()
    }
    do {
        try await within(.seconds(30), "the receiver's link listening") { try await link.listening() }
        try await within(.seconds(30), "the receiver's raw LISTEN") {
            while !rawListening.withLockedValue({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        }
    } catch {
        complain("receiver: \(error)")
        return 1
    }
    say("ready")

    // readLine blocks its thread: not one of the few that run tasks.
    let (commands, command) = AsyncStream.makeStream(of: String.self)
    Thread {
        while let line = readLine() { command.yield(line) }
        command.finish()
    }.start()
    for await line in commands {
        let words = line.split(separator: " ").map(String.init)
        switch words.first {
        case "expect":
            guard words.count == 4, let run = Int(words[1]), let path = Path(rawValue: words[2]),
                let count = Int(words[3])
            else {
                complain("receiver: malformed command \(line)")
                continue
            }
            collector.expect(run: run, path: path, count: count)
            say("expecting \(run)")
        case "stats":
            let stats = (try? JSONEncoder().encode(collector.stats())).map { String(decoding: $0, as: UTF8.self) }
            say("stats \(stats ?? "{}")")
        case "quit":
            rawReader.cancel()
            try? await raw.close()
            return 0
        default:
            complain("receiver: unknown command \(line)")
        }
    }
    return 0
}

// MARK: - Sender

/// The receiver process, and the lines it wrote that nobody has taken yet.
final class Child: Sendable {
    private struct Output {
        var pending = ""
        var lines: [String] = []
    }

    private let process: Process
    private let input: FileHandle
    private let output: NIOLockedValueBox<Output>

    init() throws {
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--receiver"]
        let (toChild, fromChild) = (Pipe(), Pipe())
        process.standardInput = toChild
        process.standardOutput = fromChild
        let output = NIOLockedValueBox(Output())
        fromChild.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            output.withLockedValue { output in
                output.pending += String(decoding: data, as: UTF8.self)
                while let newline = output.pending.firstIndex(of: "\n") {
                    output.lines.append(String(output.pending[..<newline]))
                    output.pending = String(output.pending[output.pending.index(after: newline)...])
                }
            }
        }
        try process.run()
        (self.process, self.input, self.output) = (process, toChild.fileHandleForWriting, output)
    }

    func send(_ command: String) throws {
        try input.write(contentsOf: Data((command + "\n").utf8))
    }

    /// Takes the first line whose first words are `words`, waiting up to `limit` for it; `nil` if none came.
    func line(startingWith words: String, within limit: Duration) async -> String? {
        let deadline = ContinuousClock.now + limit
        while true {
            let found = output.withLockedValue { output -> String? in
                guard let index = output.lines.firstIndex(where: { $0 == words || $0.hasPrefix(words + " ") })
                else { return nil }
                return output.lines.remove(at: index)
            }
            if let found { return found }
            if ContinuousClock.now >= deadline || !process.isRunning { return nil }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    func command(_ command: String, answer words: String, within limit: Duration = .seconds(10)) async throws
        -> String
    {
        try send(command)
        guard let line = await line(startingWith: words, within: limit) else {
            throw TimedOut(what: "the receiver's answer to \(command)")
        }
        return line
    }

    /// Asks the receiver to quit; terminates it, then kills it, when it does not.
    func stop() async {
        try? send("quit")
        for (limit, stopSignal) in [(Duration.seconds(5), SIGTERM), (.seconds(2), SIGKILL)] {
            let deadline = ContinuousClock.now + limit
            while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
            guard process.isRunning else { return }
            kill(process.processIdentifier, stopSignal)
        }
    }
}

struct Sizes {
    var throughput: Int
    var latency: Int
    var repetitions: Int
    var fsyncRow: Bool
    var intervalMilliseconds = 2
    var interval: Duration { .milliseconds(intervalMilliseconds) }
    var warmUp: Int
    /// How long a throughput run may take.
    var wait: Duration
    /// How long the receiver goes on counting after a run completes, for a duplicate to show.
    var grace: Duration
}

struct ThroughputRun {
    var messagesPerSecond: Double
    /// Link runs only: how many statements (each its own transaction) the sender wrote the run's mail in.
    var statements: Int?
}

/// Both ends of both paths: this process's connections and linked office, and the receiver.
final class Session: Sendable {
    let child: Child
    let admin: PostgresConnection
    let raw: PostgresConnection
    let office: PostOffice
    let link: PostgresLink
    let linkRunning: Task<Void, Never>
    let origin: String
    let logger: Logger
    let sizes: Sizes
    private let runs = NIOLockedValueBox(0)
    /// The sender's own delivery failures.
    private let failures: NIOLockedValueBox<Int>
    /// Every run whose count was wrong.
    let problems = NIOLockedValueBox<[String]>([])

    init(number: Int, socket: String, sizes: Sizes, logger: Logger) async throws {
        self.logger = logger
        self.sizes = sizes
        let configuration = connectionConfiguration(socket: socket)
        let child = try Child()
        let office = PostOffice()
        let origin = "bench-sender-\(ProcessInfo.processInfo.processIdentifier)-\(number)"
        let (admin, raw, link): (PostgresConnection, PostgresConnection, PostgresLink)
        do {
            admin = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
            raw = try await PostgresConnection.connect(configuration: configuration, id: 2, logger: logger)
            link = try PostgresLink(
                office: office, carrying: [BenchMail.self],
                database: clientConfiguration(socket: socket), configuration: .init(origin: origin), logger: logger)
        } catch {
            await child.stop()
            throw error
        }
        let failures = NIOLockedValueBox(0)
        office.register { (_: DeliveryFailure) in failures.withLockedValue { $0 += 1 } }
        (self.child, self.office, self.origin, self.admin, self.raw, self.link) = (
            child, office, origin, admin, raw, link
        )
        self.failures = failures
        linkRunning = Task {
            do { try await link.run() } catch { complain("sender: link: \(String(reflecting: error))") }
        }
        do {
            try await within(.seconds(30), "the sender's link listening") { try await link.listening() }
            guard await child.line(startingWith: "ready", within: .seconds(60)) != nil else {
                throw TimedOut(what: "the receiver's ready")
            }
        } catch {
            await stop()
            throw error
        }
    }

    func stop() async {
        await child.stop()
        linkRunning.cancel()
        let running = linkRunning
        _ = try? await within(.seconds(15), "the link's end") { await running.value }
        try? await raw.close()
        try? await admin.close()
    }

    private func nextRun() -> Int {
        runs.withLockedValue { run in
            run += 1
            return run
        }
    }

    private func send(_ mail: BenchMail, on path: Path) async throws {
        switch path {
        case .raw:
            let payload = try json(mail)
            for try await _ in try await raw.query("SELECT pg_notify(\(rawChannel), \(payload))", logger: logger) {}
        case .link:
            office.post(mail)
        }
    }

    /// Sends `count` mail on `path` by `sending`, then collects the receiver's figures and checks its count.
    private func measure(
        _ what: String, _ path: Path, count: Int, wait: Duration,
        sending: (_ text: String) async throws -> Void
    ) async throws -> (stats: RunStats, start: UInt64) {
        let run = nextRun()
        _ = try await child.command("expect \(run) \(path.rawValue) \(count)", answer: "expecting \(run)")
        let failuresBefore = failures.withLockedValue { $0 }
        let text = text(forRun: run)
        let start = monotonicNow()
        try await sending(text)
        let completed = await child.line(startingWith: "complete \(run)", within: wait) != nil
        // Room for a duplicate to show.
        try await Task.sleep(for: sizes.grace)
        let answer = try await child.command("stats \(run)", answer: "stats")
        var stats = try JSONDecoder().decode(RunStats.self, from: Data(answer.dropFirst("stats ".count).utf8))
        stats.failures += failures.withLockedValue { $0 } - failuresBefore
        if !completed || !stats.isExact || stats.run != run {
            let problem =
                "\(what) \(path.rawValue) run \(run): \(stats.unique) of \(count) received, "
                + "\(stats.duplicates) duplicates, \(stats.strays) strays, \(stats.failures) failures"
                + (completed ? "" : ", not complete within \(wait)")
            problems.withLockedValue { $0.append(problem) }
            complain(problem)
        }
        return (stats, start)
    }

    func throughput(_ path: Path, count: Int) async throws -> ThroughputRun {
        let before =
            try await firstValue(
                Int64.self,
                "SELECT coalesce(max(link_seq), 0) FROM mailroom_outbox WHERE origin = \(origin)", on: admin,
                logger: logger) ?? 0
        let (stats, start) = try await measure("throughput", path, count: count, wait: sizes.wait) { text in
            for index in 0..<count {
                try await send(BenchMail(index: index, sentAt: monotonicNow(), text: text), on: path)
            }
        }
        let seconds = Double(stats.lastReceipt &- start) / 1e9
        var statements: Int?
        if path == .link {
            // A statement's rows share its transaction's start time, now().
            statements = try await firstValue(
                Int64.self,
                """
                SELECT count(DISTINCT created_at) FROM mailroom_outbox
                WHERE origin = \(origin) AND link_seq > \(before)
                """, on: admin, logger: logger
            ).map(Int.init)
        }
        return ThroughputRun(
            messagesPerSecond: stats.isExact ? Double(count) / seconds : .nan, statements: statements)
    }

    func latency(_ path: Path, count: Int) async throws -> RunStats {
        let interval = sizes.interval
        return try await measure("latency", path, count: count, wait: interval * count + .seconds(30)) { text in
            let start = ContinuousClock.now
            for index in 0..<count {
                try await Task.sleep(until: start + interval * index, clock: .continuous)
                try await send(BenchMail(index: index, sentAt: monotonicNow(), text: text), on: path)
            }
        }.stats
    }

    func warmUp() async throws {
        for path in [Path.raw, .link] { _ = try await throughput(path, count: sizes.warmUp) }
    }
}

/// Turns the server's fsync on for a while, and back off.
///
/// `ALTER SYSTEM` and a reload are enough when fsync=off comes from a configuration file; when it comes from the
/// server's command line (as with `with-postgres.sh`), the command line wins over `postgresql.auto.conf` and the
/// server has to restart with `fsync=on` instead, through `MAILROOM_POSTGRES_CTL`.
struct FsyncSwitch {
    let socket: String
    let logger: Logger
    /// The server's options before, when it had to restart.
    private(set) var restartedFrom: [String]?

    init(socket: String, logger: Logger) {
        (self.socket, self.logger) = (socket, logger)
    }

    /// How fsync was turned on.
    mutating func turnOn() async throws -> String {
        let reloaded = try await Self.withAdmin(socket: socket, logger: logger) { connection, logger in
            try await Self.execute("ALTER SYSTEM SET fsync = on", on: connection, logger: logger)
            try await Self.execute("SELECT pg_reload_conf()", on: connection, logger: logger)
            let deadline = ContinuousClock.now + .seconds(2)
            while ContinuousClock.now < deadline {
                if try await Self.fsync(on: connection, logger: logger) == "on" { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }
        if reloaded { return "ALTER SYSTEM + pg_reload_conf()" }
        let options = try Self.serverOptions()
        try Self.restart(with: options.map { $0 == "fsync=off" ? "fsync=on" : $0 })
        restartedFrom = options
        guard try await Self.withAdmin(socket: socket, logger: logger, Self.fsync) == "on" else {
            throw PostgresBenchmarkError("fsync is still off after a restart with fsync=on")
        }
        return "a restart with -c fsync=on: ALTER SYSTEM + pg_reload_conf() left it off, as the server's command line "
            + "sets fsync=off and wins over postgresql.auto.conf"
    }

    func turnOff() async throws {
        try await Self.withAdmin(socket: socket, logger: logger) { connection, logger in
            try await Self.execute("ALTER SYSTEM RESET fsync", on: connection, logger: logger)
            try await Self.execute("SELECT pg_reload_conf()", on: connection, logger: logger)
        }
        if let restartedFrom { try Self.restart(with: restartedFrom) }
        let deadline = ContinuousClock.now + .seconds(5)
        while try await Self.withAdmin(socket: socket, logger: logger, Self.fsync) != "off" {
            guard ContinuousClock.now < deadline else { throw PostgresBenchmarkError("fsync did not go back off") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private static func fsync(on connection: PostgresConnection, logger: Logger) async throws -> String {
        try await firstValue(String.self, "SHOW fsync", on: connection, logger: logger) ?? "?"
    }

    private static func execute(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        for try await _ in try await connection.query(query, logger: logger) {}
    }

    private static func withAdmin<T: Sendable>(
        socket: String, logger: Logger, _ work: (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        let connection = try await PostgresConnection.connect(
            configuration: connectionConfiguration(socket: socket), id: 9, logger: logger)
        do {
            let result = try await work(connection, logger)
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// The server's command-line options from `postmaster.opts` (`binary "-D" "data" "-k" …`), less the data
    /// folder, which `pg_ctl` passes itself.
    private static func serverOptions() throws -> [String] {
        guard let data = ProcessInfo.processInfo.environment["MAILROOM_POSTGRES_DATA"] else {
            throw PostgresBenchmarkError("MAILROOM_POSTGRES_DATA is not set: the server cannot be restarted")
        }
        let line = try String(contentsOfFile: data + "/postmaster.opts", encoding: .utf8)
        var words = line.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
        if let index = words.firstIndex(of: "-D") { words.removeSubrange(index...index + 1) }
        guard words.contains("fsync=off") else { throw PostgresBenchmarkError("no fsync=off in \(line)") }
        return words
    }

    private static func restart(with options: [String]) throws {
        guard let ctl = ProcessInfo.processInfo.environment["MAILROOM_POSTGRES_CTL"] else {
            throw PostgresBenchmarkError("MAILROOM_POSTGRES_CTL is not set: the server cannot be restarted")
        }
        // pg_ctl hands the options to a shell.
        let quoted = options.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ctl)
        process.arguments = ["restart", "-w", "-t", "60", "-m", "fast", "-o", quoted.joined(separator: " ")]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PostgresBenchmarkError("pg_ctl restart exited with \(process.terminationStatus): \(message)")
        }
    }
}

struct PostgresBenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

func column(_ value: String, _ width: Int) -> String {
    value.count >= width ? value : String(repeating: " ", count: width - value.count) + value
}

func format(_ value: Double, _ decimals: Int) -> String {
    value.isNaN ? "-" : String(format: "%.\(decimals)f", value)
}

/// The figures of one row, each the median of its runs.
struct Row {
    var label: String
    var throughput: [Double] = []
    var p50: [Double] = []
    var p99: [Double] = []
    var mean: [Double] = []

    mutating func add(_ run: ThroughputRun) { throughput.append(run.messagesPerSecond) }

    mutating func add(_ stats: RunStats) {
        p50.append(stats.p50 ?? .nan)
        p99.append(stats.p99 ?? .nan)
        mean.append(stats.mean ?? .nan)
    }

    var line: String {
        label.padding(toLength: 24, withPad: " ", startingAt: 0) + column(format(median(throughput), 0), 12)
            + column(format(median(p50), 3), 10) + column(format(median(p99), 3), 10)
            + column(format(median(mean), 3), 10) + "   "
            + throughput.map { format($0, 0) }.joined(separator: "/") + "  "
            + p50.map { format($0, 3) }.joined(separator: "/")
    }
}

func benchmark(quick: Bool, socket: String, logger: Logger) async -> Int32 {
    let sizes =
        quick
        ? Sizes(
            throughput: 200, latency: 100, repetitions: 1, fsyncRow: false, warmUp: 20, wait: .seconds(20),
            grace: .milliseconds(50))
        : Sizes(
            throughput: 5000, latency: 2000, repetitions: 5, fsyncRow: true, warmUp: 200, wait: .seconds(120),
            grace: .milliseconds(200))
    var problems: [String] = []
    var notes: [String] = []
    var raw = Row(label: "raw NOTIFY/LISTEN")
    var link = Row(label: "PostgresLink")
    var fsyncLink = Row(label: "PostgresLink, fsync on")
    var statements: [Int] = []
    var outbox: (total: Int64, heap: Int64, rows: Int64)?
    var version = "?"
    let jsonBytes =
        (try? json(BenchMail(index: sizes.throughput - 1, sentAt: monotonicNow(), text: text(forRun: 10))))?
        .utf8.count ?? 0
    do {
        let session = try await Session(number: 1, socket: socket, sizes: sizes, logger: logger)
        do {
            version = try await firstValue(String.self, "SHOW server_version", on: session.admin, logger: logger) ?? "?"
            try await session.warmUp()
            for repetition in 0..<sizes.repetitions {
                // Alternating which path goes first evens out drift in the machine's load.
                let order: [Path] = repetition % 2 == 0 ? [.raw, .link] : [.link, .raw]
                for path in order {
                    let run = try await session.throughput(path, count: sizes.throughput)
                    if path == .raw { raw.add(run) } else { link.add(run) }
                    if let count = run.statements { statements.append(count) }
                }
                for path in order {
                    let stats = try await session.latency(path, count: sizes.latency)
                    if path == .raw { raw.add(stats) } else { link.add(stats) }
                }
            }
            let sizes = try await session.admin.query(
                """
                SELECT pg_total_relation_size('mailroom_outbox'), pg_relation_size('mailroom_outbox'), count(*)
                FROM mailroom_outbox
                """, logger: logger)
            for try await (total, heap, rows) in sizes.decode((Int64, Int64, Int64).self) {
                outbox = (total, heap, rows)
            }
        } catch {
            problems.append("main runs: \(error)")
        }
        problems += session.problems.withLockedValue { $0 }
        await session.stop()
    } catch {
        problems.append("setting up: \(error)")
    }

    if sizes.fsyncRow && problems.isEmpty {
        var fsync = FsyncSwitch(socket: socket, logger: logger)
        do {
            let how = try await fsync.turnOn()
            notes.append("fsync on by \(how)")
            let session = try await Session(number: 2, socket: socket, sizes: sizes, logger: logger)
            do {
                try await session.warmUp()
                fsyncLink.add(try await session.latency(.link, count: sizes.latency))
                let run = try await session.throughput(.link, count: sizes.throughput)
                fsyncLink.add(run)
                if let count = run.statements {
                    notes.append("fsync on: \(sizes.throughput) mail in \(count) statements")
                }
            } catch {
                problems.append("fsync runs: \(error)")
            }
            problems += session.problems.withLockedValue { $0 }
            await session.stop()
        } catch {
            problems.append("fsync on: \(error)")
        }
        do { try await fsync.turnOff() } catch { problems.append("fsync back off: \(error)") }
    }

    print(
        """

        PostgresLink vs raw NOTIFY/LISTEN, two processes over a Unix socket, PostgreSQL \(version), fsync off unless \
        stated
        throughput: \(sizes.throughput) mail of \(jsonBytes) bytes of JSON as fast as each path allows; latency: \
        \(sizes.latency) mail, one every \(sizes.intervalMilliseconds) ms; median of \(sizes.repetitions) run(s), \
        alternating raw/link
        """)
    print(
        "path".padding(toLength: 24, withPad: " ", startingAt: 0) + column("msg/s", 12) + column("p50 ms", 10)
            + column("p99 ms", 10) + column("mean ms", 10) + "   runs: msg/s  p50 ms")
    print(raw.line)
    print(link.line)
    let throughputRatio = median(link.throughput) / median(raw.throughput)
    let latencyRatio = median(link.p50) / median(raw.p50)
    print(
        "link/raw".padding(toLength: 24, withPad: " ", startingAt: 0) + column(format(throughputRatio, 2) + "x", 12)
            + column(format(latencyRatio, 2) + "x", 10)
            + column(format(median(link.p99) / median(raw.p99), 2) + "x", 10)
            + column(format(median(link.mean) / median(raw.mean), 2) + "x", 10))
    if sizes.fsyncRow { print(fsyncLink.line) }
    if let outbox, outbox.rows > 0 {
        print(
            "outbox: \(outbox.total / outbox.rows) bytes per mail with indexes (\(outbox.heap / outbox.rows) in the "
                + "table alone), \(outbox.rows) rows")
    }
    print(
        "sender: one call of the link's PL/pgSQL write function per channel, committed on its own, a round trip each; "
            + "raw: one SELECT pg_notify per mail")
    if !statements.isEmpty {
        print(
            "link throughput runs: \(sizes.throughput) mail in \(statements.map(String.init).joined(separator: "/")) "
                + "statements")
    }
    for note in notes { print(note) }
    print(
        "link throughput >= 0.7x raw: \(throughputRatio >= 0.7 ? "held" : "did not hold"); "
            + "link p50 <= 1.3x raw: \(latencyRatio <= 1.3 ? "held" : "did not hold")")
    if problems.isEmpty {
        print("counts: every run received exactly its mail, each once")
        return 0
    }
    print("PROBLEMS:")
    for problem in problems { print("  " + problem) }
    return 1
}

signal(SIGPIPE, SIG_IGN)
var logger = Logger(label: "LinkBenchmark")
logger.logLevel =
    ProcessInfo.processInfo.environment["LINKBENCHMARK_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .error
guard let socket = ProcessInfo.processInfo.environment["MAILROOM_POSTGRES_SOCKET"] else {
    complain("usage: Scripts/with-postgres.sh LinkBenchmark [--quick] (MAILROOM_POSTGRES_SOCKET is not set)")
    exit(2)
}
let arguments = CommandLine.arguments.dropFirst()
if arguments.contains("--receiver") {
    exit(await receive(socket: socket, logger: logger))
}
exit(await benchmark(quick: arguments.contains("--quick"), socket: socket, logger: logger))
#else
print("LinkBenchmark needs the Postgres trait: swift run --traits Postgres LinkBenchmark")
#endif
