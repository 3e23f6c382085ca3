#if Postgres
import Logging
import Mailroom
import NIOConcurrencyHelpers
import PostgresNIO
import ServiceLifecycle

/// Links a ``/Mailroom/PostOffice`` to a PostgreSQL database, so that the carried types' mail posted in any linked process
/// reaches every other linked process's office, as the same type.
///
/// ```swift
/// let link = try PostgresLink(office: office, carrying: [PriceChanged.self], database: databaseConfiguration)
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
///   (``PostgresLinkError/Code/missedMail``).
/// - **Remote mail says so.** It is posted with a ``RemoteOrigin`` as its sender. A process does not receive its
///   own posts back.
/// - **Failures reach someone.** A mail that cannot be sent (too large, or the queue is full) or cannot be decoded
///   on arrival is a `DeliveryFailure` on the office, and the link goes on; a database that cannot be reached when
///   the link starts, or an origin that another live link has, is an error from ``run()`` and ``listening()``.
///
/// The link does its work through a `PostgresClient`: its pool, keep-alive and backoff. It writes and catches up on
/// leased connections, and keeps one leased connection for listening while it runs.
public final class PostgresLink: Service {
    /// This link's origin: the name other processes see in ``RemoteOrigin/name``.
    public var origin: String { core.origin }

    /// How many of this process's carried posts are not yet known to be written to the outbox: at most
    /// ``Configuration/maximumUnsent``.
    public var unsent: Int { core.sender.unsent }

    fileprivate enum Database {
        /// The client's configuration: the link makes a client for each run and runs it.
        case configuration(PostgresClient.Configuration)
        /// A client the application runs.
        case client(PostgresClient)
    }

    private let core: LinkCore
    private let database: Database
    private let listener: Listener
    private let isRunning = NIOLockedValueBox(false)
    /// The subscriptions, in the order they were made.
    private let subscriptions = NIOLockedValueBox<[PostgresSubscription]>([])
    private let forwarders: [RecipientId]
    private let opener: RecipientId

    /// Links `office` for the mail types in `carrying` through a `PostgresClient` the link makes from `database`,
    /// and starts sending their posts (they are written once ``run()`` connects). The client runs while ``run()``
    /// does.
    ///
    /// - Throws: ``PostgresLinkError`` when a type's name or channel cannot be used, when two types share a name on
    ///   a channel, or when the configuration cannot be used.
    public convenience init(
        office: PostOffice, carrying types: [any LinkedMail.Type], database: PostgresClient.Configuration,
        configuration: Configuration = Configuration(), logger: Logger = Logger(label: "Mailroom.PostgresLink")
    ) throws {
        try self.init(
            office: office, carrying: types, database: .configuration(database), configuration: configuration,
            logger: logger)
    }

    /// Links `office` for the mail types in `carrying` through `client`, a client the application runs (in the same
    /// `ServiceGroup`, before the link, so that the link shuts down first), and starts sending their posts.
    ///
    /// The link keeps one of the client's connections leased while it runs, for listening.
    /// - Throws: ``PostgresLinkError`` when a type's name or channel cannot be used, when two types share a name on
    ///   a channel, or when the configuration cannot be used.
    public convenience init(
        office: PostOffice, carrying types: [any LinkedMail.Type], client: PostgresClient,
        configuration: Configuration = Configuration(), logger: Logger = Logger(label: "Mailroom.PostgresLink")
    ) throws {
        try self.init(
            office: office, carrying: types, database: .client(client), configuration: configuration, logger: logger)
    }

