import Dispatch

extension Registration {
    /// How a registration for a mail type calls its handler: where and when (its ``Schedule``), and the handler
    /// a post calls, one that cannot fail (``Handler``) or one that answers (``Answering``).
    ///
    /// The register overloads are generic over the error their handler throws, `E`. For a handler that cannot
    /// throw, `E` is `Never`, and the checks below on `E` are decided when the overload is specialized: such a
    /// handler becomes a plain ``Handler``, which a post calls on its fast path exactly as before handlers could
    /// throw.
    @usableFromInline
    struct Handling: Sendable {
        @usableFromInline let schedule: Schedule
        @usableFromInline let handler: Handler
        /// Set, instead of ``handler``, for a handler that may throw or consume the mail.
        @usableFromInline let answering: Answering?
        /// True for an interceptor's, which may consume the mail.
        @usableFromInline let intercepts: Bool

        @inlinable
        init(_ schedule: Schedule, _ handler: @escaping Handler) {
            self.schedule = schedule
            self.handler = handler
            answering = nil
            intercepts = false
        }

        @inlinable
        init(_ schedule: Schedule, answering: @escaping Answering, intercepts: Bool = false) {
            self.schedule = schedule
            handler = Registration.unusedHandler
            self.answering = answering
            self.intercepts = intercepts
        }

        /// Runs `body` on `schedule`: as a plain ``Handler`` when it cannot throw, otherwise as one that answers.
        @inlinable
        static func make<E: Error>(
            _ schedule: Schedule,
            _ body: @escaping @Sendable (PostedMail, SendableObject?, SendableObject?) throws(E) -> Void
        ) -> Handling {
            guard E.self != Never.self else {
                let handler: Handler = { mail, sender, recipient in
                    do { try body(mail, sender, recipient) } catch { assertionFailure("\(E.self) was thrown") }
                }
                return Handling(schedule, handler)
            }
            return Handling(
                schedule,
                answering: { mail, sender, recipient in
                    try body(mail, sender, recipient)
                    return .passOn
                })
        }

        /// On the posting thread, before `post` returns, or asynchronously on `queue` when there is one.
        @inlinable
        static func on<E: Error>(
            _ queue: DispatchQueue?,
            _ body: @escaping @Sendable (PostedMail, SendableObject?, SendableObject?) throws(E) -> Void
        ) -> Handling {
            make(.on(queue), body)
        }

        /// On the posting thread, before `post` returns: `body` may end the post (``Consumption/consumed``).
        @inlinable
        static func consuming<E: Error>(
            _ body: @escaping @Sendable (PostedMail, SendableObject?, SendableObject?) throws(E) -> Consumption
        ) -> Handling {
            Handling(
                .now, answering: { mail, sender, recipient in try body(mail, sender, recipient) }, intercepts: true)
        }

        /// On the main actor: `body` gets the mail, read as `M`, the sender and the recipient, as a handler does.
        @usableFromInline
        static func onMainActor<M: Mail, E: Error>(
            _ body: @escaping @MainActor (M, SendableObject?, SendableObject?) throws(E) -> Void
        ) -> Handling {
            make(.mainActor(backlog: AtomicCounter())) { mail, sender, recipient throws(E) in
                let mail = mail.read(as: M.self)
                try MainActor.assumeIsolated { Result { () throws(E) in try body(mail, sender, recipient) } }.get()
            }
        }

        /// On a task, one mail at a time, in post order: `body` gets a copy of the mail, the sender and the
        /// recipient.
        @usableFromInline
        static func suspending<M: Mail, E: Error>(
            _ body: @escaping @Sendable (M, SendableObject?, SendableObject?) async throws(E) -> Void
        ) -> Handling {
            let mailbox = Mailbox { mail, sender, recipient in
                guard let mail = mail as? M else { return }
                try await body(mail, sender, recipient)
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
        static func on<P, E: Error>(
            _ queue: DispatchQueue?, _ body: @escaping @Sendable (P, SendableObject?) throws(E) -> Void
        ) -> Conforming {
            Conforming(.on(queue)) { mail, sender, _ in
                guard let mail = mail as? P else { return }
                try body(mail, sender)
            }
        }

        /// On the main actor.
        @usableFromInline
        static func onMainActor<P, E: Error>(
            _ body: @escaping @MainActor (P, SendableObject?) throws(E) -> Void
        ) -> Conforming {
            Conforming(.mainActor(backlog: AtomicCounter())) { mail, sender, _ in
                guard let mail = mail as? P else { return }
                try MainActor.assumeIsolated { Result { () throws(E) in try body(mail, sender) } }.get()
            }
        }

        /// On a task, one mail at a time, in post order.
        @usableFromInline
        static func suspending<P, E: Error>(
            _ body: @escaping @Sendable (P, SendableObject?) async throws(E) -> Void
        ) -> Conforming {
            let mailbox = Mailbox { mail, sender, _ in
                guard let mail = mail as? P else { return }
                try await body(mail, sender)
            }
            return Conforming(.serially(mailbox)) { _, _, _ in }
        }
    }
}
