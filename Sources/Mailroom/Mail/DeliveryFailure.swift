/// Reports a recipient whose handler threw: register for it to learn of every failure.
///
/// ```swift
/// office.register { (failure: DeliveryFailure) in
///     log.error("\(failure.recipient) failed on \(failure.mail): \(failure.error)")
/// }
/// ```
///
/// When a handler throws, the recipients after it are still served, in order, and the office posts a
/// `DeliveryFailure` right away, on the thread where the handler ran, with the failed mail's sender as its
/// sender: registrations for `DeliveryFailure`, those that filter by that sender, and catch-alls (`any Mail`)
/// receive it. ``PostOffice/deliver(_:)-9cnzh`` throws the failures of the mail it delivered as well (it does
/// not wait for the recipients of the reports that run later, on a queue or a task).
///
/// A failure is never lost and never loops. When no registration receives the report (catch-alls do not count,
/// as for ``UndeliveredMail``), or when a handler of a `DeliveryFailure` throws in turn, the failure goes to the
/// office's fallback instead of being posted: by default one line on standard error for the first failure of
/// each kind (mail type and error type), or the handler given to ``PostOffice/init(unheardFailures:)``.
public struct DeliveryFailure: Mail {
    /// The mail whose handler threw: a copy of the posted value.
    public let mail: any Mail
    /// The post's sender, if it was posted with one and is still alive.
    public let sender: (any AnyObject & Sendable)?
    /// The registration whose handler threw.
    public let recipient: RecipientId
    /// What it threw.
    public let error: any Error

    /// A report that `recipient` threw `error` on `mail`, posted by `sender`.
    public init(mail: any Mail, sender: (any AnyObject & Sendable)?, recipient: RecipientId, error: any Error) {
        self.mail = mail
        self.sender = sender
        self.recipient = recipient
        self.error = error
    }
}

extension DeliveryFailure: CustomStringConvertible {
    /// One line: `RecipientId(7) threw PaymentDeclined() on OrderPlaced(id: 4)`.
    public var description: String {
        "\(recipient) threw \(error) on \(mail)"
    }
}
