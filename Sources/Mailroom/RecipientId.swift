internal import _MailroomAtomics

/// Identifies one registration; pass it to ``PostOffice/unregister(_:)-(RecipientId)`` to remove it.
///
/// Every registration in the process gets a different id, whichever thread or office made it, and an id is
/// never reused while the process runs. Unregistering an id that is unknown to an office, already removed,
/// or from another office changes nothing.
public struct RecipientId: Hashable, Sendable, CustomStringConvertible {
    /// Unique in the process: counts registrations from 1.
    let number: UInt64
    /// Where the office that made the registration keeps it (see ``RegistrationSlots``); fixed by `number`.
    let slot: Int

    /// The id of a new registration, to be kept in `slot`.
    static func next(slot: Int) -> RecipientId {
        RecipientId(number: mailroom_next_registration_number(), slot: slot)
    }

    /// `RecipientId(n)`, where `n` counts registrations in the process from 1.
    public var description: String { "RecipientId(\(number))" }
}
