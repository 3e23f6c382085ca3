import Logging
import Mailroom
import NIOConcurrencyHelpers
import PostgresNIO

/// What a link's parts share: the office, the carried types, the sender and the origin's numbering. The office's
/// recipients hold it weakly, and the ``PostgresLink`` strongly, so that it goes when the link does.
final class LinkCore: Sendable {
    let office: PostOffice
    let configuration: PostgresLink.Configuration
    let logger: Logger
    let sender = Sender()
    /// By channel, then by linked name.
    let carriages: [String: [String: Carriage]]

    private struct State {
        /// The origin's next number, once read from the outbox.
        var nextNumber: Int64?
        var tablesExist = false
        var origins: [String: RemoteOrigin] = [:]
        var connections = 0
    }

    private let state = NIOLockedValueBox(State())

    var origin: String { configuration.origin }

    init(office: PostOffice, carrying carriages: [Carriage], configuration: PostgresLink.Configuration, logger: Logger)
    {
        self.office = office
        self.configuration = configuration
        var logger = logger
        logger[metadataKey: "mailroom.origin"] = "\(configuration.origin)"
        self.logger = logger
        self.carriages = Dictionary(grouping: carriages, by: \.channel).mapValues { carriages in
            Dictionary(carriages.map { ($0.linkedName, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// A new connection, after creating the tables if this link has not seen them yet.
    func connect() async throws -> PostgresConnection {
        let id = state.withLockedValue { state in
            state.connections += 1
            return state.connections
        }
        let connection = try await PostgresConnection.connect(
            configuration: configuration.connection, id: id, logger: logger)
        do {
            if !state.withLockedValue(\.tablesExist) {
                try await answer(on: connection) { [logger] connection in
                    try await connection.withTransaction(logger: logger) { connection in
                        try await Outbox.createTables(on: connection, logger: logger)
                    }
                }
                state.withLockedValue { $0.tablesExist = true }
            }
            return connection
        } catch {
            connection.abandon()
            throw error
        }
    }

    /// The result of `work` on `connection`, or ``ConnectionLost`` after the configuration's query timeout.
    func answer<T: Sendable>(
        on connection: PostgresConnection, _ work: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await connection.answer(within: configuration.queryTimeout, work)
    }

    /// Whether ``reserveNumbers(_:on:)`` has yet to read where an earlier run of the origin stopped.
    var readsNumbersFirst: Bool { state.withLockedValue { $0.nextNumber == nil } }

    /// `count` new numbers of this origin, in order; the first call reads where an earlier run of the origin
    /// stopped.
    func reserveNumbers(_ count: Int, on connection: PostgresConnection) async throws -> [Int64] {
        if state.withLockedValue({ $0.nextNumber == nil }) {
            let last = try await Outbox.lastNumber(of: origin, on: connection, logger: logger)
            state.withLockedValue { $0.nextNumber = max($0.nextNumber ?? 0, last + 1) }
        }
        return state.withLockedValue { state in
            let first = state.nextNumber ?? 1
            state.nextNumber = first + Int64(count)
            return Array(first..<first + Int64(count))
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
    /// failure. This origin's mail is skipped, unless it was sent in a transaction and has not been posted here yet.
    func deliver(_ row: Outbox.Row, from channel: String) {
        if row.origin == origin && !row.echo { return }
        office.post(
            RemoteLetter(
                channel: channel, sequence: row.sequence, origin: row.origin, linkedName: row.linkedName,
                body: row.body),
            sender: self)
    }

    /// Reports `fault` as the failure of a letter on `channel`.
    func report(_ fault: PostgresLinkError, on channel: String, sequence: Int64 = 0, body: String = "") {
        office.post(
            RemoteLetter(channel: channel, sequence: sequence, origin: "", linkedName: "", body: body, fault: fault),
            sender: self)
    }

    /// Decodes `letter` and posts its mail, or throws why it cannot.
    func open(_ letter: RemoteLetter) throws {
        if let fault = letter.fault { throw fault }
        let limit = configuration.maximumMailSize
        guard letter.body.utf8.count <= limit else {
            throw PostgresLinkError.mailTooLarge(bytes: letter.body.utf8.count, limit: limit)
        }
        guard let carriage = carriages[letter.channel]?[letter.linkedName] else {
            throw PostgresLinkError.unknownMailType(name: letter.linkedName, channel: letter.channel)
        }
        let sender = letter.origin == origin ? nil : remoteOrigin(named: letter.origin)
        try carriage.deliver(letter.body, sender, self)
    }
}
