#if Postgres && Observability
import Foundation

/// The median, or NaN when a run failed (its figure is NaN).
func median(_ values: [Double]) -> Double {
    let sorted = values.filter { !$0.isNaN }.sorted()
    guard !sorted.isEmpty, sorted.count == values.count else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

func column(_ value: String, _ width: Int) -> String {
    value.count >= width ? value : String(repeating: " ", count: width - value.count) + value
}

func padded(_ text: String, _ width: Int = 28) -> String {
    text.padding(toLength: width, withPad: " ", startingAt: 0)
}

func format(_ value: Double, _ decimals: Int) -> String {
    value.isNaN ? "-" : String(format: "%.\(decimals)f", value)
}

func ratio(_ value: Double) -> String {
    format(value, 2) + "x"
}

/// The figures of one path, each the median of its runs.
struct Row {
    var label: String
    var throughput: [Double] = []
    var p50: [Double] = []
    var p99: [Double] = []
    var mean: [Double] = []

    mutating func add(throughput run: RunFigures) {
        throughput.append(run.mailPerSecond)
    }

    mutating func add(latency run: RunFigures) {
        p50.append(run.p50)
        p99.append(run.p99)
        mean.append(run.mean)
    }

    static func header(_ first: String = "path") -> String {
        padded(first) + column("msg/s", 10) + column("p50 ms", 10) + column("p99 ms", 10) + column("mean ms", 10)
            + "   runs: msg/s  p50 ms"
    }

    var line: String {
        padded(label) + column(format(median(throughput), 0), 10) + column(format(median(p50), 3), 10)
            + column(format(median(p99), 3), 10) + column(format(median(mean), 3), 10) + "   "
            + throughput.map { format($0, 0) }.joined(separator: "/") + "  "
            + p50.map { format($0, 3) }.joined(separator: "/")
    }

    /// This row's medians over `base`'s.
    func ratios(over base: Row, label: String) -> String {
        padded(label) + column(ratio(median(throughput) / median(base.throughput)), 10)
            + column(ratio(median(p50) / median(base.p50)), 10) + column(ratio(median(p99) / median(base.p99)), 10)
            + column(ratio(median(mean) / median(base.mean)), 10)
    }
}

/// A series of the scale curve: a path, and how many lanes its mail is spread over.
struct CurveSeries {
    /// Its place in ``all``.
    let index: Int
    let path: Path
    let lanes: Int
    let label: String
    /// How the chart draws it: a colour, and an SVG dash pattern (empty for a solid line).
    let color: String
    let dash: String

    static let all = [
        CurveSeries(
            index: 0, path: .link, lanes: 1, label: "link, 1 channel", color: "#d62728", dash: ""),
        CurveSeries(
            index: 1, path: .durable, lanes: 1, label: "durable group, 1 channel", color: "#1f77b4", dash: "8 3"),
        CurveSeries(
            index: 2, path: .durable, lanes: durableLanes.count, label: "durable group, \(durableLanes.count) channels",
            color: "#ff7f0e", dash: "2 3"),
    ]
}

/// One point of the scale curve: each series with the same number of receiving processes.
struct CurvePoint {
    var processes: Int
    /// By ``CurveSeries/index``.
    var rows = CurveSeries.all.map { Row(label: $0.label) }
    /// For each process, how many lanes it handled mail of, in the group's last run over all the lanes.
    var lanesPerProcess: [Int] = []
    /// How long after the warm-up the group's processes had even shares of the lanes; `nil` when they did not
    /// within the time allowed.
    var settled: Duration?
    /// For each process, the p50 of the mail it handled in the group's last latency run over all the lanes.
    var p50PerProcess: [Double] = []

    static let header = "processes  " + Row.header("series")

    /// The point's rows, and a line on how the group shared the lanes, which may take up to `settling` to become
    /// even.
    func lines(settling: Duration) -> [String] {
        let shared =
            settled.map { "even \(format(seconds($0), 1)) s after the warm-up" }
            ?? "not even within \(format(seconds(settling), 0)) s"
        return rows.map { column("\(processes)", 9) + "  " + $0.line }
            + [
                "           lanes read per process: \(lanesPerProcess.map(String.init).joined(separator: "/")) "
                    + "(\(shared)); p50 ms per process: \(p50PerProcess.map { format($0, 3) }.joined(separator: "/"))"
            ]
    }
}

/// Whether a target held, in words.
func verdict(_ held: Bool) -> String {
    held ? "held" : "did not hold"
}

/// Everything a run of the benchmark measured.
struct Report {
    var version = "?"
    /// The machine's load average (1, 5, 15 minutes) before and after the runs.
    var loadBefore = "?"
    var loadAfter = "?"
    var rows: [Path: Row] = [
        .raw: Row(label: "raw NOTIFY/LISTEN"), .link: Row(label: "PostgresLink"),
        .traced: Row(label: "link, trace context"),
        .durable: Row(label: "durable subscription"), .transactional: Row(label: "durable, transactional"),
    ]
    var fsyncLink = Row(label: "PostgresLink, fsync on")
    /// Link throughput runs: the statements the sender wrote each run's mail in.
    var statements: [Int] = []
    var outbox: (total: Int64, heap: Int64, rows: Int64)?
    /// Mail per second, by whether the recipient was transactional.
    var catchUp: [Bool: [Double]] = [:]
    var curve: [CurvePoint] = []
    var notes: [String] = []

    /// Prints the main table, the catch-up, the scale curve and the targets.
    func printTables(_ sizes: Sizes) {
        let jsonBytes = (try? json(BenchMail(index: 4999, sentAt: monotonicNow(), text: text(forRun: 10))))?.utf8.count
        let (raw, link) = (rows[.raw]!, rows[.link]!)
        let (durable, transactional) = (rows[.durable]!, rows[.transactional]!)
        print(
            """

            PostgresLink, its durable subscriptions and raw NOTIFY/LISTEN, between processes over a Unix socket, \
            PostgreSQL \(version), fsync off unless stated
            throughput: \(sizes.throughput) mail of \(jsonBytes ?? 0) bytes of JSON as fast as each path allows; \
            latency: \(sizes.latency) mail, one every \(sizes.intervalMilliseconds) ms; median of \(sizes.repetitions) \
            run(s), alternating the order of the paths
            load average (1, 5, 15 min) before: \(loadBefore); after: \(loadAfter)
            """)
        print(Row.header())
        print(raw.line)
        print(link.line)
        print(link.ratios(over: raw, label: "link/raw"))
        print(rows[.traced]!.line)
        print(rows[.traced]!.ratios(over: link, label: "traced/link"))
        print(durable.line)
        print(durable.ratios(over: link, label: "durable/link"))
        print(transactional.line)
        print(transactional.ratios(over: link, label: "transactional/link"))
        if sizes.fsyncRow { print(fsyncLink.line) }
        if let outbox, outbox.rows > 0 {
            print(
                "outbox: \(outbox.total / outbox.rows) bytes per mail with indexes (\(outbox.heap / outbox.rows) in "
                    + "the table alone), \(outbox.rows) rows")
        }
        print(
            "sender: one call of the link's PL/pgSQL write function per channel, committed on its own, a round trip "
                + "each; raw: one SELECT pg_notify per mail")
        print(
            "traced: the plain link, each post inside a context that the links' InMemoryTracer injects as a trace "
                + "id and a span id (32 and 16 hex digits; the mail carries \(traceCarrierBytes) more bytes) and the "
                + "receiver extracts; no spans")
        if !statements.isEmpty {
            print(
                "link throughput runs: \(sizes.throughput) mail in "
                    + "\(statements.map(String.init).joined(separator: "/")) statements")
        }
        print(
            "durable: a subscription's plain recipient in the receiving process, on one channel, timed when it is "
                + "called; transactional: its recipient inserts a row in the transaction that stores the position "
                + "(a batch of mail at a time), timed after the insert")
        for note in notes { print(note) }

        print(
            """

            catch-up: \(sizes.catchUp) mail committed while a subscription's process was down, then a new process \
            under its name, timed from its link's start until its recipient has handled them all; median of \
            \(sizes.catchUpRepetitions) run(s)
            """)
        print(padded("recipient") + column("mail/s", 10) + "   runs")
        for (name, inTransaction) in [("plain", false), ("transactional", true)] {
            let runs = catchUp[inTransaction] ?? []
            print(
                padded(name) + column(format(median(runs), 0), 10) + "   "
                    + runs.map { format($0, 0) }.joined(separator: "/"))
        }

        print(
            """

            scale: \(sizes.curve.map(String.init).joined(separator: ", ")) receiving processes; link: every process \
            receives every mail; durable group: every process subscribes under one name (a consumer group), each \
            mail is handled by one of them, each channel read by one process at a time; mail on 1 channel, or \
            spread over \(durableLanes.count) ("lanes", one statement each per batch of the sender); \
            \(sizes.throughput) mail as fast as possible, \(sizes.latency) one every \(sizes.intervalMilliseconds) \
            ms, latency pooled over the processes; median of \(sizes.curveRepetitions) run(s), alternating the order \
            of the series
            """)
        print(CurvePoint.header)
        for line in curve.flatMap({ $0.lines(settling: sizes.settling) }) { print(line) }

        let linkOverRaw = (median(link.throughput) / median(raw.throughput), median(link.p50) / median(raw.p50))
        let durableOverLink = (
            median(durable.throughput) / median(link.throughput), median(durable.p50) / median(link.p50)
        )
        let (catchUpPlain, catchUpTransactional) = (median(catchUp[false] ?? []), median(catchUp[true] ?? []))
        print(
            """

            link throughput >= 0.7x raw: \(verdict(linkOverRaw.0 >= 0.7)) (\(ratio(linkOverRaw.0))); \
            link p50 <= 1.3x raw: \(verdict(linkOverRaw.1 <= 1.3)) (\(ratio(linkOverRaw.1)))
            durable throughput >= 0.7x link: \(verdict(durableOverLink.0 >= 0.7)) (\(ratio(durableOverLink.0))); \
            durable p50 <= 1.5x link: \(verdict(durableOverLink.1 <= 1.5)) (\(ratio(durableOverLink.1)))
            catch-up >= 20,000 mail/s: plain \(verdict(catchUpPlain >= 20_000)) (\(format(catchUpPlain, 0))), \
            transactional \(verdict(catchUpTransactional >= 20_000)) (\(format(catchUpTransactional, 0)))
            """)
    }

    /// The scale curve's chart.
    func chart() -> ScaleChart {
        ScaleChart(
            title: "PostgresLink against the number of receiving processes",
            processes: curve.map(\.processes),
            series: CurveSeries.all.map { series in
                ScaleChart.Series(
                    label: series.label, color: series.color, dash: series.dash,
                    throughput: curve.map { median($0.rows[series.index].throughput) },
                    p50: curve.map { median($0.rows[series.index].p50) })
            })
    }
}
#endif
