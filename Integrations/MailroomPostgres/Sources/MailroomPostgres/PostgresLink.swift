import Logging
import Mailroom
import NIOConcurrencyHelpers
import PostgresNIO
import ServiceLifecycle

/// Links a ``/Mailroom/PostOffice`` to a PostgreSQL database, so that the carried types' mail posted in any linked process
/// reaches every other linked process's office, as the same type.
///
/// ```swift
/// let link = try PostgresLink(
///     office: office, carrying: [PriceChanged.self],
///     configuration: .init(connection: databaseConfiguration))
/// // Run it as a service (it is one), or in a task of its own:
/// try await link.run()
/// ```
///
/// What a caller may rely on (the article <doc:MailroomPostgres> has the full table):
/// - **Every carried post is sent.** The link registers a recipient for each carried type on the office; it sends
///   every post of that type made in this process, queued from the moment the link is created, whether or not a
///   connection is open, and written as soon as one is.
/// - **Exactly once, in order.** Each linked process that runs receives each mail sent by the others once, in
///   commit order per channel (``LinkedMail/linkedChannel``), across lost connections and server restarts, as long
///   as it is back within the ``Configuration/retention``; otherwise the mail it missed is reported
///   (``PostgresLinkError/missedMail(channel:sequences:)``).
/// - **Remote mail says so.** It is posted with a ``RemoteOrigin`` as its sender. A process does not receive its
///   own posts back.
/// - **Failures reach someone.** A mail that cannot be sent (``PostgresLinkError/mailTooLarge(bytes:limit:)``) or
///   cannot be decoded on arrival is a `DeliveryFailure` on the office, and the link goes on.
public final class PostgresLink: Service {
    /// This link's origin: the name other processes see in ``RemoteOrigin/name``.
    public var origin: String { core.origin }

    /// How many of this process's carried posts are not yet known to be written to the outbox.
    public var unsent: Int { core.sender.unsent }

    private let core: LinkCore
    private let listener: Listener
    private let isRunning = NIOLockedValueBox(false)
    private let forwarders: [RecipientId]
    private let opener: RecipientId

    /// Links `office` for the mail types in `carrying`, and starts sending their posts (they are written once
    /// ``run()`` connects).
    ///
    /// - Throws: ``PostgresLinkError`` when a type's name or channel cannot be used, when two types share a name on
    ///   a channel, or when the origin is invalid.
    public init(
        office: PostOffice, carrying types: [any LinkedMail.Type], configuration: Configuration,
        logger: Logger = Logger(label: "Mailroom.PostgresLink")
    ) throws {
        let origin = configuration.origin
        if origin.isEmpty || origin.contains("\n") || origin.contains("\0") {
            throw PostgresLinkError.invalidOrigin(origin)
        }
        var carriages: [Carriage] = []
        var seen: Set<[String]> = []
        for type in types {
            let carriage = Carriage(type)
            for name in [carriage.linkedName, carriage.channel] {
                if let reason = Channel.problem(with: name) {
                    throw PostgresLinkError.invalidName(name, reason: reason)
                }
            }
            guard seen.insert([carriage.channel, carriage.linkedName]).inserted else {
                throw PostgresLinkError.duplicateName(carriage.linkedName, channel: carriage.channel)
            }
            carriages.append(carriage)
        }
        let core = LinkCore(office: office, carrying: carriages, configuration: configuration, logger: logger)
        self.core = core
        listener = Listener(channels: core.carriages.keys)
        forwarders = carriages.map { $0.forwardPosts(core) }
        opener = office.register(sender: core) { [weak core] (letter: RemoteLetter) throws in try core?.open(letter) }
    }

    deinit {
        for id in forwarders { core.office.unregister(id) }
        core.office.unregister(opener)
        if core.sender.unsent > 0 {
            core.logger.error("the link ended with mail unsent", metadata: ["unsent": "\(core.sender.unsent)"])
        }
    }

    /// Sends and receives mail until the task is cancelled or a graceful shutdown begins; then writes what is
    /// still queued, if the database answers, and returns.
    ///
    /// It connects twice, once to send and once to listen, and reconnects each with backoff whenever it fails,
    /// logging why. It creates the tables it needs unless they exist (`mailroom_channels`, `mailroom_outbox`) and
    /// deletes the outbox's mail older than the ``Configuration/retention``. It may run again after it returns,
    /// and goes on where it stopped.
    /// - Throws: ``PostgresLinkError/alreadyRunning`` when it is running already.
    public func run() async throws {
        guard
            isRunning.withLockedValue({ running in
                defer { running = true }
                return !running
            })
        else {
            throw PostgresLinkError.alreadyRunning
        }
        defer { isRunning.withLockedValue { $0 = false } }
        let (core, listener) = (self.core, self.listener)
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await core.sender.run(core) }
                group.addTask { await listener.run(core) }
            }
        }
    }

    /// Returns once ``run()`` has listened on every carried channel for the first time: from then on, this process
    /// receives every mail that other processes commit (a later reconnection catches up from the outbox). It waits
    /// for as long as the link has not connected, or until the task is cancelled; once it has, it returns at once.
    public func listening() async {
        await listener.listening()
    }

    /// Sends `mail` in the transaction open on `connection`: other processes receive it if and only if that
    /// transaction commits, and this process's office receives it (as local mail) once the link reads it back.
    ///
    /// ```swift
    /// try await client.withTransaction(logger: logger) { connection in
    ///     try await connection.query("UPDATE prices SET cents = \(cents) WHERE sku = \(sku)", logger: logger)
    ///     try await link.post(PriceChanged(sku: sku, cents: cents), in: connection)
    /// }
    /// ```
    ///
    /// Outside a transaction, the mail commits at once. The tables must exist: they do once the link or any other
    /// has run.
    /// - Throws: ``PostgresLinkError/notCarried(_:)`` when the link does not carry `M`,
    ///   ``PostgresLinkError/mailTooLarge(bytes:limit:)``, an encoding error, or the database's error.
    public func post<M: LinkedMail>(_ mail: M, in connection: PostgresConnection) async throws {
        guard core.carriages[M.linkedChannel]?[M.linkedName] != nil else {
            throw PostgresLinkError.notCarried(M.linkedName)
        }
        let body = try Carriage.encode(mail, limit: core.configuration.maximumMailSize)
        let numbers = try await core.reserveNumbers(1, on: connection)
        let batch = Outbox.Batch(
            channel: M.linkedChannel, origin: origin, numbers: numbers, echo: true, linkedNames: [M.linkedName],
            bodies: [body])
        try await Outbox.write(batch, on: connection, prepared: false, logger: core.logger)
    }
}
