/// The mail posted to an office, as an asynchronous sequence: `for await change in office.mail(of: CartChanged.self)`.
///
/// The sequence is a registration: it receives every mail posted after it was made (not after iteration
/// starts), in post order for each posting thread, and keeps it in a buffer, as its buffering policy says,
/// until the loop takes it. Mail posted before the sequence was made is not in it. The registration is removed
/// when the iteration ends (the loop breaks or returns, or its task is cancelled) or when the sequence is
/// released without being iterated, whichever comes first. The sequence also ends when its registration goes
/// some other way: its exact sender deallocates, or the office is released.
///
/// One sequence is for one loop: once a loop over it ends, so does the sequence.
public struct MailSequence<Element: Sendable>: AsyncSequence, Sendable {
    /// How much mail the sequence keeps while the loop is busy: `.unbounded` (the default),
    /// `.bufferingNewest(n)` (drops the oldest mail beyond `n`) or `.bufferingOldest(n)` (drops new mail beyond
    /// `n`).
    public typealias BufferingPolicy = AsyncStream<Element>.Continuation.BufferingPolicy

    private let stream: AsyncStream<Element>
    private let subscription: Subscription

    init(
        office: PostOffice,
        bufferingPolicy: BufferingPolicy,
        registration: (AsyncStream<Element>.Continuation) -> Registration
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        let id = office.enroll(registration(continuation))
        continuation.onTermination = { [weak office] _ in office?.unregister(id) }
        self.stream = stream
        subscription = Subscription(continuation)
    }

    /// Makes the iterator that a `for await` loop uses. When the loop ends, and with it the iterator, the
    /// sequence ends too: a sequence is for one loop.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), subscription: subscription.forIteration())
    }

    /// Takes the sequence's mail, in order; ends when the registration is removed.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Element>.Iterator
        let subscription: Subscription

        /// The next mail, waiting for it if none is buffered; `nil` once the sequence ended or the task was
        /// cancelled.
        public mutating func next() async -> Element? {
            await base.next()
        }
    }

    /// Ends the sequence, and so removes its registration, when the last copy of what holds it goes: the
    /// sequence's own subscription, or the one an iterator holds.
    final class Subscription: Sendable {
        private let continuation: AsyncStream<Element>.Continuation

        init(_ continuation: AsyncStream<Element>.Continuation) {
            self.continuation = continuation
        }

        /// A subscription of its own for an iterator, so that the loop's end ends the sequence.
        func forIteration() -> Subscription {
            Subscription(continuation)
        }

        deinit {
            continuation.finish()
        }
    }
}

extension PostOffice {
    /// Every `M` posted from now on, whatever its sender, as an asynchronous sequence.
    ///
    /// ```swift
    /// for await change in office.mail(of: CartChanged.self) {
    ///     render(change)
    /// }
    /// ```
    /// The buffering policy says what the sequence keeps while the loop is busy; by default everything.
    public func mail<M: Mail>(
        of _: M.Type,
        bufferingPolicy: MailSequence<M>.BufferingPolicy = .unbounded
    ) -> MailSequence<M> {
        MailSequence(office: self, bufferingPolicy: bufferingPolicy) { continuation in
            Registration(M.self, delivery: .now, whenGone: { continuation.finish() }) { mail, _, _ in
                continuation.yield(mail.load(as: M.self))
            }
        }
    }

    /// Every `M` posted from now on by exactly `sender` (held weakly), as an asynchronous sequence.
    public func mail<M: Mail, S: AnyObject & Sendable>(
        of _: M.Type,
        from sender: S,
        bufferingPolicy: MailSequence<M>.BufferingPolicy = .unbounded
    ) -> MailSequence<M> {
        MailSequence(office: self, bufferingPolicy: bufferingPolicy) { continuation in
            Registration(M.self, exactSender: sender, delivery: .now, whenGone: { continuation.finish() }) {
                mail, _, _ in
                continuation.yield(mail.load(as: M.self))
            }
        }
    }

    /// Every `M` posted from now on with a sender of class `S` or a subclass, with its sender, as an
    /// asynchronous sequence.
    ///
    /// ```swift
    /// for await (change, cart) in office.mail(of: CartChanged.self, sentBy: Cart.self) { ... }
    /// ```
    public func mail<M: Mail, S: AnyObject & Sendable>(
        of _: M.Type,
        sentBy _: S.Type,
        bufferingPolicy: MailSequence<(mail: M, sender: S)>.BufferingPolicy = .unbounded
    ) -> MailSequence<(mail: M, sender: S)> {
        MailSequence(office: self, bufferingPolicy: bufferingPolicy) { continuation in
            Registration(
                M.self, senders: .kind(S.self, orNoSender: false), delivery: .now,
                whenGone: { continuation.finish() }
            ) { mail, sender, _ in
                continuation.yield((mail.load(as: M.self), sender.known(as: S.self)))
            }
        }
    }
}
