#if Observability
import CoreMetrics
import Instrumentation
import Logging
import Mailroom
import Tracing

/// A `MailInstrumentation` for swift-distributed-tracing, swift-log and swift-metrics: every recipient runs in its
/// poster's `ServiceContext`, failures and undelivered mail are logged (rate limited), and posts, deliveries,
/// failures and waits are counted.
///
/// ```swift
/// let office = PostOffice(instrumentation: MailTelemetry(logger: logger))
/// ```
///
/// - **Context**: a deferred delivery (on a queue, the main actor, a task, or in a sequence's `receive`) runs with
///   `ServiceContext.current` set to the poster's, as it was at the post; a delivery whose poster had none runs
///   with none, whatever the thread or task it runs on had. Synchronous deliveries run inside the post, so they
///   have it already.
/// - **Spans**, with ``Configuration/spansForDeferredDeliveries``: each deferred delivery runs in a consumer span
///   named after its mail type (its `mail_type` label value), a child of the span current at the post and linked
///   to it, with the attributes `mailroom.mail_type`, `mailroom.delivery.place` and (but for a sequence's)
///   `mailroom.recipient`; a failure of its handler is recorded on it, with the error status.
///   `ServiceContext.current` in the handler is the span's context.
/// - **Logs**: one line per failure at ``Configuration/failureLogLevel`` (`Mail recipient threw`) and per
///   undelivered mail at ``Configuration/undeliveredLogLevel`` (`Mail reached no recipient`), at most one per kind
///   per ``Configuration/logInterval``, with the metadata `mailroom.mail_type`, `mailroom.recipient`,
///   `mailroom.error`, `mailroom.error_type`, `mailroom.sender_type` (undelivered mail with a sender),
///   `mailroom.suppressed` (the lines of that kind held back since the last one) and, on the shared overflow
///   kind's lines, `mailroom.overflow`.
/// - **Metrics**:
///   - `mailroom_posts`, a `Counter` by `mail_type`: every post, the office's own posts of `DeliveryFailure` and
///     `UndeliveredMail` included.
///   - `mailroom_deliveries`, a `Counter` by `mail_type` and `place`: each synchronous delivery, before its
///     handler, and each deferred delivery, when its handler starts.
///   - `mailroom_failures`, a `Counter` by `mail_type` and `error_type`: each handler that threw.
///   - `mailroom_undelivered`, a `Counter` by `mail_type`: each post that reached no recipient.
///   - `mailroom_delivery_wait`, a `Timer` by `mail_type` and `place`, in nanoseconds: for each deferred delivery,
///     the time from its post to the start of its handler.
///
///   `mail_type` and `error_type` are module-qualified type names (`String(reflecting:)`) for the first
///   ``Configuration/mailTypeLabelLimit`` and ``Configuration/errorTypeLabelLimit`` distinct types, and `"other"`
///   for every later one; `place` is one of `posting_thread`, `queue`, `main_actor`, `task`, `sequence`,
///   `for_await_loop`. Each metric object is made once per label set through the factory, and kept.
///
/// The logger, factory and tracer are the ones given here, never the globals at the time of a post: make the
/// telemetry after bootstrapping. Copies share their metric objects and rate limits. Every method may be called
/// on many threads at once.
public struct MailTelemetry: MailInstrumentation {
    /// What each deferred delivery carries from its post.
    public typealias Context = PostContext

    /// The configuration it was made with.
    public let configuration: Configuration
    private let tracer: any Tracer
    private let clock: TelemetryClock
    private let metrics: MailMetrics
    private let log: MailLog

    /// Telemetry that logs to `logger`, makes its metrics through `metricsFactory` and its spans with `tracer`.
    ///
    /// - Parameters:
    ///   - logger: Where failures and undelivered mail are logged. By default the task-local `Logger.current` at
    ///     this call, as swift-log recommends for libraries: the logger bound with `withLogger`, or the one
    ///     `LoggingSystem` made.
    ///   - metricsFactory: What makes the metrics. By default `MetricsSystem.factory` at this call.
    ///   - tracer: What makes the spans of deferred deliveries, when they are on. By default
    ///     `InstrumentationSystem.tracer` at this call.
    ///   - configuration: Spans, log levels, the log's rate limit and the label limits; see ``Configuration``.
    public init(
        logger: Logger = .current,
        metricsFactory: any MetricsFactory = MetricsSystem.factory,
        tracer: any Tracer = InstrumentationSystem.tracer,
        configuration: Configuration = Configuration()
    ) {
        self.init(
            logger: logger, metricsFactory: metricsFactory, tracer: tracer, configuration: configuration,
            clock: .continuous)
    }

