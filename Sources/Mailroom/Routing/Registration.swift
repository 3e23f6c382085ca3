import Dispatch

/// A sender or a recipient: any object that may be handed to another thread.
@usableFromInline
typealias SendableObject = AnyObject & Sendable

/// One registration: which posts it accepts, and how it delivers them.
///
/// Immutable once made. The office keeps it alive while it is registered; routes refer to it by address.
///
/// The register overloads are `@inlinable` so that each builds its ``Handler`` in the caller's module, for
/// the caller's concrete types: there, a method reference `Screen.receive` is applied to its recipient
/// without allocating, which the generic form cannot do.
@usableFromInline
final class Registration: Sendable {
    /// Calls the user's closure or method with the posted mail (read from `mail` as the registered mail
    /// type), the post's sender, and the recipient of a method registration (known to be alive).
    @usableFromInline
    typealias Handler =
        @Sendable (_ mail: UnsafeRawPointer, _ sender: SendableObject?, _ recipient: SendableObject?) -> Void

    let id = RecipientId.next()
    let mailType: ObjectIdentifier
    let senders: SenderFilter
    let queue: DispatchQueue?
    /// The exact sender of a `register(sender:...)` registration.
    weak let sender: SendableObject?
    /// The recipient of a method registration.
    weak let recipient: SendableObject?
    let recipientKey: ObjectIdentifier?
    /// Raised while registered; a queued delivery that finds it lowered is dropped. `nil` without a queue.
    let standing: AtomicFlag?
    private let handler: Handler
    /// The registered mail type, to copy the mail for a queued delivery.
    private let mailMetatype: any Mail.Type

    /// A registration for mail of type `M`.
    /// - Parameters:
    ///   - senders: the posts' senders it accepts; ignored when `exactSender` is given.
    ///   - exactSender: the only sender whose posts it receives, held weakly.
    ///   - recipient: the object whose method `handler` calls, held weakly.
    ///   - queue: where it is delivered; `nil` delivers on the posting thread before `post` returns.
    @usableFromInline
    init<M: Mail>(
        _: M.Type,
        senders: SenderFilter = .any,
        exactSender: SendableObject? = nil,
        recipient: SendableObject? = nil,
        queue: DispatchQueue?,
        handler: @escaping Handler
    ) {
        mailType = ObjectIdentifier(M.self)
        self.senders = exactSender.map { .instance(ObjectIdentifier($0)) } ?? senders
        self.queue = queue
        sender = exactSender
        self.recipient = recipient
        recipientKey = recipient.map(ObjectIdentifier.init)
        standing = queue == nil ? nil : AtomicFlag()
        self.handler = handler
        mailMetatype = M.self
    }

    /// Delivers mail whose type is the registered mail type or a subclass of it, from a sender this
    /// registration accepts: now, or onto its queue.
    @inline(__always)
    func deliver(_ mail: UnsafeRawPointer, from sender: SendableObject?) {
        if let queue {
            enqueue(mail, from: sender, on: queue)
        } else if recipientKey == nil {
            handler(mail, sender, nil)
        } else if let recipient {
            handler(mail, sender, recipient)
        }
    }

    /// Copies the mail, and delivers it on `queue` unless the registration is removed before that.
    @inline(never)
    private func enqueue(_ mail: UnsafeRawPointer, from sender: SendableObject?, on queue: DispatchQueue) {
        let mail = Self.copy(mail, as: mailMetatype)
        queue.async { [self] in
            guard standing?.isRaised == true else { return }
            let recipient = recipient
            guard recipientKey == nil || recipient != nil else { return }
            withUnsafePointer(toOpened: mail) { handler($0, sender, recipient) }
        }
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
