import Dispatch

/// Chooses delivery on the main actor for a closure registration: `office.register(on: .mainActor) { ... }`.
public enum MainActorDelivery: Sendable {
    /// Deliver on the main actor.
    case mainActor
}

/// Registering recipients isolated to the main actor: view models, views, anything `@MainActor`.
///
/// They receive their mail on the main actor: at once, before `post` returns, when the post is made on the main
/// thread; otherwise enqueued to the main actor (through the main queue), in post order. A main-actor method
/// is registered like any other method, `register(self, ViewModel.receive)`, and Mailroom picks these forms
/// for it; a main-actor closure says so with `register(on: .mainActor)`. A main-actor method registered with
/// a `queue:` still runs on the main actor, with a deprecation warning that the queue is ignored; so does a
/// main-actor closure passed to a closure form without `on: .mainActor`, with a warning that names it.
extension PostOffice {
    /// Registers `handler` to run on the main actor for every posted `M`, whatever its sender.
    ///
    /// ```swift
    /// office.register(on: .mainActor) { (change: CartChanged) in self.badge = change.itemCount }
    /// ```
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail>(
        on _: MainActorDelivery,
        _ handler: @escaping @MainActor (M) -> Void
    ) -> RecipientId {
        enroll(
            Registration(M.self, onMainActor: { mail, _, _ in handler(mail) })
        )
    }

    /// Registers `handler` to run on the main actor for every `M` posted with a sender of class `S` or a subclass.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        on _: MainActorDelivery,
        _ handler: @escaping @MainActor (M, S) -> Void
    ) -> RecipientId {
        enroll(
            Registration(
                M.self, senders: .kind(S.self, orNoSender: false),
                onMainActor: { mail, sender, _ in handler(mail, sender.known(as: S.self)) })
        )
    }

    /// Registers `handler` to run on the main actor for every `M` posted with no sender (it receives `nil`) or
    /// with a sender of class `S` or a subclass.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        on _: MainActorDelivery,
        _ handler: @escaping @MainActor (M, S?) -> Void
    ) -> RecipientId {
        enroll(
            Registration(
                M.self, senders: .kind(S.self, orNoSender: true),
                onMainActor: { mail, sender, _ in handler(mail, sender.knownOrNil(as: S.self)) })
        )
    }

    /// Registers `handler` to run on the main actor for every posted `M`, for mail whose contents it does not
    /// need.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail>(
        on _: MainActorDelivery,
        _ mailType: M.Type,
        _ handler: @escaping @MainActor () -> Void
    ) -> RecipientId {
        enroll(
            Registration(M.self, onMainActor: { _, _, _ in handler() })
        )
    }

    /// Registers `handler` to run on the main actor for every `M` posted by exactly `sender`, held weakly.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        on _: MainActorDelivery,
        sender: S,
        _ handler: @escaping @MainActor (M) -> Void
    ) -> RecipientId {
        enroll(
            Registration(M.self, exactSender: sender, onMainActor: { mail, _, _ in handler(mail) })
        )
    }

    /// Registers `handler` to run on the main actor for every `M` posted by exactly `sender`, held weakly, which
    /// it receives.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        on _: MainActorDelivery,
        sender: S,
        _ handler: @escaping @MainActor (M, S) -> Void
    ) -> RecipientId {
        enroll(
            Registration(
                M.self, exactSender: sender,
                onMainActor: { mail, sender, _ in handler(mail, sender.known(as: S.self)) })
        )
    }

    /// Registers `handler` to run on the main actor for every `M` posted by exactly `sender`, held weakly, for
    /// mail whose contents it does not need.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        on _: MainActorDelivery,
        sender: S,
        _ mailType: M.Type,
        _ handler: @escaping @MainActor () -> Void
    ) -> RecipientId {
        enroll(Registration(M.self, exactSender: sender, onMainActor: { _, _, _ in handler() }))
    }

    // MARK: - Main-actor methods

    /// Registers the main-actor `method` of `recipient`, held weakly, for every posted `M`; it runs on the main
    /// actor.
    ///
    /// ```swift
    /// @MainActor final class CartViewModel {
    ///     init(office: PostOffice) { office.register(self, CartViewModel.update) }
    ///     func update(_ change: CartChanged) { ... }
    /// }
    /// ```
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail>(
        _ recipient: R,
        _ method: sending @escaping (R) -> @MainActor (M) -> Void
    ) -> RecipientId {
        enroll(
            Registration(
                M.self, recipient: recipient,
                onMainActor: { mail, _, recipient in method(recipient.known(as: R.self))(mail) })
        )
    }

    /// Registers the main-actor `method` of `recipient`, held weakly, for every `M` posted with a sender of
    /// class `S` or a subclass; it runs on the main actor.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail, S: AnyObject & Sendable>(
        _ recipient: R,
        _ method: sending @escaping (R) -> @MainActor (M, S) -> Void
    ) -> RecipientId {
        enroll(
            Registration(
                M.self, senders: .kind(S.self, orNoSender: false), recipient: recipient,
                onMainActor: { mail, sender, recipient in
                    method(recipient.known(as: R.self))(mail, sender.known(as: S.self))
                })
        )
    }

    /// Registers the main-actor `method` of `recipient`, held weakly, for every `M` posted with no sender (it
    /// receives `nil`) or a sender of class `S` or a subclass; it runs on the main actor.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail, S: AnyObject & Sendable>(
        _ recipient: R,
        _ method: sending @escaping (R) -> @MainActor (M, S?) -> Void
    ) -> RecipientId {
        enroll(
            Registration(
                M.self, senders: .kind(S.self, orNoSender: true), recipient: recipient,
                onMainActor: { mail, sender, recipient in
                    method(recipient.known(as: R.self))(mail, sender.knownOrNil(as: S.self))
                })
        )
    }

    /// Registers a main-actor method of `recipient` that takes no arguments, held weakly, for every posted `M`;
    /// it runs on the main actor.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail>(
        _ mailType: M.Type,
        _ recipient: R,
        _ method: sending @escaping (R) -> @MainActor () -> Void
    ) -> RecipientId {
        enroll(
            Registration(
                M.self, recipient: recipient, onMainActor: { _, _, recipient in method(recipient.known(as: R.self))() })
        )
    }

    /// Registers the main-actor `method` of `recipient` for every `M` posted by exactly `sender`; both are
    /// held weakly, and it runs on the main actor.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail, S: AnyObject & Sendable>(
        sender: S,
        _ recipient: R,
        _ method: sending @escaping (R) -> @MainActor (M) -> Void
    ) -> RecipientId {
        enroll(
            Registration(
                M.self, exactSender: sender, recipient: recipient,
                onMainActor: { mail, _, recipient in method(recipient.known(as: R.self))(mail) })
        )
    }

    /// Registers the main-actor `method` of `recipient` for every `M` posted by exactly `sender`, which it
    /// receives; both are held weakly, and it runs on the main actor.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail, S: AnyObject & Sendable>(
        sender: S,
        _ recipient: R,
        _ method: sending @escaping (R) -> @MainActor (M, S) -> Void
    ) -> RecipientId {
        enroll(
            Registration(
                M.self, exactSender: sender, recipient: recipient,
                onMainActor: { mail, sender, recipient in
                    method(recipient.known(as: R.self))(mail, sender.known(as: S.self))
                })
        )
    }

    /// Registers a main-actor method of `recipient` that takes no arguments, for every `M` posted by exactly
    /// `sender`; both are held weakly, and it runs on the main actor.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail, S: AnyObject & Sendable>(
        sender: S,
        _ mailType: M.Type,
        _ recipient: R,
        _ method: sending @escaping (R) -> @MainActor () -> Void
    ) -> RecipientId {
        enroll(
            Registration(
                M.self, exactSender: sender, recipient: recipient,
                onMainActor: { _, _, recipient in method(recipient.known(as: R.self))() })
        )
    }
}

