#if Postgres && Observability
/// What one run measured, over all its receivers.
struct RunFigures {
    /// Its number, which its mail carries.
    var run: Int
    /// Mail per second from the first send to the last mail handled; NaN when a count was wrong.
    var mailPerSecond: Double
    /// Milliseconds from the send to the recipient, over every mail each receiver handled; NaN without mail.
    var p50: Double
    var p99: Double
    var mean: Double
    /// For each receiver, the lanes of which it handled mail.
    var lanes: [Set<Int>]
    /// For each receiver, the p50 of the mail it handled.
    var p50PerReceiver: [Double]
    /// Link throughput runs: how many statements (each its own transaction) the sender wrote the run's mail in.
    var statements: Int?

    init(run: Int, _ stats: [RunStats], count: Int, lanes: Int, start: UInt64, exact: Bool) {
        self.run = run
        let end = stats.map(\.lastReceipt).max() ?? start
        mailPerSecond = exact && end > start ? Double(count) / (Double(end - start) / 1e9) : .nan
        let sorted = stats.flatMap(\.latencies).sorted()
        p50 = percentile(0.5, of: sorted)
        p99 = percentile(0.99, of: sorted)
        mean = sorted.isEmpty ? .nan : Double(sorted.reduce(0, +)) / Double(sorted.count) / 1000
        self.lanes = stats.map { Set($0.indices.map { $0 % lanes }) }
        p50PerReceiver = stats.map { percentile(0.5, of: $0.latencies.sorted()) }
    }
}

/// The `p` quantile of `sorted` microseconds, in milliseconds; NaN when there are none.
private func percentile(_ p: Double, of sorted: [Int]) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p * Double(sorted.count)).rounded(.up)) - 1
    return Double(sorted[min(max(rank, 0), sorted.count - 1)]) / 1000
}

/// What is wrong with the counts of a run, in words: each receiver must have handled each mail once, or, when they
/// share the mail, one of them.
func countProblems(_ stats: [RunStats], count: Int, shared: Bool) -> [String] {
    var problems: [String] = []
    let handled = shared ? [stats.flatMap(\.indices)] : stats.map(\.indices)
    for (receiver, indices) in handled.enumerated() {
        var times = [Int](repeating: 0, count: count)
        for index in indices { times[index] += 1 }
        let missing = times.count(where: { $0 == 0 })
        let duplicates = times.reduce(0) { $0 + max($1 - 1, 0) }
        if missing > 0 || duplicates > 0 {
            let who = shared ? "the receivers together" : "receiver \(receiver)"
            problems.append("\(who): \(count - missing) of \(count) handled, \(duplicates) duplicates")
        }
    }
    let strays = stats.reduce(0) { $0 + $1.strays }
    let failures = stats.reduce(0) { $0 + $1.failures }
    if strays > 0 { problems.append("\(strays) mail of another run or path") }
    if failures > 0 { problems.append("\(failures) delivery failures in the receivers") }
    return problems
}
#endif
