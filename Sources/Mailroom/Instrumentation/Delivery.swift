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
        /// Later, in the body of a ``MailSequence``'s ``MailSequence/receive(isolation:_:)``, which `run` wraps. `capture` is
        /// told this place for every mail a sequence buffers: how the mail will be taken is not known yet.
        case sequence
        /// Later, taken by a `for await` loop over a ``MailSequence``: the loop's body runs after the take, in the
        /// loop's own task, so `run` gets an empty handler, as the loop takes the mail.
        case forAwaitLoop
    }

    /// The posted mail's dynamic type (not the registered type, for a registration for a superclass or a
    /// protocol).
    public let mailType: any Mail.Type
    /// The registration delivered to: what a ``DeliveryFailure`` of its handler names as its `recipient`. `nil` for
    /// a ``MailSequence``'s deliveries, whose loop's failures are its own (`receive` throws them).
    public let recipient: RecipientId?
    /// Where the handler runs.
    public let place: Place

    /// A delivery of mail of `mailType` to `recipient` that runs at `place`.
    public init(mailType: any Mail.Type, recipient: RecipientId? = nil, place: Place) {
        self.mailType = mailType
        self.recipient = recipient
        self.place = place
    }
}
