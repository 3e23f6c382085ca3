import Dispatch

/// A sender or a recipient: any object that may be handed to another thread.
@usableFromInline
typealias SendableObject = AnyObject & Sendable

/// One registration: which posts it accepts, and how it delivers them.
///
/// Immutable once made. The office keeps it alive while it is registered; routes refer to it by address.
///
/// The register overloads are `@inlinable` so that each builds its handler in the caller's module, for the
/// caller's concrete types: there, a method reference `Screen.receive` is applied to its recipient without
/// allocating, which the generic form cannot do.
@usableFromInline
final class Registration: Sendable {
    /// Calls the user's closure or method with the posted mail (read from `mail` as the registered mail
    /// type), the post's sender, and the recipient of a method registration (known to be alive).
    @usableFromInline
    typealias Handler =
        @Sendable (_ mail: UnsafeRawPointer, _ sender: SendableObject?, _ recipient: SendableObject?) -> Void

    /// Like ``Handler``, for handlers that suspend: the mail comes as a copy, since it outlives the post.
    @usableFromInline
    typealias AsyncHandler =
        @Sendable (_ mail: any Sendable, _ sender: SendableObject?, _ recipient: SendableObject?) async -> Void

    /// Where and when a registration's handler runs.
    @usableFromInline
    enum Delivery: Sendable {
        /// On the posting thread, before `post` returns.
        case now
        /// Asynchronously on a queue, never inline.
        case queue(DispatchQueue)
        /// On the main actor: at once when the post is made on it and none of the registration's mail is
        /// still waiting on the main queue (`backlog`); otherwise through the main queue, in post order.
        case mainActor(backlog: AtomicCounter)
        /// On a task, one mail at a time, in post order (async handlers and actors).
        case serially(Mailbox)

        /// On `queue`, or on the posting thread when it is `nil`.
        @usableFromInline
        static func on(_ queue: DispatchQueue?) -> Delivery {
            queue.map(Delivery.queue) ?? .now
        }
    }

    let id = RecipientId.next()
    let mailType: ObjectIdentifier
    let senders: SenderFilter
    /// The exact sender of a `register(sender:...)` registration.
    weak let sender: SendableObject?
    /// The recipient of a method (or actor) registration.
    weak let recipient: SendableObject?
    let recipientKey: ObjectIdentifier?
    /// Raised while registered; a delivery that was deferred and finds it lowered is dropped. `nil` for
    /// registrations that only deliver at once.
    let standing: AtomicFlag?
    private let delivery: Delivery
    /// Not optional: a closure stored in an `Optional` is reabstracted, and calling it allocates.
    private let handler: Handler
    /// Called when the registration is freed: after it was removed and no post or queued delivery holds it.
    private let whenGone: (@Sendable () -> Void)?
    /// The registered mail type, to copy the mail for a deferred delivery.
    private let mailMetatype: any Mail.Type

    /// A registration for mail of type `M`, whose handler runs at once, on a queue or on the main actor.
    /// - Parameters:
    ///   - senders: the posts' senders it accepts; ignored when `exactSender` is given.
    ///   - exactSender: the only sender whose posts it receives, held weakly.
    ///   - recipient: the object whose method `handler` calls, held weakly.
    ///   - whenGone: called when the registration is freed, whatever removed it.
    @usableFromInline
    convenience init<M: Mail>(
        _: M.Type,
        senders: SenderFilter = .any,
        exactSender: SendableObject? = nil,
        recipient: SendableObject? = nil,
        delivery: Delivery,
        whenGone: (@Sendable () -> Void)? = nil,
        handler: @escaping Handler
    ) {
        self.init(M.self, senders, exactSender, recipient, delivery, handler, whenGone: whenGone)
    }

    /// A registration for mail of type `M` whose handler runs on the main actor: `body` gets the mail, the
    /// sender and the recipient, as the other initializer's handler does. Parameters as for that initializer.
    @usableFromInline
    convenience init<M: Mail>(
        _: M.Type,
        senders: SenderFilter = .any,
        exactSender: SendableObject? = nil,
        recipient: SendableObject? = nil,
        onMainActor body: @escaping @MainActor (M, SendableObject?, SendableObject?) -> Void
    ) {
        let handler: Handler = { mail, sender, recipient in
            let mail = mail.load(as: M.self)
            MainActor.assumeIsolated { body(mail, sender, recipient) }
        }
        self.init(M.self, senders, exactSender, recipient, .mainActor(backlog: AtomicCounter()), handler)
    }

    /// A registration for mail of type `M` whose handler suspends: it runs on a task, one mail at a time, in
    /// post order. Parameters as for the first initializer.
    @usableFromInline
    convenience init<M: Mail>(
        _: M.Type,
        senders: SenderFilter = .any,
        exactSender: SendableObject? = nil,
        recipient: SendableObject? = nil,
        suspending body: @escaping @Sendable (M, SendableObject?, SendableObject?) async -> Void
    ) {
        let handler: AsyncHandler = { mail, sender, recipient in
            guard let mail = mail as? M else { return }
            await body(mail, sender, recipient)
        }
        self.init(M.self, senders, exactSender, recipient, .serially(Mailbox(handler)), Self.unusedHandler)
    }

    /// The handler of a serial registration, which delivers through its mailbox instead.
    private static let unusedHandler: Handler = { _, _, _ in }