/// A main-actor method is delivered on the main actor, whatever queue is asked for.
///
/// Without these forms, Swift would convert a main-actor method passed with `queue:` to a non-isolated one,
/// silently, and it would run on that queue, off the main actor. With them, Swift picks a main-actor form, warns
/// that `queue:` is ignored (an error when warnings are errors), and the method still runs on the main actor.
extension PostOffice {
    /// Deprecated: a main-actor method is delivered on the main actor; `queue` is ignored. Remove `queue:`.
    @available(*, deprecated, message: "a @MainActor method is delivered on the main actor: `queue:` is ignored")
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail>(
        queue: DispatchQueue?,
        _ recipient: R,
        _ method: sending @escaping (R) -> @MainActor (M) -> Void
    ) -> RecipientId {
        register(recipient, method)
    }

    /// Deprecated: a main-actor method is delivered on the main actor; `queue` is ignored. Remove `queue:`.
    @available(*, deprecated, message: "a @MainActor method is delivered on the main actor: `queue:` is ignored")
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue?,
        _ recipient: R,
        _ method: sending @escaping (R) -> @MainActor (M, S) -> Void
    ) -> RecipientId {
        register(recipient, method)
    }

    /// Deprecated: a main-actor method is delivered on the main actor; `queue` is ignored. Remove `queue:`.
    @available(*, deprecated, message: "a @MainActor method is delivered on the main actor: `queue:` is ignored")
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue?,
        _ recipient: R,
        _ method: sending @escaping (R) -> @MainActor (M, S?) -> Void
    ) -> RecipientId {
        register(recipient, method)
    }

    /// Deprecated: a main-actor method is delivered on the main actor; `queue` is ignored. Remove `queue:`.
    @available(*, deprecated, message: "a @MainActor method is delivered on the main actor: `queue:` is ignored")
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail>(
        queue: DispatchQueue?,
        _ mailType: M.Type,
        _ recipient: R,
        _ method: sending @escaping (R) -> @MainActor () -> Void
    ) -> RecipientId {
        register(mailType, recipient, method)
    }

    /// Deprecated: a main-actor method is delivered on the main actor; `queue` is ignored. Remove `queue:`.
    @available(*, deprecated, message: "a @MainActor method is delivered on the main actor: `queue:` is ignored")
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue?,
        sender: S,
        _ recipient: R,
        _ method: sending @escaping (R) -> @MainActor (M) -> Void
    ) -> RecipientId {
        register(sender: sender, recipient, method)
    }

    /// Deprecated: a main-actor method is delivered on the main actor; `queue` is ignored. Remove `queue:`.
    @available(*, deprecated, message: "a @MainActor method is delivered on the main actor: `queue:` is ignored")
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue?,
        sender: S,
        _ recipient: R,
        _ method: sending @escaping (R) -> @MainActor (M, S) -> Void
    ) -> RecipientId {
        register(sender: sender, recipient, method)
    }

    /// Deprecated: a main-actor method is delivered on the main actor; `queue` is ignored. Remove `queue:`.
    @available(*, deprecated, message: "a @MainActor method is delivered on the main actor: `queue:` is ignored")
    @inlinable @discardableResult
    public func register<R: AnyObject & Sendable, M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue?,
        sender: S,
        _ mailType: M.Type,
        _ recipient: R,
        _ method: sending @escaping (R) -> @MainActor () -> Void
    ) -> RecipientId {
        register(sender: sender, mailType, recipient, method)
    }
}