    /// Telemetry that reads the time from `clock`: tests move it by hand.
    init(
        logger: Logger, metricsFactory: any MetricsFactory, tracer: any Tracer, configuration: Configuration,
        clock: TelemetryClock
    ) {
        self.configuration = configuration
        self.tracer = tracer
        self.clock = clock
        metrics = MailMetrics(
            factory: metricsFactory, mailTypeLabelLimit: configuration.mailTypeLabelLimit,
            errorTypeLabelLimit: configuration.errorTypeLabelLimit)
        log = MailLog(logger: logger, configuration: configuration, clock: clock)
    }

    /// The logger that failures and undelivered mail are logged to.
    public var logger: Logger { log.logger }

    /// Counts the post in `mailroom_posts`.
    public func posted(_ mailType: any Mail.Type) {
        metrics.posts(mailType).increment()
    }

    /// Counts the synchronous delivery in `mailroom_deliveries`.
    public func delivered(_ delivery: Delivery) {
        metrics.deliveries(delivery).increment()
    }

    /// Captures the poster's `ServiceContext.current` and the time of the post.
    public func capture(_ delivery: Delivery) -> PostContext {
        PostContext(serviceContext: ServiceContext.current, postedAt: clock.now())
    }

    /// Counts the delivery and its wait, then runs `handler` in the poster's context, or in the delivery's span
    /// when spans are on (the span ends when `handler` returns).
    public func run(_ delivery: Delivery, in context: PostContext, _ handler: () -> Void) {
        guard let span = start(delivery, in: context) else {
            return ServiceContext.withValue(context.serviceContext, operation: handler)
        }
        defer { span.span.end() }
        ServiceContext.withValue(span.span.context) {
            DeliverySpan.$current.withValue(span, operation: handler)
        }
    }

    /// Counts the delivery and its wait, then runs `handler` on `isolation` in the poster's context, or in the
    /// delivery's span when spans are on (the span ends when `handler` returns).
    public func run(
        _ delivery: Delivery, in context: PostContext, isolation: isolated (any Actor)?, _ handler: () async -> Void
    ) async {
        guard let span = start(delivery, in: context) else {
            return await ServiceContext.withValue(context.serviceContext, isolation: isolation, operation: handler)
        }
        defer { span.span.end() }
        await ServiceContext.withValue(span.span.context, isolation: isolation) {
            await DeliverySpan.$current.withValue(span, operation: handler, isolation: isolation)
        }
    }

    /// Counts the failure in `mailroom_failures`, records it on the delivery's span if it has one, and logs it
    /// (rate limited).
    public func failed(_ failure: DeliveryFailure) {
        metrics.failures(type(of: failure.mail), type(of: failure.error)).increment()
        DeliverySpan.current?.record(failure)
        log.failed(failure)
    }

    /// Counts the mail in `mailroom_undelivered` and logs it (rate limited).
    public func undelivered(_ report: UndeliveredMail) {
        metrics.undelivered(type(of: report.mail)).increment()
        log.undelivered(report)
    }

    /// Counts a deferred delivery that starts and the time it waited; starts its span when spans are on.
    private func start(_ delivery: Delivery, in context: PostContext) -> DeliverySpan? {
        let (deliveries, wait, mailTypeLabel) = metrics.deferred(delivery)
        deliveries.increment()
        wait.recordNanoseconds((clock.now() - context.postedAt).wholeNanoseconds)
        // A `for await` loop's take runs no handler: its body runs later, in the loop's own task.
        guard configuration.spansForDeferredDeliveries, delivery.place != .forAwaitLoop else { return nil }
        return DeliverySpan.start(delivery, named: mailTypeLabel, in: context.serviceContext, tracer: tracer)
    }
}
#endif
