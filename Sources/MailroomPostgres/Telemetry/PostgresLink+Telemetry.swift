#if Postgres && Observability
import CoreMetrics
import Instrumentation
import Tracing

extension PostgresLink {
    /// Where a link reports its own work, and what carries its posters' trace contexts: a
    /// ``Configuration/telemetry``, with the `Observability` trait.
    ///
    /// **Trace context.** Each carried post takes its poster's `ServiceContext.current` along, injected by
    /// ``tracer`` into a carrier stored with the mail (its outbox row and its notification). The receiving link
    /// extracts it with its own tracer and posts the mail inside it, so the recipients there run in the poster's
    /// trace: synchronous ones during the post, deferred ones when their office is instrumented with
    /// `MailroomObservability`'s `MailTelemetry`, which carries the context to them. A durable subscription's
    /// recipients run in it too. A tracer that injects nothing (the default when no tracer is bootstrapped) adds
    /// nothing to the mail: its row and notification are what they are without this trait. A carrier that cannot be
    /// read is counted in `mailroom_link_malformed_contexts` and its mail is delivered without a context; it is never
    /// dropped.
    ///
    /// **Spans**, with ``spansForReceivedMail``: each mail from another process (or sent here in a transaction) is
    /// posted inside a consumer span named after its ``LinkedMail/linkedName``, a child of the poster's span and
    /// linked to it (a root span when the mail carries no context), with the attributes `mailroom.channel`,
    /// `mailroom.sequence` and `mailroom.origin`. It ends when the post returns, after the synchronous recipients.
    ///
    /// **Metrics**, made once through ``metricsFactory`` when the link is made; `channel` is one of the carried
    /// channels:
    /// - `mailroom_link_sent`, a `Counter` by `channel`: mail this link's sender wrote and knows committed, and
    ///   mail ``PostgresLink/post(_:in:)`` wrote into a caller's transaction (counted when written, whether or not
    ///   that transaction commits).
    /// - `mailroom_link_received`, a `Counter` by `channel`: mail the link posted on its office: every other
    ///   process's, and its own that it sent in a transaction.
    /// - `mailroom_link_caught_up`, a `Counter` by `channel`: the received mail the link read from the outbox, not
    ///   from its notification: mail committed while the link was not listening, and mail too large for a
    ///   notification.
    /// - `mailroom_link_missed`, a `Counter` by `channel`: mail reported missed
    ///   (``PostgresLinkError/Code/missedMail``) on the office, one per mail; a subscription's own reports are not
    ///   counted.
    /// - `mailroom_link_malformed_contexts`, a `Counter` by `channel`: received mail whose carrier could not be
    ///   read, once per mail (a subscription's recipients get such mail without a context too, uncounted).
    /// - `mailroom_link_lag`, a `Timer` by `channel`, in nanoseconds: for each received mail, the time until it is
    ///   posted from its notification's arrival, or, for mail read from the outbox, from its write, by the
    ///   database's clock (a transaction's start, for mail written in one), plus the time since the read.
    /// - `mailroom_link_unsent`, a `Gauge`: ``PostgresLink/unsent`` after each change.
    /// - `mailroom_link_reconnects`, a `Counter`: listening connections lost, each followed by another; the reason
    ///   is logged at `warning`, at most once per ``Configuration/reconnectLogInterval``.
    public struct Telemetry: Sendable {
        /// What makes the link's metrics. Default: `MetricsSystem.factory` when the telemetry is made.
        public var metricsFactory: any MetricsFactory
        /// What injects the posters' contexts, extracts them on arrival, and makes the received mail's spans.
        /// Default: `InstrumentationSystem.tracer` when the telemetry is made.
        public var tracer: any Tracer
        /// Whether each received mail is posted inside a span of its own (see above). Default: `false`; the mail
        /// is then posted in its poster's context, without a span.
        public var spansForReceivedMail: Bool

        /// Telemetry through `metricsFactory` and `tracer`; make it after bootstrapping the metrics and
        /// instrumentation systems to use theirs.
        public init(
            metricsFactory: any MetricsFactory = MetricsSystem.factory,
            tracer: any Tracer = InstrumentationSystem.tracer,
            spansForReceivedMail: Bool = false
        ) {
            self.metricsFactory = metricsFactory
            self.tracer = tracer
            self.spansForReceivedMail = spansForReceivedMail
        }
    }
}
#endif
