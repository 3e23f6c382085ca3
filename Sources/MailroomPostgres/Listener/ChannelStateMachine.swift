#if Postgres
/// One channel's reading, as a value that takes events and returns what to do: the number of the last mail
/// delivered, kept across connections, and what a notification or a page of the outbox means for it. ``Listener``
/// performs what it returns; nothing here waits or touches the database.
///
/// A notification is a hint: the next mail in the channel's order is delivered from the notification when it
/// carries the whole mail, and everything else from the outbox, which is also read after every `LISTEN`. A mail is
/// delivered only if it comes after the last one delivered, so each is delivered once and in order. The numbers
/// that the outbox no longer has (it pruned them) are reported as missed, never skipped in silence.
struct ChannelStateMachine: Sendable, Hashable {
    /// What the listener does next, in order.
    enum Action: Sendable, Hashable {
        /// Posts this mail on the office.
        case deliver(Outbox.Row)
        /// Reports this on the office, as a failure.
        case report(PostgresLinkError)
        /// Reads the outbox's mail of the channel numbered after this one (a page of it), and hands it to
        /// ``read(_:complete:)``.
        case read(after: Int64)
    }

    let channel: String
    /// The tag of the tables the link reads (``Tables/tag``): notifications that carry another are another table
    /// set's, on a channel of the same name, and are not this link's to read.
    let tag: String
    /// The number of the last mail delivered (or, before the first, the channel's last number when the link first
    /// listened); `nil` until then.
    private(set) var last: Int64?
    /// The highest number a notification announced: mail up to it that the outbox no longer has was pruned.
    private var announced: Int64 = 0

    init(channel: String, tag: String) {
        self.channel = channel
        self.tag = tag
    }

    /// Whether the channel's position must be read (``positioned(at:)``) before the first `LISTEN`.
    var needsPosition: Bool { last == nil }

    /// The channel's last number, read before the first `LISTEN`: mail after it is this process's to receive.
    mutating func positioned(at sequence: Int64) {
        if last == nil { last = sequence }
    }

    /// The channel is listened to on a new connection: what was committed meanwhile is read from the outbox.
    func listened() -> [Action] {
        [.read(after: last ?? 0)]
    }

    /// A notification arrived with `payload`.
    mutating func notified(_ payload: String) -> [Action] {
        let last = self.last ?? 0
        let notification = Notification(payload)
        if let other = notification?.tag, other != tag { return [] }
        guard let notification else {
            let malformed = PostgresLinkError(.malformedNotification, channel: channel, detail: payload)
            return [.report(malformed), .read(after: last)]
        }
        if notification.sequence <= last { return [] }
        if notification.sequence == last + 1, let row = notification.row {
            self.last = row.sequence
            return [.deliver(row)]
        }
        announced = max(announced, notification.sequence)
        return [.read(after: last)]
    }

    /// A page of the outbox arrived: the channel's mail after the number that was asked for, in order, which was
    /// the whole of it (`complete`) or a page of it.
    mutating func read(_ rows: [Outbox.Row], complete: Bool) -> [Action] {
        var actions: [Action] = []
        for row in rows {
            let last = self.last ?? 0
            guard row.sequence > last else { continue }
            if row.sequence > last + 1 { actions.append(.report(missed(last + 1...row.sequence - 1))) }
            self.last = row.sequence
            actions.append(.deliver(row))
        }
        let last = self.last ?? 0
        if !complete {
            actions.append(.read(after: last))
        } else if announced > last {
            // Announced, yet not in the outbox: pruned already.
            actions.append(.report(missed(last + 1...announced)))
            self.last = announced
        }
        return actions
    }

    private func missed(_ sequences: ClosedRange<Int64>) -> PostgresLinkError {
        PostgresLinkError(.missedMail, channel: channel, sequences: sequences)
    }
}

/// A link's notification: the tag of its tables (8 hexadecimal digits) and the number; or the tag, the number, the
/// link's id, a flag, the origin, the poster's context when the flag is a capital, the linked name and the body, on
/// lines of their own. The flag is `t` or `f` for echo or not, `T` or `F` when a context follows the origin.
struct Notification: Hashable, Sendable {
    var tag: String
    var sequence: Int64
    /// The whole mail, when it fit in the notification.
    var row: Outbox.Row?

    /// The notification of `payload`, or `nil` if no link wrote it.
    init?(_ payload: String) {
        let lines = payload.split(separator: "\n", maxSplits: 4, omittingEmptySubsequences: false)
        guard lines.count >= 2, lines[0].utf8.count == 8, UInt32(lines[0], radix: 16) != nil,
            let sequence = Int64(lines[1]), sequence > 0
        else { return nil }
        tag = String(lines[0])
        self.sequence = sequence
        if lines.count == 2 { return }
        guard lines.count == 5, let link = Int64(lines[2]), let flag = Flag(rawValue: String(lines[3])) else {
            return nil
        }
        // origin, [context,] name, body: the body is last, and may hold newlines.
        let fields = lines[4].split(
            separator: "\n", maxSplits: flag.hasContext ? 3 : 2, omittingEmptySubsequences: false)
        guard fields.count == (flag.hasContext ? 4 : 3) else { return nil }
        row = Outbox.Row(
            sequence: sequence, origin: String(fields[0]), link: link, echo: flag.echo,
            linkedName: String(fields[fields.count - 2]), body: String(fields[fields.count - 1]),
            context: flag.hasContext ? String(fields[1]) : nil)
    }

    private enum Flag: String {
        case echo = "t"
        case other = "f"
        case echoWithContext = "T"
        case otherWithContext = "F"

        var echo: Bool { self == .echo || self == .echoWithContext }
        var hasContext: Bool { self == .echoWithContext || self == .otherWithContext }
    }
}
#endif
