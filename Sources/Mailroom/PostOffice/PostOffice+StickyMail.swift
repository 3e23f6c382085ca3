/// Sticky mail: the office keeps the last mail of a type (from each sender), so that a registration made later
/// can receive it at once.
///
/// ```swift
/// office.post(SessionState(user: "ada"), sticky: true)
/// let id = office.register { (state: SessionState) in render(state) }
/// office.replayStickyMail(to: id)     // render(SessionState(user: "ada")) now
/// ```
extension PostOffice {
    /// Posts `mail` like ``post(_:)-8xae0`` and keeps it, when `sticky`, as the last mail of its type without a
    /// sender, replacing the one kept before. Mail of a ``StickyMail`` type is kept whatever `sticky` says.
    @inlinable
    public func post<M: Mail>(_ mail: M, sticky: Bool) {
        if sticky {
            sortingOffice.keepSticky(mail, sender: nil)
        }
        post(mail)
    }

    /// Posts `mail` from `sender` like ``post(_:sender:)-1bli2`` and keeps it, when `sticky`, as the last mail of
    /// its type from that sender (held weakly), replacing the one kept before. Mail of a ``StickyMail`` type is
    /// kept whatever `sticky` says.
    @inlinable
    public func post<M: Mail, S: AnyObject & Sendable>(_ mail: M, sender: S?, sticky: Bool) {
        if sticky {
            sortingOffice.keepSticky(mail, sender: sender)
        }
        post(mail, sender: sender)
    }

    /// Delivers to registration `id` the sticky mail kept that it would receive if it were posted now: by its
    /// mail type or protocol and its sender filter, oldest first, where and how the registration delivers.
    ///
    /// Call it right after registering, for the new registration to catch up with the current state.
    /// - Returns: The number of mails it received; 0 for an unknown or removed id.
    @discardableResult
    public func replayStickyMail(to id: RecipientId) -> Int {
        sortingOffice.replayStickyMail(to: id)
    }

    /// Forgets the sticky mail kept of type `M`, from every sender.
    public func clearStickyMail<M: Mail>(_ mailType: M.Type) {
        sortingOffice.clearStickyMail(M.self, sender: nil)
    }

    /// Forgets the sticky mail kept of type `M` from `sender`.
    public func clearStickyMail<M: Mail, S: AnyObject & Sendable>(_ mailType: M.Type, sender: S) {
        sortingOffice.clearStickyMail(M.self, sender: sender)
    }
}
