/// The mail posted to an office, as an asynchronous sequence: `for await change in office.mail(of: CartChanged.self)`.
///
/// The sequence is a registration: it receives every mail posted after it was made (not after iteration
/// starts), in post order for each posting thread, and keeps it in a buffer, as its buffering policy says,
/// until the loop takes it. Mail posted before the sequence was made is not in it.
///
/// The registration lasts as long as the loop over the sequence, whether the sequence is held in a variable
/// or iterated as a temporary (`for await change in office.mail(of: CartChanged.self) { ... }`). It is
/// removed:
/// - when the loop ends: it breaks, returns or throws, or the task running it is cancelled;
/// - when the sequence is released without ever being iterated;
/// - when its exact sender deallocates, or the office is released (the loop then ends once it has taken the
///   mail already buffered).
///
/// One sequence is for one loop. The first iterator made from it receives the mail; any further iterator,
/// made while that loop runs or after it ended, ends at once without yielding anything.
///
/// A `for await` loop's body runs in the loop's own task, with that task's task-local values. In an office made
/// with a ``MailInstrumentation``, ``receive(isolation:_:)`` runs its body for each mail in the context captured from that
/// mail's post instead (its trace context, for instance).
public struct MailSequence<Element: Sendable>: AsyncSequence, Sendable {
    /// How much mail the sequence keeps while the loop is busy: `.unbounded` (the default),
    /// `.bufferingNewest(n)` (drops the oldest mail beyond `n`) or `.bufferingOldest(n)` (drops new mail beyond
    /// `n`).
    public typealias BufferingPolicy = AsyncStream<Element>.Continuation.BufferingPolicy

    private let channel: Channel

    init(
        office: PostOffice,
        bufferingPolicy: BufferingPolicy,
        registration: (MailBuffer<Letter>) -> Registration
    ) {
        let buffer = MailBuffer<Letter>(policy: Self.policy(bufferingPolicy))
        let id = office.enroll(registration(buffer))
        buffer.onFinish { [weak office] in office?.unregister(id) }
        channel = Channel(buffer)
    }

    /// Makes the iterator that a `for await` loop uses. The first one receives the sequence's mail, and the
    /// registration ends with it; any later one ends at once.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(channel.claim())
    }

    /// Calls `body` on each mail of the sequence, in order, as a `for await` loop would, until the sequence ends
    /// or `body` throws; in an instrumented office, in the context captured from the mail's post (see
    /// ``MailInstrumentation``).
    ///
    /// ```swift
    /// try await office.mail(of: OrderPlaced.self).receive { order in
    ///     try await ship(order)   // ServiceContext.current is the poster's
    /// }
    /// ```
    /// Like a loop, it is the sequence's one loop: it ends at once, calling nothing, when the sequence was
    /// iterated before. The registration ends when it returns, or throws what `body` threw.
    public func receive<Failure: Error>(
        isolation: isolated (any Actor)? = #isolation, _ body: (Element) async throws(Failure) -> Void
    ) async throws(Failure) {
        guard var loop = channel.claim() else { return }
        while let letter = await loop.next() {
            guard let captured = letter.captured else {
                try await body(letter.element)
                continue
            }
            var failure: Failure?
            await captured.run(isolation: isolation) {
                do throws(Failure) {
                    try await body(letter.element)
                } catch {
                    failure = error
                }
            }
            if let failure {
                throw failure
            }
        }
    }

    /// One mail for the loop, with the context the office's instrumentation captured from its post, if any.
    struct Letter: Sendable {
        let element: Element
        let captured: (any CapturedContext)?
    }

    /// The buffer's policy for the sequence's.
    private static func policy(_ policy: BufferingPolicy) -> MailBuffer<Letter>.Policy {
        switch policy {
        case .bufferingNewest(let limit): .bufferingNewest(limit)
        case .bufferingOldest(let limit): .bufferingOldest(limit)
        default: .unbounded
        }
    }

    /// Takes the sequence's mail, in order; ends when the registration is removed.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// `nil` for an iterator that was not the first of its sequence.
        private var loop: Loop?

        init(_ loop: Loop?) {
            self.loop = loop
        }

        /// The next mail, waiting for it if none is buffered; `nil` once the sequence ended or the task was
        /// cancelled, and at once for an iterator that was not the first of its sequence.
        ///
        /// In an instrumented office, the instrumentation runs an empty handler in the mail's captured context as
        /// the loop takes it (``Delivery/Place/forAwaitLoop``): the loop's body runs after, in the loop's own
        /// context.
        public mutating func next() async -> Element? {
            guard let letter = await loop?.next() else { return nil }
            letter.captured?.runTakenByLoop()
            return letter.element
        }
    }

    /// The one loop over a sequence: the buffer, the mail it took from it and has not returned yet, and the lease
    /// that ends the registration when the last copy of the iterator goes.
    struct Loop {
        let lease: Lease
        var batch: [Letter] = []
        var index = 0

        mutating func next() async -> Letter? {
            await lease.buffer.next(batch: &batch, index: &index)
        }
    }

    /// What every copy of a sequence shares: the buffer, until its one loop claims it.
    final class Channel: Sendable {
        private let buffer: MailBuffer<Letter>
        /// Raised until the first iterator is made.
        private let unclaimed = AtomicFlag()

        init(_ buffer: MailBuffer<Letter>) {
            self.buffer = buffer
        }

        /// The loop, for the first caller only.
        func claim() -> Loop? {
            guard unclaimed.lowerIfRaised() else { return nil }
            return Loop(lease: Lease(buffer))
        }

        /// A sequence released without a loop ends its registration; once a loop claimed it, the loop does.
        deinit {
            if unclaimed.isRaised {
                buffer.finish()
            }
        }
    }

    /// Ends the sequence, and so removes its registration, when the loop's iterator goes.
    final class Lease: Sendable {
        let buffer: MailBuffer<Letter>

        init(_ buffer: MailBuffer<Letter>) {
            self.buffer = buffer
        }

        deinit {
            buffer.finish()
        }
    }
}

