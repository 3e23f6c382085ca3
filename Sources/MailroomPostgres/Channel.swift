#if Postgres
/// The rules for channel names, kept in one place: how a long type name is shortened, and what PostgreSQL accepts.
enum Channel {
    /// PostgreSQL's limit for an identifier, in bytes; a longer `LISTEN` channel would be cut short silently.
    static let maximumLength = 63

    /// `linkedName`, or, when it is too long, its first 46 bytes (whole characters only), `#`, and the 16 hex
    /// digits of its 64-bit FNV-1a hash: the same name in every process, whatever Swift's hash seed.
    static func name(for linkedName: String) -> String {
        guard linkedName.utf8.count > maximumLength else { return linkedName }
        var prefix = ""
        var length = 0
        for scalar in linkedName.unicodeScalars {
            length += String(scalar).utf8.count
            if length > 46 { break }
            prefix.unicodeScalars.append(scalar)
        }
        let digits = String(FNV1a.hash(linkedName), radix: 16)
        return prefix + "#" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Why `name` cannot be a channel, or `nil` when it can.
    static func problem(with name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name.utf8.count > maximumLength { return "it is longer than \(maximumLength) bytes of UTF-8" }
        if name.contains("\n") || name.contains("\0") { return "it contains a newline or a NUL" }
        return nil
    }
}
#endif
