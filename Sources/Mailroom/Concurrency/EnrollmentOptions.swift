internal import _MailroomAtomics

/// Options that apply to every registration made on the calling thread while a ``PostOffice/oneShot(_:)`` or
/// ``PostOffice/tie(to:_:)`` closure runs. Kept in a thread-local so that the register overloads need no
/// extra parameters; nested closures combine their options.
final class EnrollmentOptions {
    let isOneShot: Bool
    weak var owner: SendableObject?

    private init(isOneShot: Bool, owner: SendableObject?) {
        self.isOneShot = isOneShot
        self.owner = owner
    }

    /// The options in effect on the calling thread.
    static var current: EnrollmentOptions? {
        mailroom_get_enrollment_options().map { Unmanaged<EnrollmentOptions>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `body` with these options added to the calling thread's.
    static func with<Result>(
        oneShot: Bool = false, owner: SendableObject? = nil, _ body: () throws -> Result
    ) rethrows -> Result {
        let outer = current
        let options = EnrollmentOptions(
            isOneShot: oneShot || outer?.isOneShot == true,
            owner: owner ?? outer?.owner
        )
        let saved = mailroom_get_enrollment_options()
        mailroom_set_enrollment_options(Unmanaged.passUnretained(options).toOpaque())
        defer { mailroom_set_enrollment_options(saved) }
        return try withExtendedLifetime(options) { try body() }
    }
}
