/// One delivery of posted mail to one recipient, as a ``MailInstrumentation`` sees it.
public struct Delivery: Sendable {
    /// Where a recipient's handler runs.
    public enum Place: Sendable, Hashable {
        /// On the posting thread, during the post: a synchronous closure or method, an interceptor, and a
        /// main-actor recipient when the post is made on the main actor with none of its mail waiting.
        case postingThread
        /// Later, on the recipient's `DispatchQueue`.
        case queue
        /// Later, on the main actor, through the main queue.
        case mainActor
        /// Later, on a task: an async closure or an actor's method.
        case task
        /// Later, in the loop of a ``MailSequence``.
        case sequence
    }

    /// The posted mail's dynamic type (not the registered type, for a registration for a superclass or a
    /// protocol).
    public let mailType: any Mail.Type
    /// Where the handler runs.
    public let place: Place

    /// A delivery of mail of `mailType` that runs at `place`.
    public init(mailType: any Mail.Type, place: Place) {
        self.mailType = mailType
        self.place = place
    }
}
