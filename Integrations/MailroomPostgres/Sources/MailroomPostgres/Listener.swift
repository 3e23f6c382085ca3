import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// Receives the carried channels' mail: one connection that `LISTEN`s on every channel, opened again with backoff
/// whenever it fails, and for each channel the number of the last mail delivered, kept across connections.
///
/// A notification is a hint: the next mail in a channel's order is delivered from the notification when it carries
/// the whole mail, and everything else from the outbox, which is read after every `LISTEN` as well. A mail is
/// delivered only if it is the next of its channel, checked and recorded under a lock, so each mail is delivered
/// once and in order, even by the reader of a connection being abandoned while the next one starts.
final class Listener: Sendable {
    /// The most rows read from the outbox by one query.
    static let pageSize = 500

    /// By channel, the sequence number of the last mail delivered (or, before the first, the channel's last when
    /// the link first listened; `nil` until then), under a lock of its own, held while the mail is posted.
    private let lastSequences: [String: NIOLockedValueBox<Int64?>]

    private struct State {
        var listened: Set<String> = []
        var isListening = false
        var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        var waiters = 0
    }

    private let state = NIOLockedValueBox(State())

    init(channels: some Sequence<String>) {
        lastSequences = Dictionary(uniqueKeysWithValues: channels.map { ($0, NIOLockedValueBox(nil)) })
    }

    /// Listens until cancelled.
    func run(_ core: LinkCore) async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let connection = try await core.connect()
                failures = 0
                try await listen(on: connection, core)
            } catch {
                if Task.isCancelled { break }
                failures += 1
                core.logger.warning(
                    "lost the listening connection; reconnecting", metadata: ["error": "\(String(reflecting: error))"])
            }
            if Task.isCancelled { break }
            try? await Task.sleep(for: core.configuration.reconnectDelay(afterFailures: failures))
        }
    }

    /// Returns once every carried channel has been listened on and read up to date, or the task is cancelled.
    func listening() async {
        let waiter = state.withLockedValue { state in
            state.waiters += 1
            return state.waiters
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLockedValue { state in
                    if state.isListening || Task.isCancelled { return true }
                    state.waiting[waiter] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLockedValue { $0.waiting.removeValue(forKey: waiter) }?.resume()
        }
    }

    /// Listens on `connection` until one of its channels or its heartbeat fails, or the task is cancelled; then
    /// closes it.
    ///
    /// The channels' readers run in tasks of their own, which are cancelled but not awaited: a query that was
    /// waiting on the connection when it broke may never return.
    private func listen(on connection: PostgresConnection, _ core: LinkCore) async throws {
        let (outcomes, outcome) = AsyncStream.makeStream(of: (any Error)?.self)
        var readers = core.carriages.keys.map { channel in
            Task {
                do {
                    try await self.listen(to: channel, on: connection, core)
                    outcome.yield(nil)
                } catch {
                    outcome.yield(error)
                }
            }
        }
        readers.append(
            Task {
                do { try await Self.watch(connection, core) } catch { outcome.yield(error) }
            })
        var first: (any Error)?
        for await ending in outcomes {
            first = ending
            break
        }
        for reader in readers { reader.cancel() }
        connection.abandon()
        if let first { throw first }
    }

    private func listen(to channel: String, on connection: PostgresConnection, _ core: LinkCore) async throws {
        let lastSequence = lastSequences[channel]!
        if lastSequence.withLockedValue({ $0 }) == nil {
            // Read before the first LISTEN: what commits between the two is read from the outbox just after.
            let last = try await core.answer(on: connection) {
                try await Outbox.lastSequence(of: channel, on: $0, logger: core.logger)
            }
            lastSequence.withLockedValue { $0 = $0 ?? last }
        }
        let reader = ChannelReader(channel: channel, connection: connection, core: core, listener: self)
        try await connection.listen(on: channel) { notifications in
            try await reader.catchUp()
            markListening(channel, of: core.carriages.count)
            for try await notification in notifications {
                try await reader.receive(notification.payload)
            }
        }
        if !Task.isCancelled { throw ConnectionLost.closed }
    }

    private func markListening(_ channel: String, of count: Int) {
        let waiting = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            guard !state.isListening, state.listened.insert(channel).inserted, state.listened.count == count
            else { return [] }
            state.isListening = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume() }
    }

    /// The sequence number of the last mail of `channel` delivered.
    func lastSequence(of channel: String) -> Int64 {
        lastSequences[channel]?.withLockedValue { $0 } ?? 0
    }

    /// Delivers `row` if it comes after the last mail of `channel` delivered, reporting the numbers between them as
    /// missed; drops it otherwise. The office receives it under the channel's lock, so that two readers cannot
    /// deliver mail of one channel at once.
    func deliver(_ row: Outbox.Row, from channel: String, _ core: LinkCore) {
        lastSequences[channel]?.withLockedValue { lastSequence in
            let last = lastSequence ?? 0
            guard row.sequence > last else { return }
            if row.sequence > last + 1 {
                core.report(.missedMail(channel: channel, sequences: last + 1...row.sequence - 1), on: channel)
            }
            lastSequence = row.sequence
            core.deliver(row, from: channel)
        }
    }

    /// Records that mail up to `sequence` of `channel` was notified but is no longer in the outbox, reporting it.
    func skip(through sequence: Int64, of channel: String, _ core: LinkCore) {
        lastSequences[channel]?.withLockedValue { lastSequence in
            let last = lastSequence ?? 0
            guard sequence > last else { return }
            lastSequence = sequence
            core.report(.missedMail(channel: channel, sequences: last + 1...sequence), on: channel)
        }
    }

    /// Pings the connection every heartbeat (one that does not answer in time is closed), and prunes the outbox
    /// every tenth of its retention.
    private static func watch(_ connection: PostgresConnection, _ core: LinkCore) async throws {
        let configuration = core.configuration
        let pruneEvery = max(configuration.retention / 10, .seconds(1))
        var lastPrune = ContinuousClock.now - pruneEvery
        while !Task.isCancelled {
            if ContinuousClock.now - lastPrune >= pruneEvery {
                let pruned = try await core.answer(on: connection) {
                    try await Outbox.prune(olderThan: configuration.retention.seconds, on: $0, logger: core.logger)
                }
                lastPrune = .now
                core.logger.debug("pruned the outbox", metadata: ["rows": "\(pruned)"])
            }
            try await Task.sleep(for: configuration.heartbeat)
            _ = try await connection.answer(within: configuration.heartbeat) {
                try await $0.query("SELECT 1", logger: core.logger)
            }
        }
    }
}

