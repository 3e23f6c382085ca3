#if Postgres
import Foundation
import Mailroom

/// What the link does with one carried type, built from the type itself so that nothing is cast: forward its local
/// posts, and decode and post what arrives under its name.
struct Carriage: Sendable {
    let linkedName: String
    let channel: String
    /// Registers, on the link's office, the recipient that sends the type's local posts.
    let forwardPosts: @Sendable (LinkCore) -> RecipientId
    /// Decodes a body and posts the mail from `origin`, or, for `nil`, as this process's own mail.
    let deliver: @Sendable (_ body: String, _ origin: RemoteOrigin?, LinkCore) throws -> Void

    init<M: LinkedMail>(_: M.Type) {
        linkedName = M.linkedName
        channel = M.linkedChannel
        let (name, channel) = (linkedName, channel)
        forwardPosts = { core in
            // Mail that arrived from another process was posted with its origin as sender and is not sent back.
            core.office.register { [weak core] (mail: M, sender: (any AnyObject & Sendable)?) throws in
                guard let core, !(sender is RemoteOrigin) else { return }
                let body = try Carriage.encode(mail, limit: core.configuration.maximumMailSize)
                try core.sender.forward(
                    Outgoing(channel: channel, linkedName: name, body: body, context: core.telemetry.carrier()))
            }
        }
        deliver = { body, origin, core in
            let mail = try JSONDecoder().decode(M.self, from: Data(body.utf8))
            if let origin {
                core.office.post(mail, sender: origin)
            } else {
                // Mail this process sent in a transaction arrives here after the commit, as local mail; the
                // recipient above must not send it again, and recognises it by the JSON it encodes to.
                let echo = Outgoing(
                    channel: channel, linkedName: name,
                    body: try Carriage.encode(mail, limit: Int.max))
                core.sender.expectEcho(of: echo)
                defer { core.sender.forgetEcho(of: echo) }
                core.office.post(mail)
            }
        }
    }

    /// The JSON of `mail`, the same bytes for equal values within a process (keys sorted), or
    /// ``PostgresLinkError/Code/mailTooLarge``.
    static func encode<M: LinkedMail>(_ mail: M, limit: Int) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(mail)
        guard data.count <= limit else {
            throw PostgresLinkError(
                .mailTooLarge, name: M.linkedName, channel: M.linkedChannel, size: data.count, limit: limit)
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The mail whose JSON is `body`, or ``PostgresLinkError/Code/mailTooLarge`` when `body` is over `limit` bytes,
    /// or the decoder's error.
    static func decode<M: LinkedMail>(_ body: String, limit: Int) throws -> M {
        guard body.utf8.count <= limit else {
            throw PostgresLinkError(
                .mailTooLarge, name: M.linkedName, channel: M.linkedChannel, size: body.utf8.count, limit: limit)
        }
        return try JSONDecoder().decode(M.self, from: Data(body.utf8))
    }
}
#endif
