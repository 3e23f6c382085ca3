import Dispatch

extension Registration {
    /// Where and when a registration's handler runs.
    @usableFromInline
    enum Place: Sendable {
        /// On the posting thread, before `post` returns.
        case now
        /// Asynchronously on a queue, never inline.
        case queue(DispatchQueue)
        /// On the main actor: at once when the post is made on it and none of the registration's mail is
        /// still waiting on the main queue (its ``Lifecycle/backlog``); otherwise through the main queue, in post
        /// order.
        case mainActor
        /// On a task, one mail at a time, in post order (async handlers and actors).
        case serially(Mailbox)

        /// Where a delivery that runs at this place runs, as an instrumentation is told.
        var deliveryPlace: Delivery.Place {
            switch self {
            case .now: .postingThread
            case .queue: .queue
            case .mainActor: .mainActor
            case .serially: .task
            }
        }

        /// On `queue`, or on the posting thread when it is `nil`.
        @inlinable
        static func on(_ queue: DispatchQueue?) -> Place {
            guard let queue else { return .now }
            return .queue(queue)
        }
    }
}
