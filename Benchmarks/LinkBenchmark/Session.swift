#if Postgres && Observability
import Foundation
import Logging
import Mailroom
import MailroomPostgres
import NIOConcurrencyHelpers
import PostgresNIO
import Tracing

/// The sending side of a session, and the receiving processes it started. This process's link and connections send
/// on every path; each run's figures and counts come from what the receivers report.
final class Session: Sendable {
    let admin: PostgresConnection
    let raw: PostgresConnection
    let office: PostOffice
    let origin: String
    let receivers: [Child]
    let mailbox: Mailbox
    let sizes: Sizes
    let logger: Logger
    /// Every run whose count was wrong, in words: the benchmark's, shared by its sessions.
    let problems: NIOLockedValueBox<[String]>
    /// The sender's own delivery failures.
    private let failures: NIOLockedValueBox<Int>
    private let runs = NIOLockedValueBox(0)
    /// The numbers of the processes started so far.
    private let children: NIOLockedValueBox<Int>

    private init(
        admin: PostgresConnection, raw: PostgresConnection, office: PostOffice, origin: String, receivers: [Child],
        mailbox: Mailbox, sizes: Sizes, problems: NIOLockedValueBox<[String]>, logger: Logger,
        failures: NIOLockedValueBox<Int>
    ) {
        (self.admin, self.raw, self.office, self.origin) = (admin, raw, office, origin)
        (self.receivers, self.mailbox, self.sizes, self.logger) = (receivers, mailbox, sizes, logger)
        (self.problems, self.failures) = (problems, failures)
        children = NIOLockedValueBox(receivers.count)
    }

