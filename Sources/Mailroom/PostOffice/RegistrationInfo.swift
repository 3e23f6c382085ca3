import Dispatch

/// A description of one registration, for debugging who listens to what: see ``PostOffice/registrations``.
public struct RegistrationInfo: Sendable, CustomStringConvertible {
    /// Which posts' senders the registration accepts.
    public enum Senders: Sendable, Equatable {
        /// Every post of its mail type, with or without a sender.
        case any
        /// Posts with a sender of the named class or a subclass; also those without a sender when `orNone`.
        case ofClass(String, orNone: Bool)
        /// Posts from one sender, an instance of the named class.
        case exactly(String)
    }

    /// The id that unregisters it.
    public let id: RecipientId
    /// The mail type it is registered for, as Swift names it: `CartChanged`, `any Alert`, `any Mail`.
    public let mailType: String
    /// Which senders' posts it accepts.
    public let senders: Senders
    /// Where its handler runs: ``Delivery/Place/postingThread`` (before `post` returns), ``Delivery/Place/queue``
    /// (on the dispatch queue that ``queueLabel`` names), ``Delivery/Place/mainActor``, or ``Delivery/Place/task``
    /// (one mail at a time: an `async` handler or an actor).
    public let place: Delivery.Place
    /// The label of the dispatch queue its handler runs on, for ``Delivery/Place/queue``; `nil` for the others.
    public let queueLabel: String?
    /// Its rank among a post's recipients: higher first, then registration order.
    public let priority: Priority
    /// True for an interceptor (made by `intercept`), which may end a post by consuming its mail.
    public let isInterceptor: Bool
    /// The class of its recipient, for a method or actor registration whose recipient is alive; `nil` for a
    /// closure.
    public let recipientType: String?
    /// True for a registration removed after its first delivery.
    public let isOneShot: Bool
    /// True for a registration tied to an owner, removed when the owner deallocates.
    public let isTiedToOwner: Bool

    /// One line: `RecipientId(4): CartChanged from any sender, on the main actor, method of CartViewModel`, with
    /// its priority when it is not ``Priority/normal``.
    public var description: String {
        var parts = ["\(id): \(mailType)"]
        switch senders {
        case .any: parts[0] += " from any sender"
        case .ofClass(let name, let orNone): parts[0] += " from \(name)\(orNone ? " or none" : "")"
        case .exactly(let name): parts[0] += " from one \(name)"
        }
        switch place {
        case .postingThread: parts.append("on the posting thread")
        case .queue: parts.append("on queue \(queueLabel ?? "")")
        case .mainActor: parts.append("on the main actor")
        // A registration's place is never a sequence's: those are for a ``MailSequence``'s deliveries.
        case .task, .sequence, .forAwaitLoop: parts.append("on a task")
        }
        parts.append(recipientType.map { "method of \($0)" } ?? "closure")
        if isInterceptor { parts.append("interceptor") }
        if priority != .normal { parts.append("priority \(priority.value)") }
        if isOneShot { parts.append("one-shot") }
        if isTiedToOwner { parts.append("tied to its owner") }
        return parts.joined(separator: ", ")
    }
}

extension RegistrationInfo {
    init(_ record: RegistrationSlots.Record) {
        id = record.id
        let registration = record.registration
        let typeName = String(describing: registration.registeredType)
        mailType = registration.isForProtocol ? "any \(typeName)" : typeName
        switch registration.senders {
        case .any:
            senders = .any
        case .kind(let kind):
            senders = .ofClass(String(describing: kind.senderType), orNone: kind.orNoSender)
        case .instance:
            senders = .exactly(registration.sender.map { String(describing: type(of: $0)) } ?? "sender that has gone")
        }
        let registered = registration.place
        place = registered.deliveryPlace
        if case .queue(let queue) = registered {
            queueLabel = queue.label
        } else {
            queueLabel = nil
        }
        priority = registration.priority
        isInterceptor = registration.isInterceptor
        recipientType = registration.recipient.map { String(describing: type(of: $0)) }
        isOneShot = registration.isOneShot
        isTiedToOwner = registration.isTied
    }
}
