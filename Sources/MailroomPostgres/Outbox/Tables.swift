#if Postgres
import Foundation

/// The names of a link's tables and function, quoted for SQL, from the configuration's prefix and schema.
struct Tables: Sendable, Hashable {
    /// Each channel's last sequence number.
    let channels: String
    /// The mail, under its channel and number.
    let outbox: String
    /// Each named subscription's position on each channel.
    let cursors: String
    /// The mail that subscriptions' recipients failed to handle, with the error.
    let deadLetters: String
    /// The processes that read each named subscription, with the channels each reads.
    let members: String
    /// The function that writes a batch of mail and notifies its channel.
    let write: String
    /// The outbox's index on its time, unqualified: `CREATE INDEX` names it in the table's schema.
    let createdAtIndex: String
    /// Identifies these tables among advisory locks: the lock taken while creating them, and the origins' locks.
    let key: Int64
    /// Identifies these tables' notifications, which share PostgreSQL's channels with those of any other tables in
    /// the database: 8 hexadecimal digits, the first line of each.
    let tag: String

    /// The longest suffix the prefix is followed by.
    private static let longestSuffix = "outbox_created_at"

    init(prefix: String, schema: String?) {
        let qualifier = schema.map { Self.quoted($0) + "." } ?? ""
        channels = qualifier + Self.quoted(prefix + "channels")
        outbox = qualifier + Self.quoted(prefix + "outbox")
        write = qualifier + Self.quoted(prefix + "write")
        cursors = qualifier + Self.quoted(prefix + "cursors")
        deadLetters = qualifier + Self.quoted(prefix + "dead_letters")
        members = qualifier + Self.quoted(prefix + "members")
        createdAtIndex = Self.quoted(prefix + Self.longestSuffix)
        key = Int64(bitPattern: FNV1a.hash("tables\n\(outbox)"))
        let digits = String(FNV1a.hash("notifications\n\(outbox)") & 0xffff_ffff, radix: 16)
        tag = String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The key of the advisory lock a live link holds for `origin` on these tables.
    func key(ofOrigin origin: String) -> Int64 {
        Int64(bitPattern: FNV1a.hash("origin\n\(outbox)\n\(origin)"))
    }

    /// The key of the advisory lock the one reader of `subscription` on `channel` holds, on these tables.
    func key(ofSubscription subscription: String, on channel: String) -> Int64 {
        Int64(bitPattern: FNV1a.hash("subscription\n\(outbox)\n\(subscription)\n\(channel)"))
    }

    /// Why `prefix` and `schema` cannot name the tables, or `nil` when they can.
    static func problem(prefix: String, schema: String?) -> String? {
        if prefix.contains("\0") || schema?.contains("\0") == true {
            return "the table prefix or the schema contains a NUL"
        }
        if (prefix + longestSuffix).utf8.count > Channel.maximumLength {
            return "the table prefix is longer than \(Channel.maximumLength - longestSuffix.utf8.count) bytes of UTF-8"
        }
        if let schema, schema.isEmpty || schema.utf8.count > Channel.maximumLength {
            return "the schema is empty or longer than \(Channel.maximumLength) bytes of UTF-8"
        }
        return nil
    }

    /// `name` as a quoted SQL identifier, which PostgreSQL takes as it is (case and all).
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// The 64-bit FNV-1a hash of a string's UTF-8: the same in every process, whatever Swift's hash seed.
enum FNV1a {
    static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }
}
#endif