extension PostOffice {
    /// Every `M` posted from now on, whatever its sender, or with `sender`, every `M` posted by exactly that object
    /// (compared with `===`, held weakly), as an asynchronous sequence.
    ///
    /// ```swift
    /// for await change in office.mail(of: CartChanged.self) {
    ///     render(change)
    /// }
    /// ```
    /// The buffering policy says what the sequence keeps while the loop is busy; by default everything. Its
    /// `priority` places the sequence's registration among a post's recipients (see ``Priority``): an
    /// interceptor before it may consume the mail. With `tiedTo`, the sequence ends (its loop finishes) when that
    /// object deallocates (held weakly); it ends in any case when the loop does.
    public func mail<M: Mail>(
        of _: M.Type,
        from sender: (any AnyObject & Sendable)? = nil,
        priority: Priority = .normal,
        tiedTo owner: (any AnyObject & Sendable)? = nil,
        bufferingPolicy: MailSequence<M>.BufferingPolicy = .unbounded
    ) -> MailSequence<M> {
        sequence(of: M.self, priority: priority, exactSender: sender, owner: owner, bufferingPolicy: bufferingPolicy) {
            mail, _ in
            mail
        }
    }

    /// Every `M` posted from now on with a sender of class `S` or a subclass, with its sender, as an
    /// asynchronous sequence.
    ///
    /// ```swift
    /// for await (change, cart) in office.mail(of: CartChanged.self, sentBy: Cart.self) { ... }
    /// ```
    /// `priority`, `tiedTo` and `bufferingPolicy` work as for ``mail(of:from:priority:tiedTo:bufferingPolicy:)``.
    public func mail<M: Mail, S: AnyObject & Sendable>(
        of _: M.Type,
        sentBy _: S.Type,
        priority: Priority = .normal,
        tiedTo owner: (any AnyObject & Sendable)? = nil,
        bufferingPolicy: MailSequence<(mail: M, sender: S)>.BufferingPolicy = .unbounded
    ) -> MailSequence<(mail: M, sender: S)> {
        let senders = SenderFilter.kind(S.self, orNoSender: false)
        return sequence(
            of: M.self, priority: priority, senders: senders, owner: owner, bufferingPolicy: bufferingPolicy
        ) {
            ($0, $1.known(as: S.self))
        }
    }

    /// Every `M` posted from now on with no sender (as `nil`) or with a sender of class `S` or a subclass, with
    /// its sender, as an asynchronous sequence.
    ///
    /// ```swift
    /// for await (change, cart) in office.mail(of: CartChanged.self, sentBy: Cart?.self) { ... }
    /// ```
    /// `priority`, `tiedTo` and `bufferingPolicy` work as for ``mail(of:from:priority:tiedTo:bufferingPolicy:)``.
    public func mail<M: Mail, S: AnyObject & Sendable>(
        of _: M.Type,
        sentBy _: S?.Type,
        priority: Priority = .normal,
        tiedTo owner: (any AnyObject & Sendable)? = nil,
        bufferingPolicy: MailSequence<(mail: M, sender: S?)>.BufferingPolicy = .unbounded
    ) -> MailSequence<(mail: M, sender: S?)> {
        let senders = SenderFilter.kind(S.self, orNoSender: true)
        return sequence(
            of: M.self, priority: priority, senders: senders, owner: owner, bufferingPolicy: bufferingPolicy
        ) {
            ($0, $1.knownOrNil(as: S.self))
        }
    }

    /// What every `mail(of:)` form comes down to: a sequence of `element(mail, sender)` for each `M` posted from
    /// a sender that `senders` or `exactSender` accepts.
    private func sequence<M: Mail, Element: Sendable>(
        of _: M.Type,
        priority: Priority,
        senders: SenderFilter = .any,
        exactSender: SendableObject? = nil,
        owner: SendableObject?,
        bufferingPolicy: MailSequence<Element>.BufferingPolicy,
        _ element: @escaping @Sendable (M, SendableObject?) -> Element
    ) -> MailSequence<Element> {
        // The sequence reports its deliveries itself: the loop takes the mail later, in the context captured here.
        let instrumenter = sortingOffice.instrumenter
        return MailSequence(office: self, bufferingPolicy: bufferingPolicy) { buffer in
            Registration.make(
                in: self, M.self, priority: priority, senders: senders, exactSender: exactSender, tiedTo: owner,
                whenGone: { buffer.finish() }, reportsItsDeliveries: true,
                .on(nil, throwing: Never.self) { posted, sender, _ in
                    let mail = posted.read(as: M.self)
                    let captured = instrumenter?.capture(type(of: mail), to: nil, at: .sequence)
                    buffer.append(MailSequence.Letter(element: element(mail, sender), captured: captured))
                }
            )
        }
    }
}
