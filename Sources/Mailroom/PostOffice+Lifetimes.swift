/// Tying a registration's life to something else: a token, an owner, or its first delivery.
///
/// These wrap the ordinary `register` calls rather than adding forms of their own: `oneShot` and `tie(to:)`
/// apply to the registrations made on the office they are called on, on the calling thread, while their closure
/// runs, and nest. Registrations made on another office inside the closure are not affected.
extension PostOffice {
    /// A token that removes the registration `id` when it is released or cancelled.
    public func token(for id: RecipientId) -> RecipientToken {
        RecipientToken(id, in: self)
    }

    /// Makes the registrations made on this office in `body` one-shot: each is removed after its first delivery,
    /// which happens exactly once even when several threads post at the same moment.
    ///
    /// ```swift
    /// office.oneShot { office.register { (ready: LaunchFinished) in showWhatsNew() } }
    /// ```
    /// A one-shot registration that was delivered no longer counts in ``registrationCount``, and is reclaimed
    /// like a registration whose recipient has gone.
    /// - Returns: What `body` returns, usually the id of the registration.
    @discardableResult
    public func oneShot<Result>(_ body: () throws -> Result) rethrows -> Result {
        try EnrollmentOptions.with(office: self, oneShot: true, body)
    }

    /// Ties the registrations made on this office in `body` to `owner`: each is removed when `owner` deallocates,
    /// without waiting for a post, even if it is a closure registration.
    ///
    /// ```swift
    /// office.tie(to: self) {
    ///     office.register { [weak self] (change: CartChanged) in self?.render(change) }
    /// }
    /// ```
    /// The office holds `owner` weakly. A closure that captures `owner` strongly keeps it alive through the
    /// closure, which the office holds: capture it weakly, as above.
    /// - Returns: What `body` returns.
    @discardableResult
    public func tie<Result>(to owner: some AnyObject & Sendable, _ body: () throws -> Result) rethrows -> Result {
        try EnrollmentOptions.with(office: self, owner: owner, body)
    }
}
