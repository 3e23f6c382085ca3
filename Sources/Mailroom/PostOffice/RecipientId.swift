internal import _MailroomAtomics

/// Identifies one registration; pass it to ``PostOffice/unregister(_:)-(RecipientId)`` to remove it.
///
/// Every registration in the process gets a different id, whichever thread or office made it, and an id is
/// never reused while the process runs. Unregistering an id that is unknown to an office, already removed,
/// or from another office changes nothing.
public struct RecipientId: Hashable, Sendable, CustomStringConvertible {
    /// Unique in the process, from 1; increasing with each registration a thread makes.
    let number: UInt64
    /// Where the office that made the registration keeps it (see ``RegistrationSlots``); fixed by `number`.
    let slot: Int

    /// The id of a new registration, to be kept in `slot`.
    static func next(slot: Int) -> RecipientId {
        RecipientId(number: mailroom_next_registration_number(), slot: slot)
    }

    /// `RecipientId(n)`, where `n` is unique in the process, at least 1, and grows with each registration made
    /// on the same thread.
    public var description: String { "RecipientId(\(number))" }
}