    /// Runs `body` with a session of `count` receiving processes started with `--receiver`, which all share one
    /// name for their durable subscriptions; stops them and the link afterwards. Wrong counts go to `problems`.
    static func run<T>(
        number: Int, receivers count: Int, socket: String, sizes: Sizes, problems: NIOLockedValueBox<[String]>,
        logger: Logger, _ body: (Session) async throws -> T
    ) async throws -> T {
        let id = ProcessInfo.processInfo.processIdentifier
        return try await withConnection(socket: socket, id: 1, logger: logger) { admin in
            try await withConnection(socket: socket, id: 2, logger: logger) { raw in
                try await execute(
                    "CREATE TABLE IF NOT EXISTS link_bench_effects (channel text NOT NULL, seq bigint NOT NULL)",
                    on: admin, logger: logger)
                let office = PostOffice()
                let failures = NIOLockedValueBox(0)
                office.register { (_: DeliveryFailure) in failures.withLockedValue { $0 += 1 } }
                let origin = "bench-sender-\(id)-\(number)"
                let link = try PostgresLink(
                    office: office, carrying: carried, database: clientConfiguration(socket: socket),
                    configuration: linkConfiguration(origin: origin), logger: logger)
                return try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await link.run() }
                    defer { tasks.cancelAll() }
                    try await within(.seconds(30), "the sender's link listening") { try await link.listening() }
                    let mailbox = Mailbox()
                    var receivers: [Child] = []
                    do {
                        for index in 0..<count {
                            receivers.append(
                                try Child(["--receiver", "bench-\(id)-\(number)"], number: index, mailbox: mailbox))
                        }
                        for receiver in receivers { _ = try await receiver.line("ready", within: .seconds(60)) }
                        let session = Session(
                            admin: admin, raw: raw, office: office, origin: origin, receivers: receivers,
                            mailbox: mailbox, sizes: sizes, problems: problems, logger: logger, failures: failures)
                        let result = try await body(session)
                        await stopAll(receivers)
                        return result
                    } catch {
                        await stopAll(receivers)
                        throw error
                    }
                }
            }
        }
    }

    /// Sends `count` mail on `path` as fast as the path takes them (durable mail spread over `lanes` lanes).
    func throughput(_ path: Path, count: Int, lanes: Int = 1) async throws -> RunFigures {
        let before = path == .link ? try await lastLinkNumber() : 0
        var measurement = try await measure(path, count: count, lanes: lanes, wait: sizes.wait) { text, lanes in
            for index in 0..<count { try await send(index, text, on: path, lanes: lanes) }
        }
        if path == .link {
            // A statement's rows share its transaction's start time, now().
            measurement.statements = try await firstValue(
                Int64.self,
                """
                SELECT count(DISTINCT created_at) FROM mailroom_outbox
                WHERE origin = \(origin) AND link_seq > \(before)
                """, on: admin, logger: logger
            ).map(Int.init)
        }
        return measurement
    }

    /// Sends `count` mail on `path`, one every ``Sizes/interval`` (durable mail spread over `lanes` lanes).
    func latency(_ path: Path, count: Int, lanes: Int = 1) async throws -> RunFigures {
        let interval = sizes.interval
        return try await measure(path, count: count, lanes: lanes, wait: interval * count + .seconds(30)) {
            text, lanes in
            let start = ContinuousClock.now
            for index in 0..<count {
                try await Task.sleep(until: start + interval * index, clock: .continuous)
                try await send(index, text, on: path, lanes: lanes)
            }
        }
    }

    func warmUp(_ paths: [Path], lanes: Int = 1) async throws {
        for path in paths { _ = try await throughput(path, count: sizes.warmUp, lanes: lanes) }
    }

    /// Waits until the receivers share the durable lanes evenly: a consumer group hands channels to the members
    /// that join after the first one, in a while. Probes with small runs, half a second apart, for up to `limit`;
    /// returns how long it took (`nil` when the shares were still uneven then) and the lanes each receiver read in
    /// the last probe.
    func settleGroup(lanes: Int, within limit: Duration) async throws -> (took: Duration?, lanes: [Int]) {
        let start = ContinuousClock.now
        while true {
            let shares = try await throughput(.durable, count: 4 * lanes, lanes: lanes).lanes.map(\.count)
            if let most = shares.max(), let least = shares.min(), most - least <= 1 {
                return (start.duration(to: .now), shares)
            }
            if start.duration(to: .now) >= limit { return (nil, shares) }
            try await Task.sleep(for: .milliseconds(500))
        }
    }

    /// Catching up after a restart: commits `count` mail on the catch-up channel, past where two new subscriptions
    /// start, while no process reads them; then, one after the other (in `order`: a plain recipient is `false`, a
    /// transactional one `true`), starts a process for each and times it from its link's start until its recipient
    /// has handled them all. Returns mail per second, NaN when a count was wrong.
    func catchUp(count: Int, order: [Bool]) async throws -> [Bool: Double] {
        let position =
            try await firstValue(
                Int64.self,
                "SELECT coalesce(max(last_seq), 0) FROM mailroom_channels WHERE channel = \(CatchUpMail.linkedChannel)",
                on: admin, logger: logger) ?? 0
        // The receiver's plain link receives the mail too: once it has all of it, all of it has committed.
        let posted = try await measure(.catchUp, count: count, lanes: 1, wait: sizes.wait) { text, _ in
            for index in 0..<count { try await send(index, text, on: .catchUp, lanes: 1) }
        }
        var mailPerSecond: [Bool: Double] = [:]
        for inTransaction in order {
            let name = "bench-catch-up-\(ProcessInfo.processInfo.processIdentifier)-\(posted.run)-\(inTransaction)"
            let arguments = ["--catch-up", name, "\(position)", "\(posted.run)", "\(count)"]
            let child = try Child(
                arguments + (inTransaction ? ["--in-transaction"] : []), number: nextChild(), mailbox: mailbox)
            do {
                let (stats, exact) = try await gather(
                    run: posted.run, path: .catchUp, count: count, lanes: 1, from: [child], wait: sizes.wait)
                let start = stats.first?.started ?? 0
                mailPerSecond[inTransaction] =
                    RunFigures(run: posted.run, stats, count: count, lanes: 1, start: start, exact: exact)
                    .mailPerSecond
                await child.stop()
            } catch {
                await child.stop()
                throw error
            }
        }
        return mailPerSecond
    }

    /// Has every receiver expect a new run, sends its mail by `sending`, then gathers what the receivers saw.
    private func measure(
        _ path: Path, count: Int, lanes: Int, wait: Duration,
        sending: (_ text: String, _ lanes: Int) async throws -> Void
    ) async throws -> RunFigures {
        let lanes = path == .durable ? lanes : 1
        let run = runs.withLockedValue { run in
            run += 1
            return run
        }
        for receiver in receivers {
            _ = try await receiver.answer("expect \(run) \(path.rawValue) \(count) \(lanes)", "expecting \(run)")
        }
        let failuresBefore = failures.withLockedValue { $0 }
        let start = monotonicNow()
        try await sending(text(forRun: run), lanes)
        var (stats, exact) = try await gather(
            run: run, path: path, count: count, lanes: lanes, from: receivers, wait: wait)
        let failed = failures.withLockedValue { $0 } - failuresBefore
        if failed > 0 {
            report("\(path.rawValue) run \(run): \(failed) delivery failures in the sender")
            exact = false
        }
        return RunFigures(run: run, stats, count: count, lanes: lanes, start: start, exact: exact)
    }

    /// Waits until the last mail of each lane of run `run` has come to every one of `children` (or, when they
    /// share the path's mail, to one of them), lets a duplicate show, and collects what they saw; a wrong count is
    /// reported as a problem of the session.
    private func gather(
        run: Int, path: Path, count: Int, lanes: Int, from children: [Child], wait: Duration
    ) async throws -> (stats: [RunStats], exact: Bool) {
        var problems: [String] = []
        do {
            let deadline = ContinuousClock.now + wait
            let takers: [Int?] = path.isShared ? [nil] : children.map(\.number)
            for index in max(count - lanes, 0)..<count {
                for child in takers {
                    _ = try await mailbox.take("last \(run) \(index)", from: child, within: deadline - .now)
                }
            }
        } catch {
            problems.append("not complete within \(wait) (\(error))")
        }
        try await Task.sleep(for: sizes.grace)
        var stats: [RunStats] = []
        for child in children {
            let answer = try await child.answer("stats", "stats")
            stats.append(try JSONDecoder().decode(RunStats.self, from: Data(answer.dropFirst("stats ".count).utf8)))
        }
        problems += countProblems(stats, count: count, shared: path.isShared)
        for problem in problems { report("\(path.rawValue) run \(run) of \(count) mail: \(problem)") }
        return (stats, problems.isEmpty)
    }

    private func report(_ problem: String) {
        problems.withLockedValue { $0.append(problem) }
        complain(problem)
    }

    private func send(_ index: Int, _ text: String, on path: Path, lanes: Int) async throws {
        let sentAt = monotonicNow()
        switch path {
        case .raw:
            let payload = try json(BenchMail(index: index, sentAt: sentAt, text: text))
            try await execute("SELECT pg_notify(\(rawChannel), \(payload))", on: raw, logger: logger)
        case .link: BenchMail.post(index, sentAt, text, on: office)
        case .traced:
            ServiceContext.withValue(traceContext) { TracedMail.post(index, sentAt, text, on: office) }
        case .durable: durableLanes[index % lanes].post(index, sentAt, text, on: office)
        case .transactional: TransactionalMail.post(index, sentAt, text, on: office)
        case .catchUp: CatchUpMail.post(index, sentAt, text, on: office)
        }
    }

    private func lastLinkNumber() async throws -> Int64 {
        try await firstValue(
            Int64.self, "SELECT coalesce(max(link_seq), 0) FROM mailroom_outbox WHERE origin = \(origin)", on: admin,
            logger: logger) ?? 0
    }

    private func nextChild() -> Int {
        children.withLockedValue { number in
            defer { number += 1 }
            return number
        }
    }
}

func stopAll(_ children: [Child]) async {
    await withTaskGroup(of: Void.self) { group in
        for child in children { group.addTask { await child.stop() } }
    }
}
#endif
