#if Postgres
import Mailroom

/// Mail that can travel between processes through a ``PostgresLink``: `Codable` mail with a name and a channel.
///
/// Conform a mail type and list it in the link's `carrying` to send it: its posts on the office reach every other
/// linked process as the same type, decoded from JSON.
///
/// ```swift
/// struct PriceChanged: LinkedMail { let sku: String; let cents: Int }
/// ```
///
/// Both names have defaults derived from the module-qualified type name (`Shop.PriceChanged`), which is the same in
/// every process that builds the type from the same module. Set them to keep the wire names when a type is renamed
/// or moved, or to give several types one channel.
public protocol LinkedMail: Mail, Codable {
    /// The name that tells this type from the others on its channel; every process that carries the type must
    /// agree on it. Default: the module-qualified type name.
    static var linkedName: String { get }

    /// The PostgreSQL `NOTIFY` channel the type's mail travels on, at most 63 bytes of UTF-8 (PostgreSQL's limit
    /// for identifiers) and without a newline.
    ///
    /// Mail on one channel arrives in the order it was committed; mail on different channels has no order between
    /// channels. Types whose mail must stay in order relative to each other share a channel. Default: the
    /// ``linkedName``, shortened when it is longer than 63 bytes to its first 46 bytes, a `#`, and 16 hexadecimal
    /// digits of a hash of the whole name, the same in every process.
    static var linkedChannel: String { get }
}

extension LinkedMail {
    /// The module-qualified type name, such as `Shop.PriceChanged`.
    public static var linkedName: String { String(reflecting: Self.self) }

    /// The ``linkedName``, or its shortened form when it is longer than 63 bytes.
    public static var linkedChannel: String { Channel.name(for: linkedName) }
}
#endif