/// A main-actor closure is delivered on the main actor, whichever closure form it is passed to.
///
/// A closure or function value whose type is `@MainActor`, passed to a form without `on: .mainActor` (with or
/// without `queue:`), would otherwise be converted to a non-isolated one: an error in Swift 6 language mode, but
/// only a warning in Swift 5 mode, where it would then run off the main actor. Swift picks these forms for it
/// instead, in both modes: it runs on the main actor, exactly as with `on: .mainActor`, `queue` is ignored, and
/// a deprecation warning names the form to write. The handler is `sending` rather than `@Sendable` so that Swift
/// 5 mode prefers these forms over the plain ones for a main-actor value, whose type there is not `@Sendable`.
extension PostOffice {
    /// Deprecated: a `@MainActor` closure is delivered on the main actor; write `register(on: .mainActor)`.
    @available(
        *, deprecated,
        message: "a @MainActor closure is delivered on the main actor: write register(on: .mainActor) { ... }"
    )
    @inlinable @discardableResult
    public func register<M: Mail>(
        queue: DispatchQueue? = nil,
        _ handler: sending @escaping @MainActor (M) -> Void
    ) -> RecipientId {
        register(on: .mainActor, handler)
    }

    /// Deprecated: a `@MainActor` closure is delivered on the main actor; write `register(on: .mainActor)`.
    @available(
        *, deprecated,
        message: "a @MainActor closure is delivered on the main actor: write register(on: .mainActor) { ... }"
    )
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        _ handler: sending @escaping @MainActor (M, S) -> Void
    ) -> RecipientId {
        register(on: .mainActor, handler)
    }

    /// Deprecated: a `@MainActor` closure is delivered on the main actor; write `register(on: .mainActor)`.
    @available(
        *, deprecated,
        message: "a @MainActor closure is delivered on the main actor: write register(on: .mainActor) { ... }"
    )
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        _ handler: sending @escaping @MainActor (M, S?) -> Void
    ) -> RecipientId {
        register(on: .mainActor, handler)
    }

    /// Deprecated: a `@MainActor` closure is delivered on the main actor; write `register(on: .mainActor)`.
    @available(
        *, deprecated,
        message: "a @MainActor closure is delivered on the main actor: write register(on: .mainActor) { ... }"
    )
    @inlinable @discardableResult
    public func register<M: Mail>(
        queue: DispatchQueue? = nil,
        _ mailType: M.Type,
        _ handler: sending @escaping @MainActor () -> Void
    ) -> RecipientId {
        register(on: .mainActor, mailType, handler)
    }

    /// Deprecated: a `@MainActor` closure is delivered on the main actor; write `register(on: .mainActor)`.
    @available(
        *, deprecated,
        message: "a @MainActor closure is delivered on the main actor: write register(on: .mainActor) { ... }"
    )
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        sender: S,
        _ handler: sending @escaping @MainActor (M) -> Void
    ) -> RecipientId {
        register(on: .mainActor, sender: sender, handler)
    }

    /// Deprecated: a `@MainActor` closure is delivered on the main actor; write `register(on: .mainActor)`.
    @available(
        *, deprecated,
        message: "a @MainActor closure is delivered on the main actor: write register(on: .mainActor) { ... }"
    )
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        sender: S,
        _ handler: sending @escaping @MainActor (M, S) -> Void
    ) -> RecipientId {
        register(on: .mainActor, sender: sender, handler)
    }

    /// Deprecated: a `@MainActor` closure is delivered on the main actor; write `register(on: .mainActor)`.
    @available(
        *, deprecated,
        message: "a @MainActor closure is delivered on the main actor: write register(on: .mainActor) { ... }"
    )
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        queue: DispatchQueue? = nil,
        sender: S,
        _ mailType: M.Type,
        _ handler: sending @escaping @MainActor () -> Void
    ) -> RecipientId {
        register(on: .mainActor, sender: sender, mailType, handler)
    }
}
