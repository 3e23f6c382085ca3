/// A registration whose handler is called with an object it holds weakly, its recipient: a method's (the
/// recipient's), an actor's (the actor).
///
/// A subclass, so that the other registrations do not pay these two words: a ``Registration`` fits an 80-byte
/// block of memory, where this one takes a 96-byte block. ``Registration/recipient`` and
/// ``Registration/recipientKey`` read them without a virtual call (``Registration/hasRecipient``).
final class MethodRegistration: Registration, @unchecked Sendable {
    weak let object: SendableObject?
    /// The recipient's identity, which outlives it: ``PostOffice/unregister(_:)-(AnyObject)`` finds the
    /// registration by it, and so does the sweep that removes the registration once the recipient has gone.
    let objectKey: ObjectIdentifier

    /// A registration for `recipient`; the other parameters as for ``Registration``'s.
    init(
        _ recipient: SendableObject, _ office: borrowing PostOffice, _ registeredType: Any.Type, _ priority: Priority,
        _ conformance: Conformance?, _ senders: SenderFilter, _ exactSender: SendableObject?, _ isOneShot: Bool,
        _ owner: SendableObject?, _ handling: Handling, _ whenGone: (@Sendable () -> Void)?, isObserved: Bool
    ) {
        object = recipient
        objectKey = ObjectIdentifier(recipient)
        super.init(
            office, registeredType, priority, conformance, senders, exactSender, isOneShot, owner, handling, whenGone,
            isObserved: isObserved, hasRecipient: true)
    }
}
