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

    /// Like ``Handler``, for a registration for a protocol: the mail comes boxed, to be cast to it.
    @usableFromInline
    typealias ConformingHandler =
        @Sendable (_ mail: any Mail, _ sender: SendableObject?, _ recipient: SendableObject?) -> Void

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
        /// As `inner`, for a registration for a protocol: the mail is boxed and handed to its
        /// ``Registration/Conformance``.
        indirect case conforming(Delivery)
        /// As `inner`, once: the first delivery lowers `claim`, and the registration is then spent.
        indirect case once(Delivery, claim: AtomicFlag)
        /// As `inner`, while the owner the registration was tied to lives.
        indirect case owned(Delivery)

        /// On `queue`, or on the posting thread when it is `nil`.
        @inlinable
        static func on(_ queue: DispatchQueue?) -> Delivery {
            guard let queue else { return .now }
            return .queue(queue)
        }
    }

    /// What a registration for a protocol needs: which mail conforms, and its handler.
    @usableFromInline
    struct Conformance: Sendable {
        let admits: @Sendable (any Mail) -> Bool
        let handler: ConformingHandler
        /// True for `any Mail`: a wiretap, which sees the mail callers post but is not counted as having
        /// received it (mail only it saw is still ``UndeliveredMail``), and does not see those reports.
        let isWiretap: Bool
    }

    /// What only some registrations have. Kept apart, so that the others (a closure or a method for a mail type)
    /// are quicker to make and to free: a weak reference costs a call to set up and another to destroy, even
    /// when it is `nil`.
    private final class Particulars: Sendable {
        let conformance: Conformance?
        /// The exact sender of a `register(sender:...)` registration.
        weak let sender: SendableObject?
        /// The object the registration was tied to (``PostOffice/tie(to:_:)``): it ends when that object goes.
        weak let owner: SendableObject?
        /// Called when the registration is freed: after it was removed and no post or queued delivery holds it.
        let whenGone: (@Sendable () -> Void)?

        init(
            conformance: Conformance?, sender: SendableObject?, owner: SendableObject?,
            whenGone: (@Sendable () -> Void)?
        ) {
            self.conformance = conformance
            self.sender = sender
            self.owner = owner
            self.whenGone = whenGone
        }
    }

    let mailType: ObjectIdentifier
    /// The registered mail type, or the protocol's existential type: for introspection.
    let registeredType: Any.Type
    let senders: SenderFilter
    /// The recipient of a method (or actor) registration.
    weak let recipient: SendableObject?
    let recipientKey: ObjectIdentifier?
    let isTied: Bool
    /// True for a registration for ``UndeliveredMail``, or for a protocol it conforms to.
    let mayReceiveUndeliveredMail: Bool
    /// Raised while registered; a delivery that was deferred and finds it lowered is dropped. `nil` for
    /// registrations that only deliver at once.
    let standing: AtomicFlag?
    let delivery: Delivery
    /// Not optional: a closure stored in an `Optional` is reabstracted, and calling it allocates.
    let handler: Handler
    private let particulars: Particulars?

    /// For a registration for a protocol (or `any Mail`); `nil` for one for a mail type.
    var conformance: Conformance? { particulars?.conformance }
    /// True for a registration for a protocol (or `any Mail`).
    var isForProtocol: Bool { particulars?.conformance != nil }
    /// The exact sender of a `register(sender:...)` registration.
    var sender: SendableObject? { particulars?.sender }
    /// The object this registration was tied to (``PostOffice/tie(to:_:)``).
    var owner: SendableObject? { particulars?.owner }

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
        self.init(M.self, nil, senders, exactSender, recipient, delivery, handler, whenGone)
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
        self.init(M.self, nil, senders, exactSender, recipient, .mainActor(backlog: AtomicCounter()), handler, nil)
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
        self.init(M.self, nil, senders, exactSender, recipient, .serially(Mailbox(handler)), Self.unusedHandler, nil)
    }

    /// A registration for every mail whose type conforms to the protocol `P` (`any P`; `any Mail` for all
    /// mail), delivered at once or on `queue`. Other parameters as for the first initializer.
    @usableFromInline
    convenience init<P>(
        conformingTo _: P.Type,
        senders: SenderFilter = .any,
        exactSender: SendableObject? = nil,
        queue: DispatchQueue?,
        handler: @escaping @Sendable (P, SendableObject?) -> Void
    ) {
        let isWiretap = P.self == (any Mail).self
        let conformance = Conformance(
            admits: { $0 is P && !(isWiretap && $0 is UndeliveredMail) },
            handler: { mail, sender, _ in
                guard let mail = mail as? P else { return }
                handler(mail, sender)
            },
            isWiretap: isWiretap
        )
        let delivery = Delivery.conforming(.on(queue))
        self.init(P.self, conformance, senders, exactSender, nil, delivery, Self.unusedHandler, nil)
    }

    /// The handler of a registration that delivers some other way (a mailbox, a conformance).
    private static let unusedHandler: Handler = { _, _, _ in }

    private init(
        _ registeredType: Any.Type, _ conformance: Conformance?, _ senders: SenderFilter,
        _ exactSender: SendableObject?, _ recipient: SendableObject?, _ delivery: Delivery,
        _ handler: @escaping Handler, _ whenGone: (@Sendable () -> Void)?
    ) {
        let options = EnrollmentOptions.current
        let owner = options?.owner
        mailType = ObjectIdentifier(registeredType)
        self.registeredType = registeredType
        // Moved rather than copied, here and for `delivery`: copying an enum with payloads is a call.
        if let exactSender {
            self.senders = .instance(ObjectIdentifier(exactSender))
        } else {
            self.senders = senders
        }
        self.recipient = recipient
        recipientKey = recipient.map(ObjectIdentifier.init)
        isTied = owner != nil
        mayReceiveUndeliveredMail =
            conformance.map { $0.admits(UndeliveredMail.probe) } ?? (registeredType == UndeliveredMail.self)
        if conformance != nil || exactSender != nil || owner != nil || whenGone != nil {
            particulars = Particulars(conformance: conformance, sender: exactSender, owner: owner, whenGone: whenGone)
        } else {
            particulars = nil
        }
        if case .now = delivery, !isTied, options?.isOneShot != true {
            standing = nil
            self.delivery = delivery
        } else {
            standing = AtomicFlag()
            self.delivery = Self.wrap(delivery, tied: isTied, oneShot: options?.isOneShot == true)
        }
        self.handler = handler
    }

    deinit {
        particulars?.whenGone?()
    }

    /// `delivery`, made to end with its owner when `tied`, and to happen once when `oneShot`.
    private static func wrap(_ delivery: Delivery, tied: Bool, oneShot: Bool) -> Delivery {
        let owned: Delivery = tied ? .owned(delivery) : delivery
        return oneShot ? .once(owned, claim: AtomicFlag()) : owned
    }

    /// False once a method recipient, an exact sender or the owner it was tied to has gone, or once a
    /// one-shot registration was delivered.
    var isAlive: Bool {
        (recipientKey == nil || recipient != nil) && (sender != nil || !senders.isInstance)
            && (!isTied || owner != nil) && !isSpent
    }

    /// True for a registration that can stop being alive without being unregistered.
    var isMortal: Bool {
        recipientKey != nil || senders.isInstance || isTied || isOneShot
    }

    var isOneShot: Bool {
        if case .once = delivery { return true }
        return false
    }

    /// True for a one-shot registration that was delivered.
    var isSpent: Bool {
        if case .once(_, let claim) = delivery { return !claim.isRaised }
        return false
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
    static func withRegistration<Result>(at address: UInt, _ body: (Registration) -> Result) -> Result {
        Unmanaged<Registration>.fromOpaque(UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped)
            ._withUnsafeGuaranteedRef(body)
    }
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
