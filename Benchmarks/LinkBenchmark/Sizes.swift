#if Postgres && Observability
struct Sizes {
    /// Mail of a throughput run.
    var throughput: Int
    /// Mail of a latency run, one every ``interval``.
    var latency: Int
    /// Rounds of the main table's runs.
    var repetitions: Int
    var fsyncRow: Bool
    /// Mail of each path's run before any figure is taken.
    var warmUp: Int
    /// How long a throughput run may take.
    var wait: Duration
    /// How long the receivers go on counting after a run completes, for a duplicate to show.
    var grace: Duration
    /// Mail a subscription catches up on, and how many times.
    var catchUp: Int
    var catchUpRepetitions: Int
    /// How many receiving processes each point of the scale curve has, and its rounds.
    var curve: [Int]
    var curveRepetitions: Int
    /// How long a consumer group may take to share its lanes out before the curve's runs.
    var settling: Duration
    var intervalMilliseconds = 2
    var interval: Duration { .milliseconds(intervalMilliseconds) }

    /// Tiny sizes, once each: a smoke test of every path's counts.
    static let quick = Sizes(
        throughput: 200, latency: 100, repetitions: 1, fsyncRow: false, warmUp: 16, wait: .seconds(30),
        grace: .milliseconds(50), catchUp: 200, catchUpRepetitions: 1, curve: [1, 2, 4, 8], curveRepetitions: 1,
        settling: .zero)

    static let full = Sizes(
        throughput: 5000, latency: 2000, repetitions: 5, fsyncRow: true, warmUp: 200, wait: .seconds(120),
        grace: .milliseconds(200), catchUp: 20_000, catchUpRepetitions: 3, curve: [1, 2, 4, 8], curveRepetitions: 3,
        settling: .seconds(30))
}
#endif
