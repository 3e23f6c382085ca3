#if Postgres
/// The sender of mail that arrived from another process through a ``PostgresLink``: that process's identity.
///
/// Register with it to tell remote mail from local: `(M, RemoteOrigin)` receives only mail from other processes,
/// `(M, RemoteOrigin?)` receives both, with `nil` for mail posted in this process. A link gives the same object
/// for every mail of one origin, so a registration for one exact origin (`sender:`) works too.
///
/// ```swift
/// office.register { (change: PriceChanged, origin: RemoteOrigin?) in
///     cache.remove(change.sku)
///     if let origin { print("invalidated by \(origin.name)") }
/// }
/// ```
public final class RemoteOrigin: Sendable, CustomStringConvertible {
    /// The origin's name: the ``PostgresLink/Configuration/origin`` of the link that sent the mail.
    public let name: String

    init(name: String) {
        self.name = name
    }

    /// `RemoteOrigin(name)`.
    public var description: String { "RemoteOrigin(\(name))" }
}
#endif
