/// The last mail of one type from one sender (or without a sender), kept by the office for registrations made
/// later: see ``PostOffice/replayStickyMail(to:)``.
struct StickyLetter {
    /// A sender, identified while it lives; `nil` stands for "no sender" in a ``Key``.
    typealias SenderKey = ObjectIdentifier

    struct Key: Hashable {
        let mailType: ObjectIdentifier
        let sender: SenderKey?
    }

    let mail: any Mail
    /// When it was kept, numbered with the office's registrations (see ``Registry/keep(_:)``): to replay letters
    /// in post order, and only to registrations added after it.
    var number: UInt = 0
    private weak var sender: SendableObject?
    let senderKey: SenderKey?
    private let senderClass: AnyClass?

    init(_ mail: any Mail, sender: SendableObject?) {
        self.mail = mail
        self.sender = sender
        senderKey = sender.map(ObjectIdentifier.init)
        senderClass = sender.map { type(of: $0) }
    }

    var key: Key {
        Key(mailType: ObjectIdentifier(type(of: mail)), sender: senderKey)
    }

    /// The sender, when the letter had one and it still lives.
    var liveSender: SendableObject? { sender }

    /// True when the letter was posted by a sender that has since deallocated.
    var hasLostItsSender: Bool {
        senderKey != nil && sender == nil
    }

    /// Whether `registration` receives this mail, by the same rules as a post (its sender is checked to be
    /// alive apart, since loading a weak reference may run a `deinit`).
    func isAccepted(by registration: Registration) -> Bool {
        if let conformance = registration.conformance {
            guard conformance.admits(mail) else { return false }
        } else {
            guard Registry.lineage(of: type(of: mail)).contains(registration.mailType) else { return false }
        }
        if case .instance(let exactSender) = registration.senders {
            return exactSender == senderKey
        }
        return registration.senders.admits(senderClass: senderClass)
    }
}
