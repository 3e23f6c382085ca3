import Dispatch

/// Registering for every mail of a protocol, and for all mail.
///
/// A registration for a protocol receives every posted mail whose type conforms to it; `any Mail` receives
/// everything posted to the office: a wiretap for logging and debugging, which does not count as a recipient
/// (mail only a wiretap saw is still reported as ``UndeliveredMail``, and wiretaps do not see those reports).
/// Which posted types conform is worked out on the first post of each type and remembered, so these
/// registrations cost nothing to posts of types that do not conform. (Registering one makes the office rebuild, on the next post of each kind, what it
/// remembered: do it at startup rather than in a loop.) They are delivered on the posting thread or on a queue.
extension PostOffice {
    /// Registers `handler` for every posted mail whose type conforms to the protocol `P`, whatever its sender.
    ///
    /// ```swift
    /// protocol Alert: Mail { var message: String { get } }
    /// office.register(conformingTo: Alert.self) { alert in banner.show(alert.message) }
    /// ```
    /// `P` is the protocol's existential type (`Alert.self` is `(any Alert).self`). The test is the cast
    /// `mail is P`, so any protocol works (`CustomStringConvertible.self` receives the mail that adopts it), and
    /// so does a concrete type (it then receives that type and, for a class, its subclasses).
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<P>(
        queue: DispatchQueue? = nil,
        conformingTo protocolType: P.Type,
        _ handler: @escaping @Sendable (P) -> Void
    ) -> RecipientId {
        enroll(Registration(conformingTo: P.self, queue: queue) { mail, _ in handler(mail) })
    }

    /// Registers `handler` for every mail conforming to `P` posted with no sender (it receives `nil`) or with a
    /// sender of class `S` or a subclass.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<P, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        conformingTo protocolType: P.Type,
        _ handler: @escaping @Sendable (P, S?) -> Void
    ) -> RecipientId {
        enroll(
            Registration(conformingTo: P.self, senders: .kind(S.self, orNoSender: true), queue: queue) {
                mail, sender in handler(mail, sender.knownOrNil(as: S.self))
            }
        )
    }

    /// Registers `handler` for every mail conforming to `P` posted by exactly `sender` (held weakly).
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<P, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        sender: S,
        conformingTo protocolType: P.Type,
        _ handler: @escaping @Sendable (P) -> Void
    ) -> RecipientId {
        enroll(Registration(conformingTo: P.self, exactSender: sender, queue: queue) { mail, _ in handler(mail) })
    }

    /// Registers `handler` for all mail posted to the office, whatever its type and sender.
    ///
    /// ```swift
    /// office.register { (mail: any Mail) in logger.debug("posted \(mail)") }
    /// ```
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register(
        queue: DispatchQueue? = nil,
        _ handler: @escaping @Sendable (any Mail) -> Void
    ) -> RecipientId {
        register(queue: queue, conformingTo: (any Mail).self, handler)
    }

    /// Registers `handler` for all mail posted to the office; it also receives the post's sender, if any.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register(
        queue: DispatchQueue? = nil,
        _ handler: @escaping @Sendable (any Mail, (any AnyObject & Sendable)?) -> Void
    ) -> RecipientId {
        enroll(Registration(conformingTo: (any Mail).self, queue: queue) { mail, sender in handler(mail, sender) })
    }
}
