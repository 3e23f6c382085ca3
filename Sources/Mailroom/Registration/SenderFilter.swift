/// Which senders' posts a registration receives.
@usableFromInline
enum SenderFilter: Sendable {
    /// Every post of the mail type, with or without a sender: handlers that take no sender.
    case any
    /// Posts whose sender is an instance of a class, or of a subclass of it, and, when the kind says so, posts
    /// without a sender: handlers `(M, S)` and `(M, S?)`.
    case kind(SenderKind)
    /// Posts whose sender is one object (`===`), identified here while it lives.
    case instance(ObjectIdentifier)

    /// Posts whose sender is an `S`, or, when `orNoSender`, that have no sender. `S` is a class, or
    /// `any AnyObject & Sendable` for every sender.
    @usableFromInline
    static func kind<S: AnyObject>(_: S.Type, orNoSender: Bool) -> SenderFilter {
        // For the existential, `$0 is S.Type` asks whether a class *is* the existential type: never.
        let admitsEverySender = S.self == (any AnyObject & Sendable).self
        if admitsEverySender, orNoSender {
            return .any
        }
        return .kind(
            SenderKind(admitsClass: { admitsEverySender || $0 is S.Type }, orNoSender: orNoSender, senderType: S.self))
    }

    /// Whether posts from a sender of `senderClass` (`nil`: no sender) reach this registration. Always
    /// false for ``instance(_:)``, which is matched by identity instead.
    func admits(senderClass: AnyClass?) -> Bool {
        switch self {
        case .any:
            return true
        case .kind(let kind):
            return senderClass.map(kind.admitsClass) ?? kind.orNoSender
        case .instance:
            return false
        }
    }

    var isInstance: Bool {
        if case .instance = self { return true }
        return false
    }
}

/// The senders a ``SenderFilter/kind(_:)`` filter admits. An object, so that the filter, which every registration
/// stores, takes a word and a tag rather than four words.
@usableFromInline
final class SenderKind: Sendable {
    /// Whether a sender of this class, or of a subclass of it, is admitted.
    let admitsClass: @Sendable (AnyClass) -> Bool
    /// Whether posts without a sender are admitted.
    let orNoSender: Bool
    /// The sender type the handler takes, for introspection.
    let senderType: Any.Type

    init(admitsClass: @escaping @Sendable (AnyClass) -> Bool, orNoSender: Bool, senderType: Any.Type) {
        self.admitsClass = admitsClass
        self.orNoSender = orNoSender
        self.senderType = senderType
    }
}
