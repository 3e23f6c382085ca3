#if Postgres
import Logging
import Mailroom
import NIOConcurrencyHelpers
import PostgresNIO

/// What a link's parts share: the office, the carried types, the statements, the sender and the remote origins.
/// The office's recipients hold it weakly, and the ``PostgresLink`` strongly, so that it goes when the link does.
final class LinkCore: Sendable {
    let office: PostOffice
    let configuration: PostgresLink.Configuration
    let logger: Logger
    let outbox: Outbox
    /// This link's own random id, written with its mail: it tells this process's mail from the others', and its
    /// numbers from those of any earlier link with the same origin.
    let id = Int64.random(in: 1...Int64.max)
    let sender: Sender
    let telemetry: LinkTelemetry
    /// By channel, then by linked name.
    let carriages: [String: [String: Carriage]]
    /// Where the database is, in words, for errors.
    let database: String

    private struct State {
        var tablesExist = false
        /// The last number given to mail sent in a caller's transaction: -1, -2, … (the sender's are positive).
        var lastTransactionalNumber: Int64 = 0
        var origins: [String: RemoteOrigin] = [:]
    }

    private let state = NIOLockedValueBox(State())

    var origin: String { configuration.origin }

    init(
        office: PostOffice, carrying carriages: [Carriage], configuration: PostgresLink.Configuration,
        database: String, logger: Logger
    ) {
        self.office = office
        self.configuration = configuration
        self.database = database
        var logger = logger
        logger[metadataKey: "mailroom.origin"] = "\(configuration.origin)"
        self.logger = logger
        outbox = Outbox(
            tables: Tables(prefix: configuration.tablePrefix, schema: configuration.schema), logger: logger)
        self.carriages = Dictionary(grouping: carriages, by: \.channel).mapValues { carriages in
            Dictionary(carriages.map { ($0.linkedName, $0) }, uniquingKeysWith: { first, _ in first })
        }
        telemetry = LinkTelemetry(configuration, channels: self.carriages.keys)
        sender = Sender(
            origin: configuration.origin, link: id, limit: configuration.maximumUnsent, telemetry: telemetry)
    }

    /// The result of `work` with the outbox on `connection`; if the database does not answer within the
    /// configuration's `queryTimeout`, the connection is closed and ``ConnectionLost/noAnswer(within:)`` thrown.
    func answer<T: Sendable>(
        on connection: PostgresConnection, _ work: @escaping @Sendable (Outbox, PostgresConnection) async throws -> T
    ) async throws -> T {
        let outbox = self.outbox
        return try await within(configuration.queryTimeout, closing: connection) {
            try await work(outbox, connection)
        }
    }

    /// Creates the tables on `connection` unless this link has seen them already.
    func prepareTables(on connection: PostgresConnection) async throws {
        guard !state.withLockedValue(\.tablesExist) else { return }
        try await answer(on: connection) { try await $0.createTables(on: $1) }
        state.withLockedValue { $0.tablesExist = true }
    }

    /// A number for mail sent in a caller's transaction, unique among this link's (and never looked up).
    func transactionalNumber() -> Int64 {
        state.withLockedValue { state in
            state.lastTransactionalNumber -= 1
            return state.lastTransactionalNumber
        }
    }

    /// The one `RemoteOrigin` of `name`.
    func remoteOrigin(named name: String) -> RemoteOrigin {
        state.withLockedValue { state in
            if let origin = state.origins[name] { return origin }
            let origin = RemoteOrigin(name: name)
            state.origins[name] = origin
            return origin
        }
    }

    /// Hands a mail read from `channel` to the office: as a ``RemoteLetter`` from this core, which the core's own
    /// recipient opens (``open(_:)``), so that a mail that cannot be opened is reported as that recipient's
    /// failure. This link's own mail is skipped, unless it was sent in a transaction (it has not been posted here
    /// yet), and so is mail for one subscription alone (a dead letter moved back), which the office had already.
    /// The letter is posted in the context its poster's was (``LinkTelemetry``); `lag` is how long ago the mail
    /// became known to have committed.
    func deliver(_ row: Outbox.Row, from channel: String, lag: Duration) {
        if row.link == id && !row.echo || row.target != nil { return }
        telemetry.receive(row, on: channel, lag: lag) {
            office.post(
                RemoteLetter(
                    channel: channel, sequence: row.sequence, origin: row.origin, isOwn: row.link == id,
                    linkedName: row.linkedName, body: row.body),
                sender: self)
        }
    }

    /// Reports `fault` on the office, as the failure of a letter of its channel.
    func report(_ fault: PostgresLinkError) {
        office.post(
            RemoteLetter(
                channel: fault.channel ?? "", sequence: fault.sequences?.lowerBound ?? 0, origin: "", isOwn: false,
                linkedName: "", body: fault.code == .malformedNotification ? fault.detail ?? "" : "", fault: fault),
            sender: self)
    }

    /// Reports `error`, which a subscription's recipient threw for `row`, or which kept it from reaching one, on
    /// the office: as the failure of the letter of that mail.
    func report(_ error: any Error, handling row: Outbox.Row, from channel: String) {
        office.post(
            RemoteLetter(
                channel: channel, sequence: row.sequence, origin: row.origin, isOwn: false,
                linkedName: row.linkedName, body: row.body, fault: error),
            sender: self)
    }

    /// Decodes `letter` and posts its mail, or throws why it cannot.
    func open(_ letter: RemoteLetter) throws {
        if let fault = letter.fault { throw fault }
        let limit = configuration.maximumMailSize
        guard letter.body.utf8.count <= limit else {
            throw PostgresLinkError(
                .mailTooLarge, name: letter.linkedName, channel: letter.channel, size: letter.body.utf8.count,
                limit: limit)
        }
        guard let carriage = carriages[letter.channel]?[letter.linkedName] else {
            throw PostgresLinkError(.unknownMailType, name: letter.linkedName, channel: letter.channel)
        }
        let sender = letter.isOwn ? nil : remoteOrigin(named: letter.origin)
        try carriage.deliver(letter.body, sender, self)
    }
}
#endif
