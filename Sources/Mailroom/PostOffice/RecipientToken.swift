/// Removes a registration when it is released (or cancelled): keep it as long as the registration should live.
///
/// ```swift
/// final class Screen {
///     private var tokens: [RecipientToken] = []
///     init(office: PostOffice) {
///         tokens.append(office.token(for: office.register { (change: CartChanged) in print(change) }))
///     }   // when the screen goes, its tokens go, and with them its registrations
/// }
/// ```
///
/// The token holds the office weakly and nothing else: a closure that captures its owner strongly is kept by
/// the office, not by the token, so the owner's lifetime decides when the token (and the registration) goes
/// only if the closure does not capture the owner. For a closure that must capture its owner, tie the
/// registration to the owner instead, with `tiedTo:`.
public final class RecipientToken: Sendable, Hashable {
    /// The registration this token removes.
    public let id: RecipientId
    private weak let office: PostOffice?

    /// A token that removes the registration `id` of `office`.
    public init(_ id: RecipientId, in office: PostOffice) {
        self.id = id
        self.office = office
    }

    deinit {
        office?.unregister(id)
    }

    /// Removes the registration now. Cancelling again, or releasing the token afterwards, changes nothing.
    public func cancel() {
        office?.unregister(id)
    }

    /// Tokens are equal when they are the same token.
    public static func == (lhs: RecipientToken, rhs: RecipientToken) -> Bool {
        lhs === rhs
    }

    /// Hashes the token's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

extension PostOffice {
    /// A token that removes the registration `id` when it is released or cancelled.
    public func token(for id: RecipientId) -> RecipientToken {
        RecipientToken(id, in: self)
    }
}
