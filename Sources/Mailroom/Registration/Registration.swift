import Dispatch

/// One registration: which posts it accepts, and how it delivers them.
///
/// Immutable once made. The office keeps it alive while it is registered; routes refer to it by address.
///
/// Two subclasses add what only some registrations need: a ``MethodRegistration`` the object its handler is called
/// with, held weakly (a method's recipient, an actor), and a ``ClosureRegistration`` the user's closure that takes
/// the mail alone, which its handler calls without capturing it.
///
/// The register overloads are `@inlinable` so that each builds its handler in the caller's module, for the
/// caller's concrete types: there, a method reference `Screen.receive` is applied to its recipient without
/// allocating, which the generic form cannot do.
@usableFromInline
class Registration: @unchecked Sendable {
    /// Calls the user's closure or method with the posted mail (read as the registered mail type), the post's
    /// sender, and the recipient of a method registration (known to be alive), or, for any other registration, the
    /// registration itself (a ``ClosureRegistration``'s handler finds the user's closure there).
    ///
    /// It throws only when the user's handler may (``Handling/mayThrow``): a post calls such a handler on its slow
    /// path, which reports what it throws.
    @usableFromInline
    typealias Handler =
        @Sendable (_ mail: PostedMail, _ sender: SendableObject?, _ recipient: SendableObject?) throws -> Void

    /// A ``Handler`` for a main-actor registration, as the register overloads write it: isolated to the main
    /// actor, so that it can call the user's `@MainActor` closure or method. The registration keeps it as a
    /// ``Handler`` (``MainActorContext/enteredBy(_:)``).
    @usableFromInline
    typealias MainActorHandler =
        @MainActor @Sendable (_ mail: PostedMail, _ sender: SendableObject?, _ recipient: SendableObject?) throws
        -> Void

    /// Like ``Handler``, for an interceptor's handler, which may end the post (``Consumption/consumed``): a post
    /// calls it on its slow path.
    @usableFromInline
    typealias Answering =
        @Sendable (_ mail: PostedMail, _ sender: SendableObject?, _ recipient: SendableObject?) throws -> Consumption

    /// Like ``Handler``, for handlers that suspend: the mail comes as a copy, since it outlives the post.
    @usableFromInline
    typealias AsyncHandler =
        @Sendable (_ mail: any Mail, _ sender: SendableObject?, _ recipient: SendableObject?) async throws -> Void

    /// What only some registrations have. Kept apart, so that the others (a closure or a method for a mail type)
    /// are quicker to make and to free: a weak reference costs a call to set up and another to destroy, even
    /// when it is `nil`.
    private final class Particulars: Sendable {
        let conformance: Conformance?
        /// An interceptor's handler.
        let consuming: Answering?
        /// The exact sender of a `register(sender:...)` registration.
        weak let sender: SendableObject?
        /// The object the registration was tied to (`tiedTo:`): it ends when that object goes.
        let tie: Tie?
        /// Called when the registration is freed: after it was removed and no post or queued delivery holds it.
        let whenGone: (@Sendable () -> Void)?

        init(
            conformance: Conformance?, consuming: Answering?, sender: SendableObject?, owner: SendableObject?,
            whenGone: (@Sendable () -> Void)?
        ) {
            self.conformance = conformance
            self.consuming = consuming
            self.sender = sender
            tie = owner.map(Tie.init)
            self.whenGone = whenGone
        }
    }

    /// The owner of a tied registration, held weakly, and its identity, which outlives it:
    /// ``PostOffice/unregister(_:)-(AnyObject)`` finds the registration by it. An object of its own, so that the
    /// registrations that are not tied (an exact sender's, a protocol's) do not pay its word.
    private final class Tie: Sendable {
        weak let owner: SendableObject?
        let key: ObjectIdentifier

        init(_ owner: SendableObject) {
            self.owner = owner
            key = ObjectIdentifier(owner)
        }
    }

    // Stored in this order, the words first, so that the small fields share the last word, and a subclass's
    // two words follow: a registration of this class then takes an 80-byte block of memory, a subclass's a
    // 96-byte one (see docs/performance.md).

