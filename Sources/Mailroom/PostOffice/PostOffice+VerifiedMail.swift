/// Posting ``VerifiedMail``: only with a sender of its required class, also when it is sticky or awaited.
///
/// The forms without a sender, or with a sender of any other class, are deprecated, so that the compiler flags
/// them (an error when warnings are errors). Generic code that only knows its mail as `some Mail` is not
/// checked: mail posted that way without a sender reaches only the handlers that do not require one.
extension PostOffice {
    /// Posts `mail` from `sender`, an instance of the mail's ``VerifiedMail/RequiredSender``.
    @inlinable
    public func post<M: VerifiedMail>(_ mail: M, sender: M.RequiredSender) {
        let unretained = Unmanaged<SendableObject>.passUnretained(sender)
        withUnsafePointer(to: mail) {
            sortingOffice.post(UnsafeRawPointer($0), type: type(of: mail), sender: unretained)
        }
    }

    /// Posts `mail` from `sender` and keeps it, when `sticky`, like ``post(_:sender:sticky:)``.
    @inlinable
    public func post<M: VerifiedMail>(_ mail: M, sender: M.RequiredSender, sticky: Bool) {
        if sticky {
            sortingOffice.keepSticky(mail, sender: sender)
        }
        post(mail, sender: sender)
    }

    /// Posts `mail` from `sender` and waits until every recipient has handled it, then throws if any of them
    /// threw, like ``deliver(_:)-9cnzh``.
    @inlinable
    public func deliver<M: VerifiedMail>(_ mail: M, sender: M.RequiredSender) async throws(DeliveryFailures) {
        try await deliver(mail, from: sender)
    }

    /// Posts `mail` from `sender` and waits until every recipient has handled it, without throwing, like
    /// ``deliverIgnoringFailures(_:)-3a3v5``.
    @inlinable
    public func deliverIgnoringFailures<M: VerifiedMail>(_ mail: M, sender: M.RequiredSender) async {
        _ = await deliverReporting(mail, from: sender)
    }

    // MARK: - Flagged

    /// Deprecated: verified mail is posted with a sender of its `RequiredSender` class.
    @available(*, deprecated, message: "VerifiedMail is posted with a sender of its RequiredSender class")
    @inlinable
    public func post<M: VerifiedMail>(_ mail: M) {
        send(mail, from: nil)
    }

    /// Deprecated: verified mail is posted with a sender of its `RequiredSender` class.
    @available(*, deprecated, message: "VerifiedMail is posted with a sender of its RequiredSender class")
    @inlinable
    public func post<M: VerifiedMail, S: AnyObject & Sendable>(_ mail: M, sender: S?) {
        send(mail, from: sender)
    }

    /// Deprecated: verified mail is posted with a sender of its `RequiredSender` class.
    @available(*, deprecated, message: "VerifiedMail is posted with a sender of its RequiredSender class")
    @inlinable
    public func post<M: VerifiedMail>(_ mail: M, sticky: Bool) {
        if sticky {
            sortingOffice.keepSticky(mail, sender: nil)
        }
        send(mail, from: nil)
    }

    /// Deprecated: verified mail is posted with a sender of its `RequiredSender` class.
    @available(*, deprecated, message: "VerifiedMail is posted with a sender of its RequiredSender class")
    @inlinable
    public func post<M: VerifiedMail, S: AnyObject & Sendable>(_ mail: M, sender: S?, sticky: Bool) {
        if sticky {
            sortingOffice.keepSticky(mail, sender: sender)
        }
        send(mail, from: sender)
    }

    /// Deprecated: verified mail is posted with a sender of its `RequiredSender` class.
    @available(*, deprecated, message: "VerifiedMail is posted with a sender of its RequiredSender class")
    @inlinable
    public func deliver<M: VerifiedMail>(_ mail: M) async throws(DeliveryFailures) {
        try await deliver(mail, from: nil)
    }

    /// Deprecated: verified mail is posted with a sender of its `RequiredSender` class.
    @available(*, deprecated, message: "VerifiedMail is posted with a sender of its RequiredSender class")
    @inlinable
    public func deliver<M: VerifiedMail, S: AnyObject & Sendable>(_ mail: M, sender: S?) async throws(DeliveryFailures)
    {
        try await deliver(mail, from: sender)
    }

    /// Deprecated: verified mail is posted with a sender of its `RequiredSender` class.
    @available(*, deprecated, message: "VerifiedMail is posted with a sender of its RequiredSender class")
    @inlinable
    public func deliverIgnoringFailures<M: VerifiedMail>(_ mail: M) async {
        _ = await deliverReporting(mail, from: nil)
    }

    /// Deprecated: verified mail is posted with a sender of its `RequiredSender` class.
    @available(*, deprecated, message: "VerifiedMail is posted with a sender of its RequiredSender class")
    @inlinable
    public func deliverIgnoringFailures<M: VerifiedMail, S: AnyObject & Sendable>(_ mail: M, sender: S?) async {
        _ = await deliverReporting(mail, from: sender)
    }
}
