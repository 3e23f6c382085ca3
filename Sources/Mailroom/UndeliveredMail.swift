/// Reports mail that no registration received: register for it to learn when a post reached nobody.
///
/// ```swift
/// office.register { (lost: UndeliveredMail) in log.warning("nobody received \(lost.mail)") }
/// ```
///
/// A post whose mail no registration received (none was registered for its type and sender, or every one
/// it reached had a recipient that had gone) is followed by a post of `UndeliveredMail` wrapping it, to the
/// registrations for `UndeliveredMail` and the catch-all ones (`any Mail`). While nothing is registered for it,
/// checking costs one load per post that reached nobody, and nothing otherwise. An `UndeliveredMail` that
/// itself reaches nobody is not reported again.
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