    /// The registered mail type, or the protocol's existential type.
    let registeredType: Any.Type
    /// Calls the user's closure or method. Not optional: a closure stored in an `Optional` is reabstracted, and
    /// calling it allocates. An interceptor (``consuming``) has ``unusedHandler`` here.
    let handler: Handler
    /// Where it stands, and where and when its handler runs, for the registrations that can end while a delivery
    /// of theirs waits or is decided: those that do not deliver at once on the posting thread, and one-shot and
    /// tied ones, and every registration of an instrumented office. `nil` for the others, which a post reaches only
    /// while they are registered.
    let life: Lifecycle?
    private let particulars: Particulars?
    let senders: SenderFilter
    /// Its place among the recipients of a post, with its registration order.
    let priority: Priority
    /// True for a registration for ``UndeliveredMail``, or for a protocol it conforms to.
    let mayReceiveUndeliveredMail: Bool
    /// True when ``handler`` may throw, or the registration is an interceptor: a post then calls it on its slow
    /// path, which reports what it throws.
    let mayThrow: Bool
    /// True for a main-actor registration for a mail type that is neither one-shot nor tied, whose handler cannot
    /// throw: a post made on the main actor calls it at once, with no other check, when none of its mail waits on
    /// the main queue.
    let isPlainMainActor: Bool
    /// True for a ``MethodRegistration``: its handler is called with its recipient, while that lives.
    let hasRecipient: Bool

    /// The registered mail type's identifier (or the protocol's).
    var mailType: ObjectIdentifier { ObjectIdentifier(registeredType) }
    /// Where and when its handler runs.
    var place: Place { life?.place ?? .now }

    /// An interceptor's handler, which may consume the mail; `nil` for the others.
    var consuming: Answering? { particulars?.consuming }
    /// True for a registration made by `intercept`, whose handler may consume the mail.
    var isInterceptor: Bool { particulars?.consuming != nil }
    /// For a registration for a protocol (or `any Mail`); `nil` for one for a mail type.
    var conformance: Conformance? { particulars?.conformance }
    /// True for a registration for a protocol (or `any Mail`).
    var isForProtocol: Bool { particulars?.conformance != nil }
    /// The exact sender of a `register(sender:...)` registration.
    var sender: SendableObject? { particulars?.sender }
    /// The object this registration was tied to (`tiedTo:`).
    var owner: SendableObject? { particulars?.tie?.owner }

    /// Calls `body` with each object `unregister(_:)` with an object finds this registration by: its recipient
    /// (`isOwner` false), and the owner it was tied to, when that is another object (`isOwner` true).
    @inline(__always)
    func forEachObjectKey(_ body: (_ isOwner: Bool, ObjectIdentifier) -> Void) {
        if let recipientKey { body(false, recipientKey) }
        if let ownerKey, ownerKey != recipientKey { body(true, ownerKey) }
    }

    /// The identity of the object this registration was tied to, which outlives it.
    var ownerKey: ObjectIdentifier? { particulars?.tie?.key }

    /// The recipient of a method (or actor) registration, held weakly: `nil` for the others, and once it has gone.
    var recipient: SendableObject? {
        hasRecipient ? unsafeDowncast(self, to: MethodRegistration.self).object : nil
    }

    /// The identity of the recipient of a method (or actor) registration, which outlives it; `nil` for the others.
    var recipientKey: ObjectIdentifier? {
        hasRecipient ? unsafeDowncast(self, to: MethodRegistration.self).objectKey : nil
    }

    /// A registration for mail of type `M`, whose handler `handling` calls where and when it says: a
    /// ``MethodRegistration`` when it has a recipient.
    /// - Parameters:
    ///   - office: the office it is made for.
    ///   - priority: its place among the recipients of a post.
    ///   - senders: the posts' senders it accepts; ignored when `exactSender` is given.
    ///   - exactSender: the only sender whose posts it receives, held weakly.
    ///   - once: true for a registration that ends after its first delivery.
    ///   - owner: the object whose deallocation ends it, held weakly.
    ///   - recipient: the object whose method its handler calls, held weakly.
    ///   - whenGone: called when the registration is freed, whatever removed it.
    ///   - reportsItsDeliveries: true for a registration whose handler reports its deliveries to the office's
    ///     instrumentation itself (a ``MailSequence``'s); the office reports the others'.
    @usableFromInline
    static func make<M: Mail>(
        in office: borrowing PostOffice,
        _: M.Type,
        priority: Priority = .normal,
        senders: SenderFilter = .any,
        exactSender: SendableObject? = nil,
        once: Bool = false,
        tiedTo owner: SendableObject? = nil,
        recipient: SendableObject? = nil,
        whenGone: (@Sendable () -> Void)? = nil,
        reportsItsDeliveries: Bool = false,
        _ handling: Handling
    ) -> Registration {
        let isObserved = !reportsItsDeliveries && office.sortingOffice.instrumenter != nil
        if let recipient {
            return MethodRegistration(
                recipient, office, M.self, priority, nil, senders, exactSender, once, owner, handling, whenGone,
                isObserved: isObserved)
        }
        return Registration(
            office, M.self, priority, nil, senders, exactSender, once, owner, handling, whenGone, isObserved: isObserved
        )
    }

