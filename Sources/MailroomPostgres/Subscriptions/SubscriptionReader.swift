#if Postgres
import PostgresNIO

/// Reads one channel for one subscription: on a connection leased from the client, it waits until this process
/// owns the channel in the subscription's ``ConsumerGroup`` and holds the subscription's lock for it (so that one
/// process reads it at a time), loads the stored position, and performs what a ``SubscriptionStateMachine`` says.
/// Any failure of the database ends the connection's session; the next one starts again from the stored position.
/// So does a change of owner, which the reader looks for once per heartbeat, between batches.
///
/// The position is stored once per batch. A batch with a transactional recipient runs in one transaction, opened by
/// its first such recipient, with a savepoint before each one, so that a recipient that throws takes back only its
/// own writes; the statement that stores the position commits it.
struct SubscriptionReader: Sendable {
    /// The most mail in a batch that has a transactional recipient. A savepoint is a subtransaction, and PostgreSQL
    /// keeps up to 64 of a transaction's in the shared cache that every snapshot reads; past that, every session
    /// of the server slows down.
    static let transactionalBatch = 32

    let subscription: PostgresSubscription
    let channel: String
    /// Every channel the subscription reads in this process, as the other members are told.
    let channels: [String]
    /// By linked name.
    let recipients: [String: PostgresSubscription.Recipient]
    let watermark: Watermark
    let core: LinkCore

