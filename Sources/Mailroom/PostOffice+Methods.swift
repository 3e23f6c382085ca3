import Dispatch

/// Registering methods of an object.
///
/// Pass the object and one of its methods, unapplied: `office.register(self, Screen.receive)`. The office
/// holds the object weakly: it never keeps it alive, it calls the method only while the object lives, and
/// once the object deallocates its registrations are removed. ``PostOffice/unregister(_:)-(AnyObject)``
/// removes all of an object's method registrations at once.
///
/// The object must be `Sendable`, since the method may be called on the posting thread or on `queue`.
/// A `@MainActor` class's methods are delivered on the main actor instead: see the main-actor forms.
extension PostOffice {
    /// Registers `method` of `recipient` for every posted `M`, whatever its sender.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail>(
        queue: DispatchQueue? = nil,
        _ recipient: R,
        _ method: @escaping @Sendable (R) -> (M) -> Void
    ) -> RecipientId {
        enroll(
            Registration(M.self, recipient: recipient, delivery: .on(queue)) { mail, _, recipient in
                method(recipient.known(as: R.self))(mail.load(as: M.self))
            }
        )
    }

    /// Registers `method` of `recipient` for every `M` posted with a sender of class `S` or a subclass of it.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        _ recipient: R,
        _ method: @escaping @Sendable (R) -> (M, S) -> Void
    ) -> RecipientId {
        enroll(
            Registration(M.self, senders: .kind(S.self, orNoSender: false), recipient: recipient, delivery: .on(queue))
            {
                mail, sender, recipient in
                method(recipient.known(as: R.self))(mail.load(as: M.self), sender.known(as: S.self))
            }
        )
    }

    /// Registers `method` of `recipient` for every `M` posted with no sender (it receives `nil`) or with a
    /// sender of class `S` or a subclass of it.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        _ recipient: R,
        _ method: @escaping @Sendable (R) -> (M, S?) -> Void
    ) -> RecipientId {
        enroll(
            Registration(M.self, senders: .kind(S.self, orNoSender: true), recipient: recipient, delivery: .on(queue)) {
                mail, sender, recipient in
                method(recipient.known(as: R.self))(mail.load(as: M.self), sender.knownOrNil(as: S.self))
            }
        )
    }

    /// Registers a method of `recipient` that takes no arguments, for every posted `M`.
    ///
    /// ```swift
    /// office.register(SignedOut.self, self, Screen.reload)
    /// ```
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail>(
        queue: DispatchQueue? = nil,
        _ mailType: M.Type,
        _ recipient: R,
        _ method: @escaping @Sendable (R) -> () -> Void
    ) -> RecipientId {
        enroll(
            Registration(M.self, recipient: recipient, delivery: .on(queue)) { _, _, recipient in
                method(recipient.known(as: R.self))()
            }
        )
    }

    /// Registers `method` of `recipient` for every `M` posted by exactly `sender` (compared with `===`).
    ///
    /// The office holds both `recipient` and `sender` weakly; once either deallocates, the registration is
    /// gone.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        sender: S,
        _ recipient: R,
        _ method: @escaping @Sendable (R) -> (M) -> Void
    ) -> RecipientId {
        enroll(
            Registration(M.self, exactSender: sender, recipient: recipient, delivery: .on(queue)) {
                mail, _, recipient in
                method(recipient.known(as: R.self))(mail.load(as: M.self))
            }
        )
    }

    /// Registers `method` of `recipient` for every `M` posted by exactly `sender`, which it receives.
    ///
    /// The office holds both `recipient` and `sender` weakly; once either deallocates, the registration is
    /// gone.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        sender: S,
        _ recipient: R,
        _ method: @escaping @Sendable (R) -> (M, S) -> Void
    ) -> RecipientId {
        enroll(
            Registration(M.self, exactSender: sender, recipient: recipient, delivery: .on(queue)) {
                mail, sender, recipient in
                method(recipient.known(as: R.self))(mail.load(as: M.self), sender.known(as: S.self))
            }
        )
    }

    /// Registers a method of `recipient` that takes no arguments, for every `M` posted by exactly `sender`.
    ///
    /// The office holds both `recipient` and `sender` weakly; once either deallocates, the registration is
    /// gone.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        sender: S,
        _ mailType: M.Type,
        _ recipient: R,
        _ method: @escaping @Sendable (R) -> () -> Void
    ) -> RecipientId {
        enroll(
            Registration(M.self, exactSender: sender, recipient: recipient, delivery: .on(queue)) { _, _, recipient in
                method(recipient.known(as: R.self))()
            }
        )
    }
}
