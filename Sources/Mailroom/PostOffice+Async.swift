/// Registering handlers that suspend, actors, and waiting for a delivery.
///
/// An `async` closure or an actor receives its mail on a task, one mail at a time, in post order: the next
/// mail waits until the handler returned for the previous one, so a registration never runs concurrently with
/// itself. `post` does not wait for them; ``deliver(_:)`` does.
extension PostOffice {
    /// Registers an `async` `handler` for every posted `M`, whatever its sender.
    ///
    /// ```swift
    /// office.register { (order: OrderPlaced) async in await ledger.record(order) }
    /// ```
    /// Each mail is handled after the previous one, in post order, on a task; `post` does not wait.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail>(_ handler: @escaping @Sendable (M) async -> Void) -> RecipientId {
        enroll(
            Registration(M.self, suspending: { mail, _, _ in await handler(mail) })
        )
    }

    /// Registers an `async` `handler` for every `M` posted with a sender of class `S` or a subclass; one mail at
    /// a time, in post order.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        _ handler: @escaping @Sendable (M, S) async -> Void
    ) -> RecipientId {
        enroll(
            Registration(
                M.self, senders: .kind(S.self, orNoSender: false),
                suspending: { mail, sender, _ in await handler(mail, sender.known(as: S.self)) })
        )
    }

    /// Registers an `async` `handler` for every `M` posted with no sender (it receives `nil`) or a sender of
    /// class `S` or a subclass; one mail at a time, in post order.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        _ handler: @escaping @Sendable (M, S?) async -> Void
    ) -> RecipientId {
        enroll(
            Registration(
                M.self, senders: .kind(S.self, orNoSender: true),
                suspending: { mail, sender, _ in await handler(mail, sender.knownOrNil(as: S.self)) })
        )
    }

    /// Registers an `async` `handler` for every `M` posted by exactly `sender`, held weakly; one mail at a
    /// time, in post order.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<M: Mail, S: AnyObject & Sendable>(
        sender: S,
        _ handler: @escaping @Sendable (M) async -> Void
    ) -> RecipientId {
        enroll(
            Registration(M.self, exactSender: sender, suspending: { mail, _, _ in await handler(mail) })
        )
    }

    // MARK: - Actors

    /// Registers `actor`, held weakly, to receive every posted `M` on itself: `handler` runs isolated to the
    /// actor, one mail at a time, in post order.
    ///
    /// ```swift
    /// actor Store {
    ///     init(office: PostOffice) { office.register(self) { store, change in store.apply(change) } }
    ///     func apply(_ change: CartChanged) { ... }
    /// }
    /// ```
    /// Swift does not let a synchronous actor method be passed unapplied (`Store.apply`), so the actor comes
    /// as the closure's isolated parameter; the closure must not capture the actor itself, or the office would
    /// keep it alive. Once the actor deinitializes, mail still waiting for it is dropped.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<A: Actor, M: Mail>(
        _ actor: A,
        _ handler: @escaping @Sendable (isolated A, M) -> Void
    ) -> RecipientId {
        enroll(
            Registration(
                M.self, recipient: actor,
                suspending: { mail, _, recipient in await Self.run(handler, on: recipient.known(as: A.self), with: mail)
                })
        )
    }

    /// Registers `actor`, held weakly, to receive every `M` posted by exactly `sender` (held weakly) on itself,
    /// one mail at a time, in post order.
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<A: Actor, M: Mail, S: AnyObject & Sendable>(
        sender: S,
        _ actor: A,
        _ handler: @escaping @Sendable (isolated A, M) -> Void
    ) -> RecipientId {
        enroll(
            Registration(
                M.self, exactSender: sender, recipient: actor,
                suspending: { mail, _, recipient in await Self.run(handler, on: recipient.known(as: A.self), with: mail)
                })
        )
    }

    /// Registers the `async` actor-isolated `method` of `actor`, held weakly, for every posted `M`: it runs on
    /// the actor, one mail at a time, in post order.
    ///
    /// ```swift
    /// office.register(store, Store.record)   // actor Store { func record(_ order: OrderPlaced) async }
    /// ```
    /// - Returns: The id that unregisters it.
    @inlinable @discardableResult
    public func register<A: Actor, M: Mail>(
        _ actor: A,
        _ method: @escaping @Sendable (isolated A) -> (M) async -> Void
    ) -> RecipientId {
        enroll(
            Registration(
                M.self, recipient: actor,
                suspending: { mail, _, recipient in await Self.run(method, on: recipient.known(as: A.self), with: mail)
                })
        )
    }

    @inlinable
    static func run<A: Actor, M>(_ handler: (isolated A, M) -> Void, on actor: isolated A, with mail: M) {
        handler(actor, mail)
    }

    @inlinable
    static func run<A: Actor, M>(_ method: (isolated A) -> (M) async -> Void, on actor: isolated A, with mail: M) async
    {
        await method(actor)(mail)
    }

    // MARK: - Waiting for delivery

    /// Posts `mail` like ``post(_:)-8xae0``, then waits until every recipient has handled it: those delivered
    /// on a queue, on the main actor, by an `async` handler or on an actor too.
    ///
    /// What tests and command-line tools need instead of sleeping. A delivery that is dropped (its
    /// registration was removed, or its recipient deallocated, before it ran) counts as handled.
    @inlinable
    public func deliver<M: Mail>(_ mail: M) async {
        await deliver(mail, from: nil)
    }

    /// Posts `mail` from `sender` like ``post(_:sender:)-1bli2``, then waits until every recipient has handled
    /// it, like ``deliver(_:)-1sj9k``.
    @inlinable
    public func deliver<M: Mail, S: AnyObject & Sendable>(_ mail: M, sender: S?) async {
        await deliver(mail, from: sender)
    }

    /// What every `deliver` form comes down to.
    @inlinable
    func deliver<M: Mail>(_ mail: M, from sender: SendableObject?) async {
        let receipt = Receipt()
        send(mail, from: sender, receipt: receipt)
        await receipt.wait()
    }
}
