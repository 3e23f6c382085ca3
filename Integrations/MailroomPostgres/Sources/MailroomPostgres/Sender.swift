import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// A mail on its way out: encoded, and numbered by its origin once it is first written.
struct Outgoing: Hashable, Sendable {
    var channel: String
    var linkedName: String
    var body: String
}

/// Sends this process's posts of carried types: a queue that the office's recipients fill on the posting thread,
/// and one task that empties it into the outbox through a connection of its own.
///
/// Mail leaves in the order it was queued. Everything queued when a write fails is kept and written again after a
/// reconnect, except what committed after all (PostgreSQL may commit a statement whose answer the connection lost),
/// which the sender looks up by the origin's numbers: each mail is written once.
final class Sender: Sendable {
    /// The most mail taken from the queue at a time: one statement per channel among them.
    static let batchLimit = 256

    private struct Queued {
        var mail: Outgoing
        var number: Int64?
    }

    private struct State {
        var queue: [Queued] = []
        /// Mail this process is posting to itself after a commit (``Carriage``): its forwarding is skipped once.
        var echoes: [Outgoing: Int] = [:]
    }

    private let state = NIOLockedValueBox(State())
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>

    init() {
        (wakes, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The mail queued and not yet known to be written.
    var unsent: Int { state.withLockedValue { $0.queue.count } }

    /// Queues `mail`, unless it is the echo of mail this process sent in a transaction.
    func forward(_ mail: Outgoing) {
        let queued = state.withLockedValue { state in
            if let count = state.echoes[mail] {
                state.echoes[mail] = count > 1 ? count - 1 : nil
                return false
            }
            state.queue.append(Queued(mail: mail))
            return true
        }
        if queued { wake.yield() }
    }

    func expectEcho(of mail: Outgoing) {
        state.withLockedValue { $0.echoes[mail, default: 0] += 1 }
    }

    func forgetEcho(of mail: Outgoing) {
        state.withLockedValue { state in
            if let count = state.echoes[mail] { state.echoes[mail] = count > 1 ? count - 1 : nil }
        }
    }

    /// Writes queued mail until cancelled, then for as long as there is mail and the database answers.
    ///
    /// Each channel's share of a batch is one statement, committed on its own (no `BEGIN` and `COMMIT`: one round
    /// trip, so mail leaves as soon as a raw `NOTIFY` would). A statement commits after it answers, so its mail
    /// stays queued, as written but unconfirmed, until the next answer on the same connection confirms the commit;
    /// when nothing follows, a `SELECT 1` does. After a failure, the unconfirmed mail is looked up by its origin's
    /// numbers, and what did not commit is written again.
    func run(_ core: LinkCore) async {
        var connection: PostgresConnection?
        var failures = 0
        // How many mail at the queue's front were written and are not yet confirmed.
        var written = 0
        // The numbers of writes whose outcome is unknown: looked up before anything else is written.
        var uncertain: [Int64] = []
        var wakes = self.wakes.makeAsyncIterator()
        while true {
            if uncertain.isEmpty && unsent == 0 {
                if Task.isCancelled { break }
                _ = await wakes.next()
                continue
            }
            do {
                if !uncertain.isEmpty, let open = connection {
                    let committed = try await core.answer(on: open) { [uncertain] open in
                        try await Outbox.committed(uncertain, of: core.origin, on: open, logger: core.logger)
                    }
                    state.withLockedValue { state in
                        state.queue.removeAll { $0.number.map(committed.contains) ?? false }
                    }
                    uncertain = []
                }
                guard let open = connection else {
                    connection = try await core.connect()
                    continue
                }
                let batch = try await take(after: written, numberedOn: open, core)
                let confirming = written
                written += batch.count
                if batch.isEmpty {
                    try await core.answer(on: open) { open in
                        for try await _ in try await open.query("SELECT 1", logger: core.logger) {}
                    }
                } else {
                    for group in Self.channelGroups(of: batch, origin: core.origin) {
                        try await core.answer(on: open) {
                            try await Outbox.write(group, on: $0, prepared: true, logger: core.logger)
                        }
                    }
                }
                state.withLockedValue { $0.queue.removeFirst(confirming) }
                written -= confirming
                failures = 0
            } catch {
                // A lookup that failed leaves its numbers; a write that failed adds what it left unconfirmed.
                uncertain += state.withLockedValue { $0.queue.prefix(written).compactMap(\.number) }
                written = 0
                connection?.abandon()
                connection = nil
                failures += 1
                if Task.isCancelled {
                    if unsent > 0 {
                        core.logger.error(
                            "stopped with mail unsent",
                            metadata: ["unsent": "\(unsent)", "error": "\(String(reflecting: error))"])
                    }
                    break
                }
                core.logger.warning(
                    "cannot write to the outbox; retrying",
                    metadata: ["error": "\(String(reflecting: error))", "unsent": "\(unsent)"])
                try? await Task.sleep(for: core.configuration.reconnectDelay(afterFailures: failures))
            }
        }
        connection?.abandon()
    }

    /// The queue's next mail after the first `written`, up to ``batchLimit``, numbered if they were not yet.
    private func take(after written: Int, numberedOn connection: PostgresConnection, _ core: LinkCore) async throws
        -> [Queued]
    {
        let unnumbered = state.withLockedValue { state in
            state.queue.dropFirst(written).prefix(Self.batchLimit).count { $0.number == nil }
        }
        let numbers: [Int64]
        if unnumbered == 0 {
            numbers = []
        } else if core.readsNumbersFirst {
            numbers = try await core.answer(on: connection) { try await core.reserveNumbers(unnumbered, on: $0) }
        } else {
            numbers = try await core.reserveNumbers(unnumbered, on: connection)
        }
        return state.withLockedValue { state in
            let next = state.queue.indices.dropFirst(written).prefix(Self.batchLimit)
            var numbers = numbers.makeIterator()
            for index in next where state.queue[index].number == nil {
                guard let number = numbers.next() else { break }
                state.queue[index].number = number
            }
            return Array(state.queue[next].prefix { $0.number != nil })
        }
    }

    /// `batch` as one write per channel, each in queue order, the channels in name order.
    private static func channelGroups(of batch: [Queued], origin: String) -> [Outbox.Batch] {
        var groups: [Outbox.Batch] = []
        var indexOfChannel: [String: Int] = [:]
        for queued in batch {
            let index =
                indexOfChannel[queued.mail.channel]
                ?? {
                    groups.append(
                        Outbox.Batch(
                            channel: queued.mail.channel, origin: origin, numbers: [], echo: false, linkedNames: [],
                            bodies: []))
                    indexOfChannel[queued.mail.channel] = groups.count - 1
                    return groups.count - 1
                }()
            groups[index].numbers.append(queued.number ?? 0)
            groups[index].linkedNames.append(queued.mail.linkedName)
            groups[index].bodies.append(queued.mail.body)
        }
        return groups.sorted { $0.channel < $1.channel }
    }
}
