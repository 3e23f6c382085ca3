// The names PonyExpress used for things Mailroom has under another name, so that code written for PonyExpress
// builds after its import changes. Each one is deprecated with a fix-it to Mailroom's name; names whose behaviour
// differs are not aliased (see MigratingFromPonyExpress.md).

/// PonyExpress 2's name for ``Mail``: mail that any sender, or none, may post.
///
/// A type that conformed to `UnverifiedMail` conforms to ``Mail`` now, with the same meaning. PonyExpress 2's
/// other protocol, `VerifiedMail`, has the same name here: ``VerifiedMail``.
@available(*, deprecated, renamed: "Mail")
public typealias UnverifiedMail = Mail

extension PostOffice {
    /// PonyExpress's name for ``registrationCount``: the number of live registrations.
    ///
    /// One difference, on purpose: a registration whose method recipient or exact sender has deallocated is not
    /// counted, also before the next post. PonyExpress counted it until a post of its mail type removed it.
    @available(*, deprecated, renamed: "registrationCount")
    public var count: Int {
        registrationCount
    }
}
