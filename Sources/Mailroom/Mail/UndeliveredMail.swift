/// Reports mail that no registration received: register for it to learn when a post reached nobody.
///
/// ```swift
/// office.register { (lost: UndeliveredMail) in log.warning("nobody received \(lost.mail)") }
/// ```
///
/// A post whose mail no registration received (none was registered for its type and sender, or every one
/// it reached had a recipient that had gone) is followed by a post of `UndeliveredMail` wrapping it, to the
/// registrations for `UndeliveredMail` (and for protocols it was made to conform to). A recipient whose handler
/// threw, or that consumed the mail, received it. Catch-all registrations (`any Mail`) are wiretaps: they
/// neither count as receiving mail nor see these reports, so a logger or a `MailRecorder` does not change what
/// is reported. Sticky mail nobody received yet is reported too, though
/// it is kept. While nothing is registered for it, checking costs one load per post that reached nobody, and
/// nothing otherwise. An `UndeliveredMail` that itself reaches nobody is not reported again.
public struct UndeliveredMail: Mail {
    /// The mail that no registration received.
    public let mail: any Mail
    /// Its sender, if it was posted with one.
    public let sender: (any AnyObject & Sendable)?

    /// Wraps `mail`, posted by `sender`.
    public init(mail: any Mail, sender: (any AnyObject & Sendable)?) {
        self.mail = mail
        self.sender = sender
    }
}

extension UndeliveredMail {
    /// A report, to ask a registration for a protocol whether it would receive reports.
    static let probe = UndeliveredMail(mail: Nothing(), sender: nil)

    private struct Nothing: Mail {}
}
