#if Observability
// An instrumented office whose telemetry goes to the libraries' own test kits.

import InMemoryLogging
import InMemoryTracing
import Logging
import Mailroom
import MetricsTestKit

@testable import MailroomObservability

/// An office instrumented with a ``MailTelemetry`` that logs to an `InMemoryLogHandler` (every level), makes its
/// metrics with `TestMetrics` and its spans with an `InMemoryTracer`, and reads a ``ManualClock``.
struct Observed {
    let tracer = InMemoryTracer()
    let logs = InMemoryLogHandler()
    let metrics = TestMetrics()
    let clock = ManualClock()
    let telemetry: MailTelemetry
    let office: PostOffice

    init(_ configuration: MailTelemetry.Configuration = MailTelemetry.Configuration()) {
        let logs = logs
        var logger = Logger(label: "test", factory: { _ in logs })
        logger.logLevel = .trace
        telemetry = MailTelemetry(
            logger: logger, metricsFactory: metrics, tracer: tracer, configuration: configuration,
            clock: clock.telemetryClock)
        office = PostOffice(instrumentation: telemetry, unheardFailures: { _ in })
    }

    /// The total of the counter `label` with exactly `dimensions`; 0 if it was never made.
    func count(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
        (try? metrics.expectCounter(label, dimensions).totalValue) ?? 0
    }

    /// The values recorded by the timer `label` with exactly `dimensions`; none if it was never made.
    func timed(_ label: String, _ dimensions: [(String, String)]) -> [Int64] {
        (try? metrics.expectTimer(label, dimensions).values) ?? []
    }
}
#endif
