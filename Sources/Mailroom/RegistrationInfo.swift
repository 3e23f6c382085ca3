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

    /// Where the registration's handler runs.
    public enum Delivery: Sendable, Equatable {
        /// On the posting thread, before `post` returns.
        case postingThread
        /// On the dispatch queue with this label.
        case queue(label: String)
        /// On the main actor.
        case mainActor
        /// On a task, one mail at a time (an `async` handler or an actor).
        case task
    }

    /// The id that unregisters it.
    public let id: RecipientId
    /// The mail type it is registered for, as Swift names it: `CartChanged`, `any Alert`, `any Mail`.
    public let mailType: String
    /// Which senders' posts it accepts.
    public let senders: Senders
    /// Where its handler runs.
    public let delivery: Delivery
    /// Its place among a post's recipients: higher first, then registration order.
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
        switch delivery {
        case .postingThread: parts.append("on the posting thread")
        case .queue(let label): parts.append("on queue \(label)")
        case .mainActor: parts.append("on the main actor")
        case .task: parts.append("on a task")
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
        delivery = Self.delivery(of: registration.schedule)
        priority = registration.priority
        isInterceptor = registration.isInterceptor
        recipientType = registration.recipient.map { String(describing: type(of: $0)) }
        isOneShot = registration.isOneShot
        isTiedToOwner = registration.isTied
    }

    private static func delivery(of schedule: Registration.Schedule) -> Delivery {
        switch schedule {
        case .now: .postingThread
        case .queue(let queue): .queue(label: queue.label)
        case .mainActor: .mainActor
        case .serially: .task
        }
    }
}
