#if Observability
import Logging

extension MailTelemetry {
    /// What ``MailTelemetry`` records beyond its defaults, at which log levels, and how much memory it may use.
    ///
    /// Every property has a default, so `Configuration()` is the recommended setup and
    /// `Configuration(spansForDeferredDeliveries: true)` changes one thing.
    public struct Configuration: Sendable {
        /// Whether each deferred delivery (queue, main actor, task, sequence) runs in a span of its own, a child
        /// of its poster's span with a link to it. Default: `false`; the handler then runs in its poster's
        /// `ServiceContext` without a span of its own. Synchronous deliveries never get a span.
        public var spansForDeferredDeliveries: Bool
        /// The level of the line logged when a recipient's handler throws. Default: `.info`, the most severe
        /// level swift-log recommends for libraries.
        public var failureLogLevel: Logger.Level
        /// The level of the line logged when a post reaches no recipient. Default: `.debug`.
        public var undeliveredLogLevel: Logger.Level
        /// The shortest time between two lines of the same kind (a mail type and error type for failures, a
        /// mail type for undelivered mail). Default: 60 seconds.
        public var logInterval: Duration
        /// How many distinct mail types keep their own name in metrics and span names; every later type is
        /// reported as `"other"`. Default: 100.
        public var mailTypeLabelLimit: Int
        /// How many distinct error types keep their own name in the failure metric; every later type is
        /// reported as `"other"`. Default: 100.
        public var errorTypeLabelLimit: Int
        /// How many kinds of failure, and as many kinds of undelivered mail, the log's rate limit tracks on
        /// their own; the kinds beyond share one rate-limited kind. Default: 1000.
        public var logKindLimit: Int

        /// A configuration with the given settings; each one omitted takes its default.
        public init(
            spansForDeferredDeliveries: Bool = false,
            failureLogLevel: Logger.Level = .info,
            undeliveredLogLevel: Logger.Level = .debug,
            logInterval: Duration = .seconds(60),
            mailTypeLabelLimit: Int = 100,
            errorTypeLabelLimit: Int = 100,
            logKindLimit: Int = 1000
        ) {
            self.spansForDeferredDeliveries = spansForDeferredDeliveries
            self.failureLogLevel = failureLogLevel
            self.undeliveredLogLevel = undeliveredLogLevel
            self.logInterval = logInterval
            self.mailTypeLabelLimit = mailTypeLabelLimit
            self.errorTypeLabelLimit = errorTypeLabelLimit
            self.logKindLimit = logKindLimit
        }
    }
}
#endif