    private init<M: Mail>(
        _: M.Type, _ senders: SenderFilter, _ exactSender: SendableObject?, _ recipient: SendableObject?,
        _ delivery: Delivery, _ handler: @escaping Handler, whenGone: (@Sendable () -> Void)? = nil
    ) {
        mailType = ObjectIdentifier(M.self)
        self.senders = exactSender.map { .instance(ObjectIdentifier($0)) } ?? senders
        sender = exactSender
        self.recipient = recipient
        recipientKey = recipient.map(ObjectIdentifier.init)
        if case .now = delivery {
            standing = nil
        } else {
            standing = AtomicFlag()
        }
        self.delivery = delivery
        self.handler = handler
        self.whenGone = whenGone
        mailMetatype = M.self
    }

    deinit {
        whenGone?()
    }

    /// Delivers mail whose type is the registered mail type or a subclass of it, from a sender this
    /// registration accepts. A delivery that does not run now joins `receipt`, if given, until it ran.
    @inline(__always)
    func deliver(_ mail: UnsafeRawPointer, from sender: SendableObject?, receipt: Receipt?) {
        if case .now = delivery {
            runNow(mail, from: sender)
        } else {
            deliverLater(mail, from: sender, receipt: receipt)
        }
    }

    @inline(__always)
    private func runNow(_ mail: UnsafeRawPointer, from sender: SendableObject?) {
        if recipientKey == nil {
            handler(mail, sender, nil)
        } else if let recipient {
            handler(mail, sender, recipient)
        }
    }

    @inline(never)
    private func deliverLater(_ mail: UnsafeRawPointer, from sender: SendableObject?, receipt: Receipt?) {
        switch delivery {
        case .now:
            runNow(mail, from: sender)
        case .queue(let queue):
            enqueue(mail, from: sender, on: queue, receipt: receipt)
        case .mainActor(let backlog) where backlog.value == 0 && MainActorContext.isCurrent:
            runNow(mail, from: sender)
        case .mainActor(let backlog):
            // Counted until its block has run, so that a post made on the main actor meanwhile waits its turn.
            backlog.increment()
            enqueue(mail, from: sender, on: .main, receipt: receipt, finally: backlog.decrement)
        case .serially(let mailbox):
            receipt?.begin()
            if mailbox.append(Self.copy(mail, as: mailMetatype), from: sender, receipt: receipt) {
                Task.detached { await self.drain(mailbox) }
            }
        }
    }

    /// Copies the mail, and delivers it on `queue` unless the registration is removed before that.
    private func enqueue(
        _ mail: UnsafeRawPointer, from sender: SendableObject?, on queue: DispatchQueue, receipt: Receipt?,
        finally: @escaping @Sendable () -> Void = {}
    ) {
        let mail = Self.copy(mail, as: mailMetatype)
        receipt?.begin()
        queue.async { [self] in
            defer {
                finally()
                receipt?.end()
            }
            guard isStanding else { return }
            let recipient = recipient
            guard recipientKey == nil || recipient != nil else { return }
            withUnsafePointer(toOpened: mail) { handler($0, sender, recipient) }
        }
    }

    /// Runs the async handler on each mail waiting in `mailbox`, one at a time, until it is empty.
    private func drain(_ mailbox: Mailbox) async {
        while let letter = mailbox.next() {
            if isStanding {
                let recipient = recipient
                if recipientKey == nil || recipient != nil {
                    await mailbox.handler(letter.mail, letter.sender, recipient)
                }
            }
            letter.receipt?.end()
        }
    }

    private var isStanding: Bool {
        standing?.isRaised ?? true
    }

    private static func copy<M: Mail>(_ mail: UnsafeRawPointer, as _: M.Type) -> any Sendable {
        mail.load(as: M.self)
    }

    /// False once a method recipient or an exact sender has gone.
    var isAlive: Bool {
        (recipientKey == nil || recipient != nil) && (sender != nil || !senders.isInstance)
    }

    /// This registration's address, as routes store it.
    var address: UInt { UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()) }

    /// The registration at an address a route stored.
    static func at(_ address: UInt) -> Registration {
        Unmanaged<Registration>.fromOpaque(UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped)
            .takeUnretainedValue()
    }

    /// Calls `body` with the registration at `address` without retaining it: the caller's read section keeps
    /// it alive.
    @inline(__always)
    static func withRegistration(at address: UInt, _ body: (Registration) -> Void) {
        Unmanaged<Registration>.fromOpaque(UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped)
            ._withUnsafeGuaranteedRef(body)
    }
}

/// Calls `body` with a pointer to the value inside the existential `value`.
private func withUnsafePointer<Value: Sendable>(toOpened value: Value, _ body: (UnsafeRawPointer) -> Void) {
    withUnsafePointer(to: value) { body(UnsafeRawPointer($0)) }
}

extension Optional where Wrapped == SendableObject {
    /// The object, known by the route that delivered it to be non-nil and of class `T`.
    @inlinable
    func known<T: AnyObject>(as _: T.Type) -> T {
        unsafeDowncast(unsafelyUnwrapped, to: T.self)
    }

    /// The object if there is one, known by the route that delivered it to be of class `T`.
    @inlinable
    func knownOrNil<T: AnyObject>(as _: T.Type) -> T? {
        map { unsafeDowncast($0, to: T.self) }
    }
}