    /// A registration for every mail whose type conforms to the protocol `P` (`any P`; `any Mail` for all
    /// mail), whose handler `handling` calls where and when it says. Other parameters as for
    /// ``make(in:_:priority:senders:exactSender:once:tiedTo:recipient:whenGone:reportsItsDeliveries:_:)``.
    @usableFromInline
    static func make<P>(
        in office: borrowing PostOffice,
        conformingTo _: P.Type,
        priority: Priority = .normal,
        senders: SenderFilter = .any,
        exactSender: SendableObject? = nil,
        once: Bool = false,
        tiedTo owner: SendableObject? = nil,
        _ handling: Conforming
    ) -> Registration {
        let isWiretap = P.self == (any Mail).self
        let conformance = Conformance(
            admits: { $0 is P && !(isWiretap && $0 is UndeliveredMail) },
            handler: handling.handler,
            isWiretap: isWiretap
        )
        return Registration(
            office, P.self, priority, conformance, senders, exactSender, once, owner,
            Handling(handling.place, unusedHandler), nil, isObserved: office.sortingOffice.instrumenter != nil)
    }

    /// The handler of a registration that delivers some other way (a mailbox, a conformance).
    @usableFromInline
    static let unusedHandler: Handler = { _, _, _ in }

    /// A registration of `registeredType` (a mail type, or a protocol's existential with its `conformance`), with
    /// the parameters of ``make(in:_:priority:senders:exactSender:once:tiedTo:recipient:whenGone:reportsItsDeliveries:_:)``;
    /// a ``MethodRegistration`` passes `hasRecipient`.
    init(
        _ office: borrowing PostOffice, _ registeredType: Any.Type, _ priority: Priority, _ conformance: Conformance?,
        _ senders: SenderFilter, _ exactSender: SendableObject?, _ isOneShot: Bool, _ owner: SendableObject?,
        _ handling: Handling, _ whenGone: (@Sendable () -> Void)?, isObserved: Bool, hasRecipient: Bool = false
    ) {
        self.registeredType = registeredType
        self.priority = priority
        self.hasRecipient = hasRecipient
        // Moved rather than copied: copying an enum with payloads is a call.
        if let exactSender {
            self.senders = .instance(ObjectIdentifier(exactSender))
        } else {
            self.senders = senders
        }
        mayReceiveUndeliveredMail =
            conformance.map { $0.admits(UndeliveredMail.probe) } ?? (registeredType == UndeliveredMail.self)
        let consuming = handling.consuming
        if conformance != nil || consuming != nil || exactSender != nil || owner != nil || whenGone != nil {
            particulars = Particulars(
                conformance: conformance, consuming: consuming, sender: exactSender, owner: owner, whenGone: whenGone
            )
        } else {
            particulars = nil
        }
        mayThrow = handling.mayThrow
        if case .mainActor = handling.place, conformance == nil, !handling.mayThrow, owner == nil, !isOneShot,
            !isObserved
        {
            isPlainMainActor = true
        } else {
            isPlainMainActor = false
        }
        if case .now = handling.place, conformance == nil, !handling.mayThrow, owner == nil, !isOneShot,
            !isObserved
        {
            life = nil
        } else {
            life = Lifecycle(
                place: handling.place, oneShot: isOneShot, tied: owner != nil, observed: isObserved,
                office: office.sortingOffice)
        }
        handler = handling.handler
    }

    deinit {
        particulars?.whenGone?()
    }

    /// False once a method recipient, an exact sender or the owner it was tied to has gone, or once a
    /// one-shot registration was delivered.
    var isAlive: Bool {
        (!hasRecipient || recipient != nil) && (sender != nil || !senders.isInstance)
            && (!isTied || owner != nil) && !isSpent
    }

    /// True for a registration that can stop being alive without being unregistered.
    var isMortal: Bool {
        hasRecipient || senders.isInstance || isTied || isOneShot
    }

    /// True for a registration made with `once: true`: it ends once it was delivered.
    var isOneShot: Bool { life?.isOneShot == true }
    /// True for a registration made with `tiedTo:`: it ends when its owner goes.
    var isTied: Bool { life?.isTied == true }
    /// True for a one-shot registration that was delivered.
    var isSpent: Bool { life?.isSpent == true }

    /// Ends the registration's deliveries: those that wait and have not started are dropped, and it receives
    /// no more. Called when it is removed.
    func withdraw() {
        life?.remove()
    }

    /// This registration's address, as routes store it.
    var address: UInt { UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()) }

    /// Calls `body` with the registration at `address` without retaining it: the caller's read section keeps
    /// it alive.
    @inline(__always)
    static func withRegistration<Result>(at address: UInt, _ body: (Registration) -> Result) -> Result {
        Unmanaged<Registration>.fromOpaque(UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped)
            ._withUnsafeGuaranteedRef(body)
    }
}
