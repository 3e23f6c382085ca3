/// What went wrong in a ``PostgresLink``: thrown to the caller where there is one, otherwise reported as a
/// `DeliveryFailure` on the link's office, as a recipient's failure is.
public enum PostgresLinkError: Error, Equatable, CustomStringConvertible {
    /// A linked type's name or channel is not one PostgreSQL can carry (thrown by the link's initializer).
    case invalidName(String, reason: String)
    /// Two carried types have the same ``LinkedMail/linkedName`` on the same channel (thrown by the initializer).
    case duplicateName(String, channel: String)
    /// The configuration's origin is empty or contains a newline or a NUL (thrown by the initializer).
    case invalidOrigin(String)
    /// ``PostgresLink/run()`` was called while it was running.
    case alreadyRunning
    /// ``PostgresLink/post(_:in:)`` was given mail of a type the link does not carry: not sent.
    case notCarried(String)
    /// A mail's JSON is larger than ``PostgresLink/Configuration/maximumMailSize``: not sent, or not decoded.
    case mailTooLarge(bytes: Int, limit: Int)
    /// Mail arrived on a carried channel under a name that this process does not carry on it: not decoded.
    case unknownMailType(name: String, channel: String)
    /// A notification on a carried channel that no link wrote; the link reads the outbox instead.
    case malformedNotification(String, channel: String)
    /// Mail this process should have received had left the outbox before it could read it: it was disconnected
    /// for longer than ``PostgresLink/Configuration/retention``.
    case missedMail(channel: String, sequences: ClosedRange<Int64>)

    /// One line that says what happened.
    public var description: String {
        switch self {
        case .invalidName(let name, let reason):
            return "the linked name or channel \"\(name)\" cannot be used: \(reason)"
        case .duplicateName(let name, let channel):
            return "two carried types are named \"\(name)\" on the channel \"\(channel)\""
        case .invalidOrigin(let origin):
            return "the origin \"\(origin)\" is empty or contains a newline or a NUL"
        case .alreadyRunning:
            return "the link is running already"
        case .notCarried(let name):
            return "the link does not carry \"\(name)\""
        case .mailTooLarge(let bytes, let limit):
            return "a mail of \(bytes) bytes of JSON is over the link's limit of \(limit)"
        case .unknownMailType(let name, let channel):
            return "mail named \"\(name)\" on the channel \"\(channel)\" is not carried by this process"
        case .malformedNotification(let payload, let channel):
            return "the notification \"\(payload.prefix(80))\" on the channel \"\(channel)\" is not a link's"
        case .missedMail(let channel, let sequences):
            return "mail \(sequences) on the channel \"\(channel)\" left the outbox before this process read it"
        }
    }
}