    /// Reads session after session until cancelled.
    func run(on client: PostgresClient) async throws {
        var failures = 0
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    defer { connection.closeNow() }
                    try await session(on: connection)
                }
                core.logger.info(
                    "gave a channel of a subscription to its new owner",
                    metadata: ["subscription": "\(subscription.name)", "channel": "\(channel)"])
            } catch {
                if Task.isCancelled { return }
                failures += 1
                core.logger.warning(
                    "lost the connection of a subscription; leasing another",
                    metadata: [
                        "subscription": "\(subscription.name)", "channel": "\(channel)",
                        "error": "\(String(reflecting: error))",
                    ])
                try? await Task.sleep(for: retryDelay(afterFailures: failures))
            }
        }
    }

    /// Waits to own the channel and hold its lock, then reads until a statement fails, the task is cancelled
    /// (both throw) or another process owns the channel (it returns). The connection is closed afterwards, which
    /// gives the lock back.
    private func session(on connection: PostgresConnection) async throws {
        try await core.prepareTables(on: connection)
        let (name, channel) = (subscription.name, self.channel)
        let heartbeat = core.configuration.heartbeat
        // The server waits for the lock; asking again every so often notices a connection that died meanwhile, and
        // a change of owner.
        let wait = min(heartbeat, core.configuration.queryTimeout / 2)
        while true {
            if try await ownsChannel(on: connection) {
                let locked = try await core.answer(on: connection) { outbox, connection in
                    try await outbox.lockSubscription(name, on: channel, waitingAtMost: wait, on: connection)
                }
                if locked { break }
            } else {
                try await Task.sleep(for: wait)
            }
        }
        core.logger.info(
            "reading a channel of a subscription", metadata: ["subscription": "\(name)", "channel": "\(channel)"])
        var checked = ContinuousClock.now
        let start = subscription.start
        let (position, failures) = try await core.answer(on: connection) {
            try await $0.position(of: name, on: channel, start: start, on: $1)
        }
        let transactional = recipients.values.contains { $0.inTransaction }
        var machine = SubscriptionStateMachine(
            channel: channel, position: position, failures: failures, maximumAttempts: subscription.maximumAttempts,
            storeEvery: transactional ? Self.transactionalBatch : Listener.pageSize)
        var action = machine.start()
        /// What the last recipient threw, or why its mail did not decode: for the dead letter.
        var lastError = ""
        /// Whether the batch's transaction is open.
        var inTransaction = false
        while true {
            switch action {
            case .read(let after):
                if checked.duration(to: .now) >= heartbeat {
                    guard try await ownsChannel(on: connection) else { return }
                    checked = .now
                }
                // Mail the listener has just delivered is taken as it came, when it reaches as far as the channel is
                // known to go; everything else is read from the outbox.
                if let rows = watermark.rows(after: after), let last = rows.last, last.sequence >= machine.latest {
                    action = machine.read(rows, complete: true)
                    continue
                }
                let rows = try await core.answer(on: connection) {
                    try await $0.rows(of: channel, after: after, limit: Listener.pageSize, on: $1)
                }
                action = machine.read(rows, complete: rows.count < Listener.pageSize)
            case .handle(let row, let attempt), .retry(let row, let attempt, _):
                if case .retry(_, _, let delay) = action { try await Task.sleep(for: delay) }
                switch try await handle(row, attempt: attempt, inTransaction: &inTransaction, on: connection) {
                case .handled:
                    action = machine.handled()
                case .failed(let error):
                    lastError = String(describing: error)
                    action = machine.failed()
                case .undecodable(let error):
                    lastError = String(describing: error)
                    action = machine.undecodable()
                }
            case .store(let from, let to):
                let commit = inTransaction
                try await core.answer(on: connection) { outbox, connection in
                    try await outbox.move(name, on: channel, from: from, to: to, on: connection)
                    if commit { try await outbox.execute("COMMIT", on: connection) }
                }
                inTransaction = false
                action = machine.stored()
            case .countFailure:
                let position = machine.position
                let attempts = try await core.answer(on: connection) {
                    try await $0.countFailure(of: name, on: channel, after: position, on: $1)
                }
                action = machine.counted(attempts: attempts)
            case .bury(let row, let attempts):
                let (position, error) = (machine.position, lastError)
                try await core.answer(on: connection) {
                    try await $0.bury(
                        row, of: name, on: channel, after: position, error: error, attempts: attempts, on: $1)
                }
                core.logger.error(
                    "moved mail to the dead letters",
                    metadata: [
                        "subscription": "\(name)", "channel": "\(channel)", "sequence": "\(row.sequence)",
                        "attempts": "\(attempts)", "error": "\(error)",
                    ])
                action = machine.buried()
            case .stepOver(var missed, let from, let to):
                try await core.answer(on: connection) {
                    try await $0.move(name, on: channel, from: from, to: to, on: $1)
                }
                missed.subscription = name
                core.report(missed)
                action = machine.stepped()
            case .wait(let beyond):
                if let latest = try await watermark.wait(beyond: beyond, atMost: heartbeat) {
                    action = machine.woke(latest: latest)
                } else {
                    guard try await ownsChannel(on: connection) else { return }
                    checked = .now
                    action = machine.waitedLong()
                }
            }
        }
    }

    /// Whether this process owns the channel among the subscription's live members, after telling them which
    /// channels it reads.
    private func ownsChannel(on connection: PostgresConnection) async throws -> Bool {
        let (name, origin, channels) = (subscription.name, core.origin, self.channels)
        var members = try await core.answer(on: connection) {
            try await $0.members(of: name, origin: origin, channels: channels, on: $1)
        }
        members[origin] = Set(channels)
        return ConsumerGroup(members: members).owner(of: channel) == origin
    }

    /// What became of a mail handed to its recipient.
    private enum Outcome {
        /// The position moved past it: the recipient returned, or the mail is not for the subscription.
        case handled
        /// The recipient threw this (reported).
        case failed(any Error)
        /// The mail did not decode, for this reason (reported).
        case undecodable(any Error)
    }

    /// Hands `row` to its recipient; a transactional one runs in the batch's transaction (opening it if
    /// `inTransaction` is false, or else after a savepoint), which is rolled back as far as it began when it throws.
    /// A mail of a type the subscription does not receive, or for another subscription, is handled at once. Throws
    /// when the database fails.
    private func handle(
        _ row: Outbox.Row, attempt: Int, inTransaction: inout Bool, on connection: PostgresConnection
    ) async throws -> Outcome {
        guard let recipient = recipients[row.linkedName], row.target == nil || row.target == subscription.name
        else { return .handled }
        let run: @Sendable (PostgresSubscription.Delivery, PostgresConnection) async throws -> Void
        do {
            run = try recipient.decode(row.body)
        } catch {
            core.report(error, handling: row, from: channel)
            return .undecodable(error)
        }
        let delivery = PostgresSubscription.Delivery(
            channel: channel, sequence: row.sequence, origin: row.origin, attempt: attempt)
        let begin = recipient.inTransaction && !inTransaction
        if recipient.inTransaction {
            let statement: PostgresQuery = begin ? "BEGIN" : "SAVEPOINT mail"
            try await core.answer(on: connection) { try await $0.execute(statement, on: $1) }
            inTransaction = true
        }
        do {
            try await core.telemetry.run(in: row) { try await run(delivery, connection) }
        } catch {
            // A recipient stopped by the link's stop has not failed: the mail is handed again when it starts.
            try Task.checkCancellation()
            core.report(error, handling: row, from: channel)
            if recipient.inTransaction {
                // The failure is counted outside the transaction; one with nothing else in it ends here.
                let statement: PostgresQuery = begin ? "ROLLBACK" : "ROLLBACK TO SAVEPOINT mail"
                try await core.answer(on: connection) { try await $0.execute(statement, on: $1) }
                inTransaction = !begin
            }
            return .failed(error)
        }
        return .handled
    }
}
#endif
