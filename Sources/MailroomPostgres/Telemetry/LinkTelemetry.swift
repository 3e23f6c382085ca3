#if Postgres
#if Observability
import CoreMetrics
import Instrumentation
import Tracing
#endif

/// What a link reports of its own work, and the trace context its mail carries: through its configuration's
/// ``PostgresLink/Telemetry`` with the `Observability` trait; without that trait, nothing: ``receive(_:on:lag:_:)``
/// and ``run(in:_:)`` only call what they are given, and the other methods do nothing.
struct LinkTelemetry: Sendable {
    #if Observability
    private let tracer: any Tracer
    private let spansForReceivedMail: Bool
    private let channels: [String: ChannelMetrics]
    private let unsentGauge: Gauge
    private let reconnects: Counter

    /// The metrics of one channel.
    private struct ChannelMetrics: Sendable {
        let sent: Counter
        let received: Counter
        let caughtUp: Counter
        let missed: Counter
        let malformedContexts: Counter
        let lag: CoreMetrics.Timer

        init(channel: String, factory: any MetricsFactory) {
            let dimensions = [("channel", channel)]
            sent = Counter(label: "mailroom_link_sent", dimensions: dimensions, factory: factory)
            received = Counter(label: "mailroom_link_received", dimensions: dimensions, factory: factory)
            caughtUp = Counter(label: "mailroom_link_caught_up", dimensions: dimensions, factory: factory)
            missed = Counter(label: "mailroom_link_missed", dimensions: dimensions, factory: factory)
            malformedContexts = Counter(
                label: "mailroom_link_malformed_contexts", dimensions: dimensions, factory: factory)
            lag = CoreMetrics.Timer(label: "mailroom_link_lag", dimensions: dimensions, factory: factory)
        }
    }

    /// The names of the received mail's spans' attributes.
    enum Attribute {
        static let channel = "mailroom.channel"
        static let sequence = "mailroom.sequence"
        static let origin = "mailroom.origin"
    }
    #endif

    init(_ configuration: PostgresLink.Configuration, channels: some Sequence<String>) {
        #if Observability
        let telemetry = configuration.telemetry
        tracer = telemetry.tracer
        spansForReceivedMail = telemetry.spansForReceivedMail
        let factory = telemetry.metricsFactory
        self.channels = Dictionary(
            channels.map { ($0, ChannelMetrics(channel: $0, factory: factory)) },
            uniquingKeysWith: { first, _ in first })
        unsentGauge = Gauge(label: "mailroom_link_unsent", factory: factory)
        reconnects = Counter(label: "mailroom_link_reconnects", factory: factory)
        #endif
    }

    /// The caller's `ServiceContext.current` as the tracer injects it, encoded (``Carrier``); `nil` when there is no
    /// context or the tracer injects nothing.
    func carrier() -> String? {
        #if Observability
        guard let context = ServiceContext.current else { return nil }
        var carrier: [String: String] = [:]
        tracer.inject(context, into: &carrier, using: CarrierAccess())
        return carrier.isEmpty ? nil : Carrier.encode(carrier)
        #else
        return nil
        #endif
    }

    /// Counts the mail that `sent` says committed, by channel.
    func sent(_ sent: [String: Int]) {
        #if Observability
        for (channel, count) in sent { channels[channel]?.sent.increment(by: count) }
        #endif
    }

    /// Records the mail waiting to be written.
    func unsent(_ count: Int) {
        #if Observability
        unsentGauge.record(count)
        #endif
    }

    /// Counts a lost listening connection.
    func reconnected() {
        #if Observability
        reconnects.increment()
        #endif
    }

    /// Counts `count` mail of `channel` that the office missed.
    func missed(_ count: Int, on channel: String) {
        #if Observability
        channels[channel]?.missed.increment(by: count)
        #endif
    }

    /// Counts `row`, received on `channel` after `lag`, and calls `post` inside its poster's context (or the span
    /// of the received mail, when those are on).
    func receive(_ row: Outbox.Row, on channel: String, lag: Duration, _ post: () -> Void) {
        #if Observability
        let metrics = channels[channel]
        metrics?.received.increment()
        if row.age != nil { metrics?.caughtUp.increment() }
        metrics?.lag.recordNanoseconds(lag.nanoseconds)
        let context = context(of: row, metrics: metrics)
        if spansForReceivedMail {
            let span = tracer.startSpan(row.linkedName, context: context ?? .topLevel, ofKind: .consumer)
            defer { span.end() }
            if let context { span.addLink(SpanLink(context: context, attributes: [:])) }
            span.updateAttributes { attributes in
                attributes[Attribute.channel] = channel
                attributes[Attribute.sequence] = Int(row.sequence)
                attributes[Attribute.origin] = row.origin
            }
            ServiceContext.withValue(span.context, operation: post)
        } else if let context {
            ServiceContext.withValue(context, operation: post)
        } else {
            post()
        }
        #else
        post()
        #endif
    }

    /// Runs `work` inside the context that `row` carries, if any: for a subscription's recipients. A context
    /// that cannot be read is counted once, when the office receives the mail, not at each attempt here.
    func run<T>(in row: Outbox.Row, _ work: () async throws -> T) async rethrows -> T {
        #if Observability
        if let context = context(of: row, metrics: nil) {
            return try await ServiceContext.withValue(context, operation: work)
        }
        #endif
        return try await work()
    }

    #if Observability
    /// The context `row` carries, extracted by the tracer; `nil` when it carries none, or one that cannot be read
    /// (which is counted).
    private func context(of row: Outbox.Row, metrics: ChannelMetrics?) -> ServiceContext? {
        guard let encoded = row.context else { return nil }
        guard let carrier = Carrier.decode(encoded) else {
            metrics?.malformedContexts.increment()
            return nil
        }
        var context = ServiceContext.topLevel
        tracer.extract(carrier, into: &context, using: CarrierAccess())
        return context
    }
    #endif
}

#if Observability
/// Reads and writes a carrier: the keys and values an instrument injects.
private struct CarrierAccess: Injector, Extractor {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }

    func extract(key: String, from carrier: [String: String]) -> String? {
        carrier[key]
    }
}
#endif
#endif
