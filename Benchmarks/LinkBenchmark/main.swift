#if Postgres && Observability
// Measures a `PostgresLink` between processes against raw postgres-nio `NOTIFY`/`LISTEN`, and its durable
// subscriptions beside both, in one run: this process sends, copies of it started with `--receiver` receive.
// - The main table: throughput of mail sent as fast as each path allows, latency of mail paced every 2 ms (p50, p99,
//   mean), for raw NOTIFY, the plain link, a durable subscription and a transactional one; the link again with
//   fsync on; what the outbox costs per mail.
// - Catch-up: how fast a subscription whose process was down reads the mail committed meanwhile (copies of this
//   program started with `--catch-up`).
// - The scale curve: throughput and latency with 1, 2, 4 and 8 receiving processes, for the plain link (every
//   process receives every mail) and for a durable subscription that they share (a consumer group).
//
//   Scripts/with-postgres.sh .build-bench/release/LinkBenchmark [--quick] [--chart docs/link-scale-curve.svg]
//
// `--quick` runs tiny sizes once, as a smoke test; `--chart PATH` writes the scale curve's chart. Either way the
// exit status is 1 when any run's count is wrong.
import Foundation
import Logging

signal(SIGPIPE, SIG_IGN)
var logger = Logger(label: "LinkBenchmark")
logger.logLevel =
    ProcessInfo.processInfo.environment["LINKBENCHMARK_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .error
guard let socket = ProcessInfo.processInfo.environment["MAILROOM_POSTGRES_SOCKET"] else {
    complain("usage: Scripts/with-postgres.sh LinkBenchmark [--quick] (MAILROOM_POSTGRES_SOCKET is not set)")
    exit(2)
}
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "--receiver":
    exit(await receive(group: arguments.dropFirst().first ?? "bench", socket: socket, logger: logger))
case "--catch-up":
    exit(await catchUp(Array(arguments.dropFirst()), socket: socket, logger: logger))
default:
    let chart = arguments.firstIndex(of: "--chart").flatMap { arguments.dropFirst($0 + 1).first }
    let benchmark = Benchmark(sizes: arguments.contains("--quick") ? .quick : .full, socket: socket, logger: logger)
    exit(await benchmark.run(chart: chart))
}
#else
print("LinkBenchmark needs the Postgres and Observability traits: swift run --enable-all-traits LinkBenchmark")
#endif
