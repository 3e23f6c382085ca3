import Dispatch

extension Registration {
    /// How a registration for a mail type calls its handler: where and when (its ``Place``), the handler a
    /// post calls, and whether that handler may throw (then a post calls it on its slow path, which reports what
    /// it throws) or consume the mail (an interceptor's, ``Answering``).
    ///
    /// The register overloads are generic over the error their handler throws, `E`, and pass `E.self` here. For a
    /// handler that cannot throw, `E` is `Never`, the check below is decided when the overload is specialized,
    /// and the post calls the handler on its fast path. The overloads' closures are ``Handler``s themselves
    /// (untyped `throws`), not wrapped in one: each wrapping closure would be one more allocation per registration.
    @usableFromInline
    struct Handling: Sendable {
        @usableFromInline let place: Place
        @usableFromInline let handler: Handler
        /// True when ``handler`` may throw.
        @usableFromInline let mayThrow: Bool
        /// An interceptor's handler, which may consume the mail; ``handler`` is then ``unusedHandler``.
        @usableFromInline let consuming: Answering?

        @inlinable
        init(_ place: Place, _ handler: @escaping Handler, mayThrow: Bool = false) {
            self.place = place
            self.handler = handler
            self.mayThrow = mayThrow
            consuming = nil
        }

        @inlinable
        init(consuming: @escaping Answering) {
            place = .now
            handler = Registration.unusedHandler
            mayThrow = true
            self.consuming = consuming
        }

        /// On the posting thread, before `post` returns, or asynchronously on `queue` when there is one. `handler`
        /// throws only what an `E` is.
        @inlinable
        static func on<E: Error>(_ queue: DispatchQueue?, throwing _: E.Type, _ handler: @escaping Handler) -> Handling
        {
            Handling(.on(queue), handler, mayThrow: E.self != Never.self)
        }

        /// On the posting thread, before `post` returns: `body` may end the post (``Consumption/consumed``).
        @inlinable
        static func consuming(_ body: @escaping Answering) -> Handling {
            Handling(consuming: body)
        }

        /// On the main actor. `handler` throws only what an `E` is.
        @inlinable
        static func onMainActor<E: Error>(throwing _: E.Type, _ handler: @escaping MainActorHandler) -> Handling {
            Handling(.mainActor, MainActorContext.enteredBy(handler), mayThrow: E.self != Never.self)
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
        let place: Place
        let handler: ConformingHandler

        init(_ place: Place, _ handler: @escaping ConformingHandler) {
            self.place = place
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
            let body = MainActorContext.enteredBy(body)
            return Conforming(.mainActor) { mail, sender, _ in
                guard let mail = mail as? P else { return }
                try body(mail, sender)
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