/// One channel's reading on one connection.
private struct ChannelReader {
    let channel: String
    let connection: PostgresConnection
    let core: LinkCore
    let listener: Listener

    /// Delivers every mail of the channel in the outbox after the last delivered.
    func catchUp() async throws {
        while true {
            let (channel, after, core) = (channel, listener.lastSequence(of: channel), core)
            let rows = try await core.answer(on: connection) {
                try await Outbox.rows(of: channel, after: after, limit: Listener.pageSize, on: $0, logger: core.logger)
            }
            for row in rows { listener.deliver(row, from: channel, core) }
            if rows.count < Listener.pageSize { return }
        }
    }

    func receive(_ payload: String) async throws {
        guard let (sequence, row) = Self.parse(payload) else {
            core.report(.malformedNotification(payload, channel: channel), on: channel, body: payload)
            return try await catchUp()
        }
        let last = listener.lastSequence(of: channel)
        if sequence <= last { return }
        if sequence == last + 1, let row { return listener.deliver(row, from: channel, core) }
        try await catchUp()
        // Notified, yet not in the outbox: pruned already.
        listener.skip(through: sequence, of: channel, core)
    }

    /// A link's notification: `seq`, or `seq`, origin, `t` or `f` for echo, linked name and body on lines of
    /// their own.
    static func parse(_ payload: String) -> (Int64, Outbox.Row?)? {
        let lines = payload.split(separator: "\n", maxSplits: 4, omittingEmptySubsequences: false)
        guard let sequence = Int64(lines[0]), sequence > 0 else { return nil }
        if lines.count == 1 { return (sequence, nil) }
        guard lines.count == 5, lines[2] == "t" || lines[2] == "f" else { return nil }
        return (
            sequence,
            Outbox.Row(
                sequence: sequence, origin: String(lines[1]), echo: lines[2] == "t", linkedName: String(lines[3]),
                body: String(lines[4]))
        )
    }
}
