#if Observability
// A small server-style flow: a request handler starts a span and posts `OrderPlaced` from inside it; a queued
// recipient and an actor log in the request's trace; one recipient fails once. Then it prints the log lines, the
// spans and the metrics, from the libraries' in-memory backends, so that the output shows the context flowing:
// the recipients' lines carry their request's trace, and each deferred delivery has a span in it. Each request
// also posts `OrderShipped`, which nobody receives: the second one's log line is held back by the rate limit,
// while `mailroom_undelivered` counts both.
//
// Run: swift run ObservabilityExample

import Dispatch
import InMemoryLogging
import InMemoryTracing
import Logging
import Mailroom
import MailroomObservability
import MetricsTestKit
import Tracing

struct OrderPlaced: Mail {
    let id: Int
    let item: String
}

struct OrderShipped: Mail {
    let id: Int
}

struct PaymentDeclined: Error, CustomStringConvertible {
    let order: Int

    var description: String { "payment declined for order \(order)" }
}

/// Sends the confirmation mails, one at a time.
actor Mailer {
    let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    func confirm(_ order: OrderPlaced) {
        logger.info("Sending confirmation", metadata: ["order": "\(order.id)"])
    }
}

/// The in-memory backends the example prints from.
struct Backends {
    let tracer = InMemoryTracer()
    let logs = InMemoryLogHandler()
    let metrics = TestMetrics()

    /// A logger into `logs` that adds to each line the trace of `ServiceContext.current` and its active span.
    var logger: Logger {
        let tracer = tracer
        var handler = logs
        handler.metadataProvider = Logger.MetadataProvider {
            guard let context = ServiceContext.current, let span = context.inMemorySpanContext else { return [:] }
            let name = tracer.activeSpan(identifiedBy: context)?.operationName ?? "?"
            return ["trace": "\(span.traceID)", "span": "\(name)"]
        }
        var logger = Logger(label: "shop", factory: { _ in handler })
        logger.logLevel = .debug
        return logger
    }
}

func runExample() async {
    let backends = Backends()
    let logger = backends.logger
    let telemetry = MailTelemetry(
        logger: logger, metricsFactory: backends.metrics, tracer: backends.tracer,
        configuration: MailTelemetry.Configuration(spansForDeferredDeliveries: true, undeliveredLogLevel: .debug))
    // The telemetry logs every failure already: no need for the office's line on standard error.
    let office = PostOffice(instrumentation: telemetry, unheardFailures: { _ in })

    office.register(queue: DispatchQueue(label: "warehouse")) { (order: OrderPlaced) in
        logger.info("Reserving stock", metadata: ["order": "\(order.id)", "item": "\(order.item)"])
    }
    let mailer = Mailer(logger: logger)
    office.register(mailer) { (mailer: isolated Mailer, order: OrderPlaced) in mailer.confirm(order) }
    office.register(queue: DispatchQueue(label: "payments")) { (order: OrderPlaced) throws(PaymentDeclined) in
        if order.id == 1 {
            throw PaymentDeclined(order: order.id)
        }
    }

    /// What a web framework's route would do: a server span around the work, which posts and waits.
    func handleRequest(order: Int, item: String) async {
        await backends.tracer.withSpan("POST /orders", ofKind: .server) { _ in
            logger.info("Placing order", metadata: ["order": "\(order)"])
            do throws(DeliveryFailures) {
                try await office.deliver(OrderPlaced(id: order, item: item))
                logger.info("Order placed", metadata: ["order": "\(order)"])
            } catch {
                logger.info("Order placed, a recipient failed", metadata: ["failures": "\(error.failures.count)"])
            }
            office.post(OrderShipped(id: order))
        }
    }

    await handleRequest(order: 1, item: "teapot")
    await handleRequest(order: 2, item: "kettle")

    printLogs(backends.logs.entries)
    printSpans(backends.tracer.finishedSpans)
    printMetrics(backends.metrics)
}

/// The lines in a fixed order: by request, then in the order of the flow (the recipients run concurrently).
func printLogs(_ entries: [InMemoryLogHandler.Entry]) {
    let flow = [
        "Placing order", "Reserving stock", "Sending confirmation", "Mail recipient threw", "Order placed",
        "Order placed, a recipient failed", "Mail reached no recipient",
    ]
    func rank(_ entry: InMemoryLogHandler.Entry) -> (String, Int) {
        ("\(entry.metadata["trace"] ?? "")", flow.firstIndex(of: "\(entry.message)") ?? flow.count)
    }
    print("Log lines:")
    for entry in entries.sorted(by: { rank($0) < rank($1) }) {
        let metadata = entry.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        print("  [\(entry.level)] \(entry.message)  \(metadata.joined(separator: " "))")
    }
}

/// The spans, by trace, each with its parent and links named, not numbered (the ids depend on thread timing).
func printSpans(_ spans: [FinishedInMemorySpan]) {
    let names = Dictionary(spans.map { ($0.spanID, $0.operationName) }, uniquingKeysWith: { first, _ in first })
    var lines: [(trace: String, isChild: Int, text: String)] = []
    for span in spans {
        var text = "\(span.operationName) (\(span.kind))"
        if case .string(let place) = span.attributes.get("mailroom.delivery.place") {
            text += " place=\(place)"
        }
        if let parent = span.parentSpanID {
            text += " parent=\(names[parent] ?? parent)"
        }
        for link in span.links {
            text += " link=\(link.context.inMemorySpanContext.map { names[$0.spanID] ?? $0.spanID } ?? "?")"
        }
        if let error = span.errors.first {
            text += " error=\"\(error.error)\""
        }
        lines.append((span.traceID, span.parentSpanID == nil ? 0 : 1, text))
    }
    print("Spans:")
    for line in lines.sorted(by: { ($0.trace, $0.isChild, $0.text) < ($1.trace, $1.isChild, $1.text) }) {
        print("  \(line.trace) \(line.text)")
    }
}

/// Every counter's total, and how many waits each timer recorded (their values depend on thread timing).
func printMetrics(_ metrics: TestMetrics) {
    func dimensions(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }
    print("Metrics:")
    let counters = metrics.counters.map { "  \($0.label) \(dimensions($0.dimensions)): \($0.totalValue)" }
    for line in counters.sorted() {
        print(line)
    }
    let timers = metrics.timers.map { "  \($0.label) \(dimensions($0.dimensions)): \($0.values.count) waits" }
    for line in timers.sorted() {
        print(line)
    }
}

await runExample()
#else
print("ObservabilityExample needs the Observability trait: swift run --traits Observability ObservabilityExample")
#endif
