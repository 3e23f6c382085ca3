#if Observability
import Instrumentation

extension MailTelemetry {
    /// What a deferred delivery carries from its post to its handler: the poster's service context and the time
    /// of the post.
    ///
    /// The office makes one for each deferred delivery, on the posting thread, through
    /// ``MailTelemetry/capture(_:)``; you do not make them yourself.
    public struct PostContext: Sendable {
        /// The poster's `ServiceContext.current` at the post, which the handler runs in; `nil` when the poster
        /// had none, and the handler then runs with none either.
        public let serviceContext: ServiceContext?
        /// When the mail was posted, on a monotonic clock: the start of the wait that the
        /// `mailroom_delivery_wait` timer records.
        public let postedAt: ContinuousClock.Instant
    }
}
#endif
