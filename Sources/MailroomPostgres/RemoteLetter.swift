#if Postgres
import Mailroom

/// Mail as it arrived from the database, before it is decoded: what a `DeliveryFailure` of a ``PostgresLink``
/// carries as its mail, so that a failure says which mail could not be delivered.
///
/// The link posts each arrival as a `RemoteLetter` to its own recipient, which decodes it and posts the typed mail;
/// when decoding fails, the office reports that recipient's `DeliveryFailure`, whose `mail` is this letter and
/// whose `error` says why (a `DecodingError`, or a ``PostgresLinkError``). The link goes on with the next mail.
/// Registering for `RemoteLetter` observes every arrival, decoded or not.
public struct RemoteLetter: Mail, CustomStringConvertible {
    /// The channel it arrived on.
    public let channel: String
    /// Its place in its channel's order: 1, 2, 3 … for the mail committed on the channel, in commit order.
    public let sequence: Int64
    /// The ``PostgresLink/Configuration/origin`` of the link that sent it.
    public let origin: String
    /// The ``LinkedMail/linkedName`` it was sent under.
    public let linkedName: String
    /// Its JSON.
    public let body: String

    /// Whether this process's own link wrote it (mail it sent in a transaction, delivered here as local mail).
    let isOwn: Bool
    /// Why it cannot be delivered, if known before it is posted: a ``PostgresLinkError``, or the error of a
    /// subscription's recipient.
    let fault: (any Error)?

    init(
        channel: String, sequence: Int64, origin: String, isOwn: Bool, linkedName: String, body: String,
        fault: (any Error)? = nil
    ) {
        self.channel = channel
        self.sequence = sequence
        self.origin = origin
        self.isOwn = isOwn
        self.linkedName = linkedName
        self.body = body
        self.fault = fault
    }

    /// `RemoteLetter(channel #sequence from origin: linkedName, N bytes)`.
    public var description: String {
        "RemoteLetter(\(channel) #\(sequence) from \(origin): \(linkedName), \(body.utf8.count) bytes)"
    }
}
#endif
