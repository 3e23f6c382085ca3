import Dispatch

/// Registering closures.
///
/// The office holds a closure strongly until it is unregistered, then releases it. Every form takes an
/// optional `queue`: without one, the closure runs on the posting thread before `post` returns; with one,
/// it runs asynchronously on that queue. The closure is `@Sendable` because posts may come from any thread.
extension PostOffice {
    /// Registers `handler` for every posted `M`, whatever its sender.
    ///
    /// ```swift
    /// office.register { (change: CartChanged) in badge.count = change.itemCount }
    /// ```
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail>(
        queue: DispatchQueue? = nil,
        _ handler: @escaping @Sendable (M) -> Void
    ) -> RecipientId {
        enroll(Registration(M.self, delivery: .on(queue)) { mail, _, _ in handler(mail.load(as: M.self)) })
    }

    /// Registers `handler` for every `M` posted with a sender of class `S` or a subclass of it.
    ///
    /// Mail posted without a sender, or with a sender of another class, does not reach it.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        _ handler: @escaping @Sendable (M, S) -> Void
    ) -> RecipientId {
        enroll(
            Registration(M.self, senders: .kind(S.self, orNoSender: false), delivery: .on(queue)) { mail, sender, _ in
                handler(mail.load(as: M.self), sender.known(as: S.self))
            }
        )
    }

    /// Registers `handler` for every `M` posted with no sender (it receives `nil`) or with a sender of class
    /// `S` or a subclass of it.
    ///
    /// Mail posted with a sender of another class does not reach it.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        _ handler: @escaping @Sendable (M, S?) -> Void
    ) -> RecipientId {
        enroll(
            Registration(M.self, senders: .kind(S.self, orNoSender: true), delivery: .on(queue)) { mail, sender, _ in
                handler(mail.load(as: M.self), sender.knownOrNil(as: S.self))
            }
        )
    }

    /// Registers `handler` for every posted `M`, for mail whose contents the handler does not need.
    ///
    /// ```swift
    /// office.register(SignedOut.self) { clearCaches() }
    /// ```
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail>(
        queue: DispatchQueue? = nil,
        _ mailType: M.Type,
        _ handler: @escaping @Sendable () -> Void
    ) -> RecipientId {
        enroll(Registration(M.self, delivery: .on(queue)) { _, _, _ in handler() })
    }

    /// Registers `handler` for every `M` posted by exactly `sender` (compared with `===`).
    ///
    /// The office holds `sender` weakly; once it deallocates, the registration is gone.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        sender: S,
        _ handler: @escaping @Sendable (M) -> Void
    ) -> RecipientId {
        enroll(
            Registration(M.self, exactSender: sender, delivery: .on(queue)) { mail, _, _ in
                handler(mail.load(as: M.self))
            })
    }

    /// Registers `handler` for every `M` posted by exactly `sender` (compared with `===`), which it receives.
    ///
    /// The office holds `sender` weakly; once it deallocates, the registration is gone.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        sender: S,
        _ handler: @escaping @Sendable (M, S) -> Void
    ) -> RecipientId {
        enroll(
            Registration(M.self, exactSender: sender, delivery: .on(queue)) { mail, sender, _ in
                handler(mail.load(as: M.self), sender.known(as: S.self))
            }
        )
    }

    /// Registers `handler` for every `M` posted by exactly `sender`, for mail whose contents the handler does
    /// not need.
    ///
    /// The office holds `sender` weakly; once it deallocates, the registration is gone.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        sender: S,
        _ mailType: M.Type,
        _ handler: @escaping @Sendable () -> Void
    ) -> RecipientId {
        enroll(Registration(M.self, exactSender: sender, delivery: .on(queue)) { _, _, _ in handler() })
    }
}