    private init(
        office: PostOffice, carrying types: [any LinkedMail.Type], database: Database, configuration: Configuration,
        logger: Logger
    ) throws {
        if let problem = configuration.problem() { throw problem }
        var carriages: [Carriage] = []
        var seen: Set<[String]> = []
        for type in types {
            let carriage = Carriage(type)
            for name in [carriage.linkedName, carriage.channel] {
                if let reason = Channel.problem(with: name) {
                    throw PostgresLinkError(.invalidName, name: name, detail: reason)
                }
            }
            guard seen.insert([carriage.channel, carriage.linkedName]).inserted else {
                throw PostgresLinkError(.duplicateName, name: carriage.linkedName, channel: carriage.channel)
            }
            carriages.append(carriage)
        }
        let core = LinkCore(
            office: office, carrying: carriages, configuration: configuration, database: database.description,
            logger: logger)
        self.core = core
        self.database = database
        listener = Listener(channels: core.carriages.keys, tag: core.outbox.tables.tag)
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

    /// Sends and receives mail until a graceful shutdown begins, then writes what is still queued, if the database
    /// answers, and returns; or until the task is cancelled, and returns at once.
    ///
    /// It returns only when everything it started has ended: its client's run, when it made the client, and its
    /// listening, writing and subscriptions' reading. It creates the tables and the function it needs unless they
    /// exist (named by the ``Configuration/tablePrefix``), holds its origin's lock while it listens, and deletes the
    /// outbox's mail older than the ``Configuration/retention``. It may run again after it returns, and goes on where
    /// it stopped.
    /// - Throws: ``PostgresLinkError`` with the code ``PostgresLinkError/Code/alreadyRunning`` when it is running
    ///   already; ``PostgresLinkError/Code/unreachable`` when it cannot connect and listen within
    ///   ``Configuration/firstConnectionTimeout``; ``PostgresLinkError/Code/originInUse`` when another live link
    ///   has its origin.
    public func run() async throws {
        guard
            isRunning.withLockedValue({ running in
                defer { running = true }
                return !running
            })
        else {
            throw PostgresLinkError(.alreadyRunning, origin: origin)
        }
        defer { isRunning.withLockedValue { $0 = false } }
        switch database {
        case .client(let client):
            try await work(on: client)
        case .configuration(let configuration):
            // The client shuts down after the link's work, which may still write on a graceful shutdown.
            let client = PostgresClient(configuration: configuration, backgroundLogger: core.logger)
            let group = ServiceGroup(
                configuration: .init(
                    services: [.init(service: client), .init(service: Work(link: self, client: client))],
                    logger: core.logger))
            try await group.run()
        }
    }

    /// Returns once ``run()`` has listened on every carried channel for the first time: from then on, this process
    /// receives every mail that other processes commit (a later reconnection catches up from the outbox). Once it
    /// has, it returns at once.
    /// - Throws: the error ``run()`` ended with before it listened, or `CancellationError` when the waiting task,
    ///   or ``run()`` before it listened, is cancelled.
    public func listening() async throws {
        try await listener.listening()
    }

    /// A durable reader of this link's mail named `name`: processes that make a subscription of the same name, on
    /// links with the same tables, share its stored positions. Give it its recipients
    /// (``PostgresSubscription/receive(_:_:)``) before ``run()``, which runs it.
    ///
    /// - Parameters:
    ///   - name: The subscription's name, not empty, without a NUL.
    ///   - start: Where it starts on a channel it has no stored position on yet.
    ///   - maximumAttempts: The failed attempts at one mail after which it moves to the dead letters, at least 1.
    /// - Throws: ``PostgresLinkError`` with the code ``PostgresLinkError/Code/invalidName`` for a name that cannot
    ///   be used, ``PostgresLinkError/Code/invalidConfiguration`` for a `maximumAttempts` below 1,
    ///   ``PostgresLinkError/Code/duplicateSubscription`` when the link has one of that name, or
    ///   ``PostgresLinkError/Code/alreadyRunning`` while the link runs.
    public func subscription(
        _ name: String, startingAt start: PostgresSubscription.Start = .end, maximumAttempts: Int = 10
    ) throws -> PostgresSubscription {
        guard !name.isEmpty, !name.contains("\0") else {
            throw PostgresLinkError(.invalidName, subscription: name, detail: "it is empty or contains a NUL")
        }
        guard maximumAttempts >= 1 else {
            throw PostgresLinkError(
                .invalidConfiguration, subscription: name, detail: "maximumAttempts is \(maximumAttempts), below 1")
        }
        return try isRunning.withLockedValue { running in
            guard !running else { throw PostgresLinkError(.alreadyRunning, origin: origin, subscription: name) }
            return try subscriptions.withLockedValue { subscriptions in
                guard !subscriptions.contains(where: { $0.name == name }) else {
                    throw PostgresLinkError(.duplicateSubscription, subscription: name)
                }
                let subscription = PostgresSubscription(
                    name: name, start: start, maximumAttempts: maximumAttempts, core: core)
                subscriptions.append(subscription)
                return subscription
            }
        }
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
    /// with the same ``Configuration/tablePrefix`` has run.
    /// - Throws: ``PostgresLinkError`` (``PostgresLinkError/Code/notCarried`` when the link does not carry `M`,
    ///   ``PostgresLinkError/Code/mailTooLarge``), an encoding error, or the database's error.
    public func post<M: LinkedMail>(_ mail: M, in connection: PostgresConnection) async throws {
        guard core.carriages[M.linkedChannel]?[M.linkedName] != nil else {
            throw PostgresLinkError(.notCarried, name: M.linkedName, channel: M.linkedChannel)
        }
        let body = try Carriage.encode(mail, limit: core.configuration.maximumMailSize)
        let batch = Outbox.Batch(
            channel: M.linkedChannel, origin: origin, link: core.id, numbers: [core.transactionalNumber()], echo: true,
            linkedNames: [M.linkedName], bodies: [body], contexts: [core.telemetry.carrier()])
        try await core.outbox.write(batch, on: connection)
        core.telemetry.sent([M.linkedChannel: 1])
    }

    /// Listens and writes through `client` until a graceful shutdown (then writes what is queued) or cancellation.
    private func work(on client: PostgresClient) async throws {
        let (core, listener) = (self.core, self.listener)
        let subscriptions = self.subscriptions.withLockedValue { $0 }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await cancelWhenGracefulShutdown { try await listener.run(on: client, core) }
            }
            for subscription in subscriptions {
                group.addTask {
                    try await cancelWhenGracefulShutdown {
                        try await subscription.run(on: client, watermarks: listener.watermarks)
                    }
                }
            }
            group.addTask {
                await withGracefulShutdownHandler {
                    await core.sender.run(on: client, core)
                } onGracefulShutdown: {
                    core.sender.stop()
                }
            }
            // The first to throw ends both (waitForAll() would wait for the other first).
            while try await group.next() != nil {}
        }
    }

    /// The link's work as a service beside the client it made, in a `ServiceGroup` of their own.
    private struct Work: Service {
        let link: PostgresLink
        let client: PostgresClient

        func run() async throws {
            try await link.work(on: client)
        }
    }
}

extension PostgresLink.Database: CustomStringConvertible {
    var description: String {
        switch self {
        case .client: "the database of the PostgresClient given to the link"
        case .configuration(let configuration):
            if let socket = configuration.unixSocketPath {
                "the Unix socket \(socket)"
            } else {
                "\(configuration.host ?? "?"):\(configuration.port ?? 5432)"
            }
        }
    }
}
#endif
