/// Posting ``VerifiedMail``: only with a sender of its required class.
extension PostOffice {
    /// Posts `mail` from `sender`, an instance of the mail's ``VerifiedMail/RequiredSender``.
    @inlinable
    public func post<M: VerifiedMail>(_ mail: M, sender: M.RequiredSender) {
        let unretained = Unmanaged<SendableObject>.passUnretained(sender)
        withUnsafePointer(to: mail) {
            sortingOffice.post(UnsafeRawPointer($0), type: type(of: mail), sender: unretained)
        }
    }

    /// Deprecated: verified mail is posted with a sender of its `RequiredSender` class.
    @available(*, deprecated, message: "VerifiedMail is posted with a sender of its RequiredSender class")
    @inlinable
    public func post<M: VerifiedMail>(_ mail: M) {
        withUnsafePointer(to: mail) { sortingOffice.post(UnsafeRawPointer($0), type: type(of: mail)) }
    }

    /// Deprecated: verified mail is posted with a sender of its `RequiredSender` class.
    @available(*, deprecated, message: "VerifiedMail is posted with a sender of its RequiredSender class")
    @inlinable
    public func post<M: VerifiedMail, S: AnyObject & Sendable>(_ mail: M, sender: S?) {
        guard let unretained = sender.map({ Unmanaged<SendableObject>.passUnretained($0) }) else {
            return withUnsafePointer(to: mail) { sortingOffice.post(UnsafeRawPointer($0), type: type(of: mail)) }
        }
        withUnsafePointer(to: mail) {
            sortingOffice.post(UnsafeRawPointer($0), type: type(of: mail), sender: unretained)
        }
    }
}
