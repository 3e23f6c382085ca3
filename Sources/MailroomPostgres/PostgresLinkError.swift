#if Postgres
/// What went wrong in a ``PostgresLink``: thrown to the caller where there is one, otherwise reported as a
/// `DeliveryFailure` on the link's office, as a recipient's failure is.
///
/// Tell errors apart by their ``code``; the other properties say what the error was about, and are `nil` where they
/// do not apply. New codes may be added in any release, so a `switch` over codes needs a `default`.
///
/// ```swift
/// do {
///     try await link.run()
/// } catch let error as PostgresLinkError where error.code == .originInUse {
///     print("another process runs as \(error.origin ?? "?")")
/// }
/// ```
public struct PostgresLinkError: Error, Hashable, CustomStringConvertible {
    /// The kind of error. Compare it with the static members, such as `error.code == .missedMail`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) { self.name = name }

        /// A linked type's name or channel is not one PostgreSQL can carry (thrown by the link's initializer).
        public static let invalidName = Code("invalidName")
        /// Two carried types have the same ``LinkedMail/linkedName`` on the same channel (thrown by the
        /// initializer).
        public static let duplicateName = Code("duplicateName")
        /// The configuration cannot be used: its origin is empty or contains a newline or a NUL, or its table prefix
        /// or schema does not make a valid PostgreSQL name (thrown by the initializer).
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// ``PostgresLink/run()`` was called while it was running, or a subscription was added or changed while the
        /// link was running.
        public static let alreadyRunning = Code("alreadyRunning")
        /// The link did not reach the database within ``PostgresLink/Configuration/firstConnectionTimeout`` of its start
        /// (thrown by ``PostgresLink/run()`` and ``PostgresLink/listening()``).
        public static let unreachable = Code("unreachable")
        /// Another live link has this link's ``PostgresLink/Configuration/origin`` (thrown by
        /// ``PostgresLink/run()`` and ``PostgresLink/listening()`` when the link starts; reported as a failure when
        /// it happens after a reconnection).
        public static let originInUse = Code("originInUse")
        /// ``PostgresLink/post(_:in:)`` was given mail of a type the link does not carry: not sent.
        public static let notCarried = Code("notCarried")
        /// A mail's JSON is larger than ``PostgresLink/Configuration/maximumMailSize``: not sent, or not decoded.
        public static let mailTooLarge = Code("mailTooLarge")
        /// ``PostgresLink/Configuration/maximumUnsent`` mail were waiting to be written: the post was not sent.
        public static let queueFull = Code("queueFull")
        /// Mail arrived on a carried channel under a name that this process does not carry on it: not decoded.
        public static let unknownMailType = Code("unknownMailType")
        /// A notification on a carried channel that no link wrote; the link reads the outbox instead.
        public static let malformedNotification = Code("malformedNotification")
        /// Mail this process should have received had left the outbox before it could read it: it was disconnected
        /// for longer than ``PostgresLink/Configuration/retention``.
        public static let missedMail = Code("missedMail")

        /// A second subscription was given a name that the link has one of already
        /// (thrown by ``PostgresLink/subscription(_:startingAt:maximumAttempts:)``).
        public static let duplicateSubscription = Code("duplicateSubscription")
        /// ``PostgresSubscription/moveBack(_:in:)`` was given a dead letter that is not among the subscription's.
        public static let unknownDeadLetter = Code("unknownDeadLetter")

        /// The code's name, such as `missedMail`.
        public var description: String { name }
    }

    /// What kind of error it is.
    public var code: Code
    /// The linked name or channel that was wrong, or the name of the mail type involved.
    public var name: String?
    /// The channel involved.
    public var channel: String?
    /// The origin involved: this link's, for ``Code/originInUse`` and ``Code/invalidConfiguration``.
    public var origin: String?
    /// The size of the mail that was too large, in bytes of JSON, or how many mail were waiting when the queue was
    /// full.
    public var size: Int?
    /// The limit that was exceeded.
    public var limit: Int?
    /// The sequence numbers of the mail that was missed.
    public var sequences: ClosedRange<Int64>?
    /// The name of the ``PostgresSubscription`` involved.
    public var subscription: String?
    /// Further detail in words: why a name is invalid, the notification that was malformed, what could not be
    /// reached and why, who holds the origin.
    public var detail: String?

    init(
        _ code: Code, name: String? = nil, channel: String? = nil, origin: String? = nil, size: Int? = nil,
        limit: Int? = nil, sequences: ClosedRange<Int64>? = nil, subscription: String? = nil, detail: String? = nil
    ) {
        self.code = code
        self.name = name
        self.channel = channel
        self.origin = origin
        self.size = size
        self.limit = limit
        self.sequences = sequences
        self.subscription = subscription
        self.detail = detail
    }

    /// One line that says what happened.
    public var description: String {
        let name = self.name.map { "\"\($0)\"" } ?? "?"
        let channel = self.channel.map { "\"\($0)\"" } ?? "?"
        let detail = self.detail ?? ""
        switch code {
        case .invalidName where subscription != nil:
            return "the subscription name \"\(subscription ?? "")\" cannot be used: \(detail)"
        case .invalidName:
            return "the linked name or channel \(name) cannot be used: \(detail)"
        case .duplicateName where subscription != nil:
            return "the subscription \"\(subscription ?? "")\" receives \(name) already"
        case .duplicateName:
            return "two carried types are named \(name) on the channel \(channel)"
        case .duplicateSubscription:
            return "the link has a subscription named \"\(subscription ?? "")\" already"
        case .invalidConfiguration where subscription != nil:
            return "the subscription \"\(subscription ?? "")\" cannot be made: \(detail)"
        case .invalidConfiguration:
            return "the link's configuration cannot be used: \(detail)"
        case .unknownDeadLetter:
            return "the subscription \"\(subscription ?? "")\" has no such dead letter: \(detail)"
        case .alreadyRunning:
            return "the link is running already"
        case .unreachable:
            return "the link could not reach the database: \(detail)"
        case .originInUse:
            return "another live link has the origin \"\(origin ?? "")\": \(detail)"
        case .notCarried:
            return "the link does not carry \(name)"
        case .mailTooLarge:
            return "a mail of \(size ?? 0) bytes of JSON is over the link's limit of \(limit ?? 0)"
        case .queueFull:
            return "\(size ?? 0) mail are waiting to be written, the link's limit: this one was not sent"
        case .unknownMailType:
            return "mail named \(name) on the channel \(channel) is not carried by this process"
        case .malformedNotification:
            return "the notification \"\(detail.prefix(80))\" on the channel \(channel) is not a link's"
        case .missedMail:
            let sequences = self.sequences.map { "\($0.lowerBound)...\($0.upperBound)" } ?? "?"
            let reader = subscription.map { "the subscription \"\($0)\"" } ?? "this process"
            return "mail \(sequences) on the channel \(channel) left the outbox before \(reader) read it"
        default:
            return "\(code): \(detail)"
        }
    }
}
#endif
