internal import _MailroomAtomics

/// Options that apply to the registrations made on one office, on the calling thread, while a
/// ``PostOffice/oneShot(_:)`` or ``PostOffice/tie(to:_:)`` closure called on that office runs. Kept in a
/// thread-local so that the register overloads need no extra parameters. The options of one office nest and
/// combine; those of another office do not apply.
final class EnrollmentOptions {
    /// The office whose registrations these options apply to.
    let office: ObjectIdentifier
    let isOneShot: Bool
    weak var owner: SendableObject?
    /// The options that were in effect on the thread before these, for any office.
    let outer: EnrollmentOptions?

    private init(office: ObjectIdentifier, isOneShot: Bool, owner: SendableObject?, outer: EnrollmentOptions?) {
        self.office = office
        self.isOneShot = isOneShot
        self.owner = owner
        self.outer = outer
    }

    /// The options in effect on the calling thread, for any office.
    private static var current: EnrollmentOptions? {
        mailroom_get_enrollment_options().map { Unmanaged<EnrollmentOptions>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The options in effect on the calling thread for the registrations of `office`.
    @inline(__always)
    static func current(for office: borrowing PostOffice) -> EnrollmentOptions? {
        guard let options = current else { return nil }
        return options.nearest(for: ObjectIdentifier(copy office))
    }

    /// The innermost options, from these outwards, that apply to `office`.
    private func nearest(for office: ObjectIdentifier) -> EnrollmentOptions? {
        var options: EnrollmentOptions? = self
        while let candidate = options, candidate.office != office {
            options = candidate.outer
        }
        return options
    }

    /// Runs `body` with these options added to the calling thread's options for `office`.
    static func with<Result>(
        office: PostOffice, oneShot: Bool = false, owner: SendableObject? = nil, _ body: () throws -> Result
    ) rethrows -> Result {
        let outer = current
        let same = outer?.nearest(for: ObjectIdentifier(office))
        let options = EnrollmentOptions(
            office: ObjectIdentifier(office),
            isOneShot: oneShot || same?.isOneShot == true,
            owner: owner ?? same?.owner,
            outer: outer
        )
        return try withExtendedLifetime(options) { try options.whileCurrent(body) }
    }

    private func whileCurrent<Result>(_ body: () throws -> Result) rethrows -> Result {
        let saved = mailroom_get_enrollment_options()
        mailroom_set_enrollment_options(Unmanaged.passUnretained(self).toOpaque())
        defer { mailroom_set_enrollment_options(saved) }
        return try body()
    }
}
