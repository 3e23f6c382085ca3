import Dispatch

extension Registration {
    /// How a registration for a mail type calls its handler: where and when (its ``Schedule``), and the handler
    /// a post calls.
    @usableFromInline
    struct Handling: Sendable {
        @usableFromInline let schedule: Schedule
        @usableFromInline let handler: Handler

        @inlinable
        init(_ schedule: Schedule, _ handler: @escaping Handler) {
            self.schedule = schedule
            self.handler = handler
        }

        /// On the posting thread, before `post` returns, or asynchronously on `queue` when there is one.
        @inlinable
        static func on(_ queue: DispatchQueue?, _ handler: @escaping Handler) -> Handling {
            Handling(.on(queue), handler)
        }

        /// On the main actor: `body` gets the mail, read as `M`, the sender and the recipient, as a handler does.
        @usableFromInline
        static func onMainActor<M: Mail>(
            _ body: @escaping @MainActor (M, SendableObject?, SendableObject?) -> Void
        ) -> Handling {
            Handling(.mainActor(backlog: AtomicCounter())) { mail, sender, recipient in
                let mail = mail.read(as: M.self)
                MainActor.assumeIsolated { body(mail, sender, recipient) }
            }
        }

        /// On a task, one mail at a time, in post order: `body` gets a copy of the mail, the sender and the
        /// recipient.
        @usableFromInline
        static func suspending<M: Mail>(
            _ body: @escaping @Sendable (M, SendableObject?, SendableObject?) async -> Void
        ) -> Handling {
            let mailbox = Mailbox { mail, sender, recipient in
                guard let mail = mail as? M else { return }
                await body(mail, sender, recipient)
            }
            return Handling(.serially(mailbox), Registration.unusedHandler)
        }
    }

    /// How a registration for a protocol calls its handler: where and when, and the handler, which gets the boxed
    /// mail and casts it to the protocol.
    @usableFromInline
    struct Conforming: Sendable {
        let schedule: Schedule
        let handler: ConformingHandler

        init(_ schedule: Schedule, _ handler: @escaping ConformingHandler) {
            self.schedule = schedule
            self.handler = handler
        }

        /// On the posting thread, before `post` returns, or asynchronously on `queue` when there is one.
        @usableFromInline
        static func on<P>(_ queue: DispatchQueue?, _ body: @escaping @Sendable (P, SendableObject?) -> Void)
            -> Conforming
        {
            Conforming(.on(queue)) { mail, sender, _ in
                guard let mail = mail as? P else { return }
                body(mail, sender)
            }
        }

        /// On the main actor.
        @usableFromInline
        static func onMainActor<P>(_ body: @escaping @MainActor (P, SendableObject?) -> Void) -> Conforming {
            Conforming(.mainActor(backlog: AtomicCounter())) { mail, sender, _ in
                guard let mail = mail as? P else { return }
                MainActor.assumeIsolated { body(mail, sender) }
            }
        }

        /// On a task, one mail at a time, in post order.
        @usableFromInline
        static func suspending<P>(_ body: @escaping @Sendable (P, SendableObject?) async -> Void) -> Conforming {
            let mailbox = Mailbox { mail, sender, _ in
                guard let mail = mail as? P else { return }
                await body(mail, sender)
            }
            return Conforming(.serially(mailbox)) { _, _, _ in }
        }
    }
}
