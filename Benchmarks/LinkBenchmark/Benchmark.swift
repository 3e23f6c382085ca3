#if Postgres && Observability
import Foundation
import Logging
import MailroomPostgres
import NIOConcurrencyHelpers
import PostgresNIO

/// The benchmark's parts, each in sessions of its own, against the server on `socket`.
struct Benchmark {
    let sizes: Sizes
    let socket: String
    let logger: Logger
    /// Every run whose count was wrong, and every part that failed, in words.
    let problems = NIOLockedValueBox<[String]>([])

    /// Runs every part, prints the report, and writes the scale curve's chart to `chart` if given; returns 1 when
    /// anything went wrong.
    func run(chart: String?) async -> Int32 {
        var report = Report()
        report.loadBefore = loadAverage()
        await attempt("main runs") { try await measureMainTable(into: &report) }
        if sizes.fsyncRow && problems.withLockedValue(\.isEmpty) {
            var fsync = FsyncSwitch(socket: socket, logger: logger)
            await attempt("fsync on") { try await measureWithFsync(&fsync, into: &report) }
            await attempt("fsync back off") { try await fsync.turnOff() }
        }
        for processes in sizes.curve {
            var point = CurvePoint(processes: processes)
            await attempt("scale curve, \(processes) processes") {
                try await measureCurve(with: processes, into: &point)
            }
            report.curve.append(point)
        }

        report.loadAfter = loadAverage()
        report.printTables(sizes)
        if let chart {
            do {
                try report.chart().svg().write(toFile: chart, atomically: true, encoding: .utf8)
                print("chart: \(chart)")
            } catch {
                problems.withLockedValue { $0.append("writing the chart: \(error)") }
            }
        }
        let found = problems.withLockedValue { $0 }
        if found.isEmpty {
            print("counts: every run's mail was handled exactly once by each receiver, or by one of a consumer group")
            return 0
        }
        print("PROBLEMS:")
        for problem in found { print("  " + problem) }
        return 1
    }

    /// Every path, in rounds that alternate their order, then the outbox's size, then the catch-up, in a session
    /// of one receiving process.
    private func measureMainTable(into report: inout Report) async throws {
        let paths: [Path] = [.raw, .link, .traced, .durable, .transactional]
        try await session(number: 1, receivers: 1) { session in
            report.version =
                try await firstValue(String.self, "SHOW server_version", on: session.admin, logger: logger) ?? "?"
            try await session.warmUp(paths)
            for repetition in 0..<sizes.repetitions {
                // Alternating the order of the paths evens out drift in the machine's load.
                let order = repetition % 2 == 0 ? paths : paths.reversed()
                for path in order {
                    let run = try await session.throughput(path, count: sizes.throughput)
                    report.rows[path]?.add(throughput: run)
                    if let count = run.statements { report.statements.append(count) }
                }
                for path in order {
                    report.rows[path]?.add(latency: try await session.latency(path, count: sizes.latency))
                }
            }
            let outbox = try await session.admin.query(
                """
                SELECT pg_total_relation_size('mailroom_outbox'), pg_relation_size('mailroom_outbox'), count(*)
                FROM mailroom_outbox
                """, logger: logger)
            for try await (total, heap, rows) in outbox.decode((Int64, Int64, Int64).self) {
                report.outbox = (total, heap, rows)
            }
            for repetition in 0..<sizes.catchUpRepetitions {
                let order = repetition % 2 == 0 ? [false, true] : [true, false]
                for (inTransaction, mailPerSecond) in try await session.catchUp(count: sizes.catchUp, order: order) {
                    report.catchUp[inTransaction, default: []].append(mailPerSecond)
                }
            }
        }
    }

    /// The link again, with the server's fsync turned on by `fsync`.
    private func measureWithFsync(_ fsync: inout FsyncSwitch, into report: inout Report) async throws {
        report.notes.append("fsync on by \(try await fsync.turnOn())")
        try await session(number: 2, receivers: 1) { session in
            try await session.warmUp([.link])
            report.fsyncLink.add(latency: try await session.latency(.link, count: sizes.latency))
            let run = try await session.throughput(.link, count: sizes.throughput)
            report.fsyncLink.add(throughput: run)
            if let count = run.statements {
                report.notes.append("fsync on: \(sizes.throughput) mail in \(count) statements")
            }
        }
    }

    /// One point of the scale curve: every series, in rounds that alternate their order, in a session of
    /// `processes` receiving processes, once the consumer group has shared its lanes out.
    private func measureCurve(with processes: Int, into point: inout CurvePoint) async throws {
        let lanes = durableLanes.count
        try await session(number: 10 + processes, receivers: processes) { session in
            try await session.warmUp([.link, .durable], lanes: lanes)
            (point.settled, point.lanesPerProcess) = try await session.settleGroup(
                lanes: lanes, within: sizes.settling)
            for repetition in 0..<sizes.curveRepetitions {
                let order = repetition % 2 == 0 ? CurveSeries.all : CurveSeries.all.reversed()
                for series in order {
                    let run = try await session.throughput(series.path, count: sizes.throughput, lanes: series.lanes)
                    point.rows[series.index].add(throughput: run)
                    if series.lanes > 1 { point.lanesPerProcess = run.lanes.map(\.count) }
                }
                for series in order {
                    let run = try await session.latency(series.path, count: sizes.latency, lanes: series.lanes)
                    point.rows[series.index].add(latency: run)
                    if series.lanes > 1 { point.p50PerProcess = run.p50PerReceiver }
                }
            }
        }
    }

    private func session(number: Int, receivers: Int, _ body: (Session) async throws -> Void) async throws {
        try await Session.run(
            number: number, receivers: receivers, socket: socket, sizes: sizes, problems: problems, logger: logger,
            body)
    }

    /// The machine's load average over 1, 5 and 15 minutes, as /proc/loadavg gives it.
    private func loadAverage() -> String {
        let line = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?"
        return line.split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// Runs `part`; what it throws becomes a problem named `name`.
    private func attempt(_ name: String, _ part: () async throws -> Void) async {
        do {
            try await part()
        } catch {
            problems.withLockedValue { $0.append("\(name): \(error)") }
        }
    }
}
#endif
