/// Which senders' posts a registration receives.
@usableFromInline
enum SenderFilter: Sendable {
    /// Every post of the mail type, with or without a sender: handlers that take no sender.
    case any
    /// Posts whose sender is an instance of a class, or of a subclass of it (`admitsClass`), and, when
    /// `orNoSender`, posts without a sender: handlers `(M, S)` and `(M, S?)`.
    case kind(admitsClass: @Sendable (AnyClass) -> Bool, orNoSender: Bool, senderType: Any.Type)
    /// Posts whose sender is one object (`===`), identified here while it lives.
    case instance(ObjectIdentifier)

    /// Posts whose sender is an `S`, or, when `orNoSender`, that have no sender. `S` is a class, or
    /// `any AnyObject & Sendable` for every sender.
    @usableFromInline
    static func kind<S: AnyObject>(_: S.Type, orNoSender: Bool) -> SenderFilter {
        // For the existential, `$0 is S.Type` asks whether a class *is* the existential type: never.
        let admitsEverySender = S.self == (any AnyObject & Sendable).self
        return .kind(admitsClass: { admitsEverySender || $0 is S.Type }, orNoSender: orNoSender, senderType: S.self)
    }

    /// Whether posts from a sender of `senderClass` (`nil`: no sender) reach this registration. Always
    /// false for ``instance(_:)``, which is matched by identity instead.
    func admits(senderClass: AnyClass?) -> Bool {
        switch self {
        case .any:
            return true
        case .kind(let admitsClass, let orNoSender, _):
            return senderClass.map(admitsClass) ?? orNoSender
        case .instance:
            return false
        }
    }

    var isInstance: Bool {
        if case .instance = self { return true }
        return false
    }
}
