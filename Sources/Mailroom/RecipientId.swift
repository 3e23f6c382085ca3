internal import _MailroomAtomics

/// Identifies one registration; pass it to ``PostOffice/unregister(_:)-(RecipientId)`` to remove it.
///
/// Every registration in the process gets a different id, whichever thread or office made it, and an id is
/// never reused while the process runs. Unregistering an id that is unknown to an office, already removed,
/// or from another office changes nothing.
public struct RecipientId: Hashable, Sendable, CustomStringConvertible {
    private let number: UInt64

    /// The key of this registration in its office's tables.
    var key: UInt64 { number }

    static func next() -> RecipientId {
        RecipientId(number: mailroom_next_registration_number())
    }

    /// `RecipientId(n)`, where `n` counts registrations in the process from 1.
    public var description: String { "RecipientId(\(number))" }
}
