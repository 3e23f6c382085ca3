#if Postgres
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// Receives the carried channels' mail: one connection, leased from the client for as long as it works, that
/// holds the origin's lock and `LISTEN`s on every channel, and for each channel a ``ChannelStateMachine`` whose
/// actions it performs.
///
/// Each connection's work is one task group (a task per channel and a watchdog), which ends as a whole when any
/// part of it fails, before the next connection is leased: a channel is read by one task at a time.
final class Listener: Sendable {
    /// The most rows read from the outbox by one query.
    static let pageSize = 500

    private let channels: [String: NIOLockedValueBox<ChannelStateMachine>]
    private let gate = ListeningGate()
    /// By channel: the last number read, for the subscriptions' readers.
    let watermarks: [String: Watermark]

    init(channels: some Sequence<String>, tag: String) {
        self.channels = Dictionary(
            uniqueKeysWithValues: channels.map { ($0, NIOLockedValueBox(ChannelStateMachine(channel: $0, tag: tag))) })
        watermarks = self.channels.mapValues { _ in Watermark() }
    }

    /// Listens until cancelled; throws if the first connection cannot be had in time, or the origin is in use when
    /// the link starts. ``listening()`` waits for it.
    func run(on client: PostgresClient, _ core: LinkCore) async throws {
        gate.start()
        do {
            try await listen(on: client, core)
            gate.end(throwing: CancellationError())
        } catch {
            gate.end(throwing: error)
            throw error
        }
    }

    /// Returns once ``run(on:_:)`` has listened on every channel for the first time, or throws why it could not.
    func listening() async throws {
        try await gate.wait()
    }

    /// Listens on connection after connection until cancelled. The first connection must come, and the first
    /// `LISTEN` on every channel succeed, within the configuration's `firstConnectionTimeout`.
    private func listen(on client: PostgresClient, _ core: LinkCore) async throws {
        let limit = core.configuration.firstConnectionTimeout
        let deadline = ContinuousClock.now + limit
        do {
            try await within(limit, closing: nil) { try await client.withConnection { _ in } }
        } catch ConnectionLost.noAnswer {
            throw PostgresLinkError(.unreachable, detail: "no connection to \(core.database) within \(limit)")
        }
        var failures = 0
        var log = ReconnectLog(interval: core.configuration.reconnectLogInterval)
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await self.session(on: connection, core)
                }
            } catch let error as PostgresLinkError where !gate.isOpen {
                throw error
            } catch {
                if Task.isCancelled { return }
                if !gate.isOpen && ContinuousClock.now >= deadline {
                    throw PostgresLinkError(
                        .unreachable,
                        detail: "could not listen on \(core.database) within \(limit): \(String(reflecting: error))")
                }
                failures += 1
                core.telemetry.reconnected()
                if let suppressed = log.lost(at: .now) {
                    core.logger.warning(
                        "lost the listening connection; leasing another",
                        metadata: ["error": "\(String(reflecting: error))", "mailroom.suppressed": "\(suppressed)"])
                }
                try? await Task.sleep(for: retryDelay(afterFailures: failures))
            }
        }
    }

    /// Holds the origin's lock and listens on `connection` until a part fails or the task is cancelled; then gives
    /// the lock back (or closes the connection, which drops it).
    private func session(on connection: PostgresConnection, _ core: LinkCore) async throws {
        try await core.prepareTables(on: connection)
        let holder = try await core.answer(on: connection) { try await $0.lockOrigin(core.origin, on: $1) }
        if let holder {
            let error = PostgresLinkError(.originInUse, origin: core.origin, detail: "it is held by \(holder)")
            guard gate.isOpen else { throw error }
            // After a reconnection, the lock of this link's last connection may not be released yet, or another
            // link took the origin meanwhile: both are delivered in full (mail is told apart by the link's id).
            core.logger.error("\(error)")
        }
        do {
            try await listenOnChannels(on: connection, core)
            if holder == nil {
                try await core.answer(on: connection) { try await $0.unlockOrigin(core.origin, on: $1) }
            }
        } catch {
            if !connection.isClosed { connection.closeNow() }
            throw error
        }
    }

    /// Listens on every channel and watches the connection, until one of them fails or the task is cancelled.
    private func listenOnChannels(on connection: PostgresConnection, _ core: LinkCore) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (channel, machine) in channels {
                group.addTask { try await self.listen(to: channel, machine, on: connection, core) }
            }
            group.addTask { try await Self.watch(connection, core) }
            try await group.next()
            if !Task.isCancelled { throw ConnectionLost.closed }
        }
    }

    private func listen(
        to channel: String, _ machine: NIOLockedValueBox<ChannelStateMachine>, on connection: PostgresConnection,
        _ core: LinkCore
    ) async throws {
        if machine.withLockedValue(\.needsPosition) {
            // Read before the first LISTEN: what commits between the two is read from the outbox just after.
            let last = try await core.answer(on: connection) { try await $0.lastSequence(of: channel, on: $1) }
            machine.withLockedValue { $0.positioned(at: last) }
        }
        try await connection.listen(on: channel) { notifications in
            try await perform(machine.withLockedValue { $0.listened() }, machine, on: connection, core)
            gate.listened(to: channel, of: channels.count)
            for try await notification in notifications {
                let arrived = ContinuousClock.now
                let actions = machine.withLockedValue { $0.notified(notification.payload) }
                try await perform(actions, machine, on: connection, core, arrived: arrived)
            }
        }
    }

    /// Performs `actions`, and those that reading the outbox leads to, in order; `arrived` is when the
    /// notification that led to them arrived.
    private func perform(
        _ actions: [ChannelStateMachine.Action], _ machine: NIOLockedValueBox<ChannelStateMachine>,
        on connection: PostgresConnection, _ core: LinkCore, arrived: ContinuousClock.Instant = .now
    ) async throws {
        var pending = actions[...]
        var lastRead = arrived
        var delivered: [Outbox.Row] = []
        // Also when a read fails: the mail delivered before it is not delivered again, and a subscription's reader
        // waiting for it must hear of it now.
        defer {
            let (channel, last) = machine.withLockedValue { ($0.channel, $0.last) }
            if let last { watermarks[channel]?.advance(to: last, delivering: delivered) }
        }
        while let action = pending.popFirst() {
            switch action {
            case .deliver(let row):
                // Mail read from the outbox was written `age` before the read; a notification's, when it arrived.
                let lag = row.age.map { $0 + (.now - lastRead) } ?? (.now - arrived)
                core.deliver(row, from: machine.withLockedValue(\.channel), lag: lag)
                delivered.append(row)
            case .report(let error):
                if error.code == .missedMail, let missed = error.sequences {
                    core.telemetry.missed(missed.count, on: machine.withLockedValue(\.channel))
                }
                core.report(error)
            case .read(let sequence):
                let channel = machine.withLockedValue(\.channel)
                let rows = try await core.answer(on: connection) {
                    try await $0.rows(of: channel, after: sequence, limit: Self.pageSize, on: $1)
                }
                lastRead = .now
                let next = machine.withLockedValue { $0.read(rows, complete: rows.count < Self.pageSize) }
                pending = next[...] + pending
            }
        }
    }

    /// Pings the connection every heartbeat (one that does not answer in time is closed), and prunes the outbox
    /// every tenth of its retention. Returns only when cancelled.
    private static func watch(_ connection: PostgresConnection, _ core: LinkCore) async throws {
        let configuration = core.configuration
        let pruneEvery = max(configuration.retention / 10, .seconds(1))
        var lastPrune = ContinuousClock.now - pruneEvery
        while !Task.isCancelled {
            if ContinuousClock.now - lastPrune >= pruneEvery {
                let pruned = try await core.answer(on: connection) {
                    try await $0.prune(olderThan: configuration.retention.seconds, on: $1)
                }
                lastPrune = .now
                core.logger.debug("pruned the outbox", metadata: ["rows": "\(pruned)"])
            }
            try await Task.sleep(for: configuration.heartbeat)
            try await within(configuration.heartbeat, closing: connection) {
                try await core.outbox.ping(on: connection)
            }
        }
    }
}

/// When a lost listening connection is logged: the first loss at once, later ones at most once per interval.
struct ReconnectLog {
    let interval: Duration
    private var lastLogged: ContinuousClock.Instant?
    private var suppressed = 0

    init(interval: Duration) {
        self.interval = interval
    }

    /// A connection was lost at `now`: returns how many losses went unlogged before it when this one is to be
    /// logged, or `nil` when it is not.
    mutating func lost(at now: ContinuousClock.Instant) -> Int? {
        if let lastLogged, now - lastLogged < interval {
            suppressed += 1
            return nil
        }
        defer { (lastLogged, suppressed) = (now, 0) }
        return suppressed
    }
}

/// What ``Listener/listening()`` waits for: every channel listened to once, or the reason the listener ended
/// before that.
private final class ListeningGate: Sendable {
    private enum State {
        case waiting(listened: Set<String>)
        case open
        case failed(any Error)
    }

    private struct Locked {
        var state = State.waiting(listened: [])
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var nextWaiter = 0
    }

    private let locked = NIOLockedValueBox(Locked())

    var isOpen: Bool {
        locked.withLockedValue { if case .open = $0.state { true } else { false } }
    }

    /// A run starts: a reason the last one gave is forgotten.
    func start() {
        locked.withLockedValue { if case .failed = $0.state { $0.state = .waiting(listened: []) } }
    }

    func listened(to channel: String, of count: Int) {
        let waiters = locked.withLockedValue { locked -> [CheckedContinuation<Void, any Error>] in
            guard case .waiting(var listened) = locked.state else { return [] }
            listened.insert(channel)
            locked.state = listened.count == count ? .open : .waiting(listened: listened)
            guard case .open = locked.state else { return [] }
            defer { locked.waiters = [:] }
            return Array(locked.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The run ended with `error`: waiters get it, unless the gate is open already.
    func end(throwing error: any Error) {
        let waiters = locked.withLockedValue { locked -> [CheckedContinuation<Void, any Error>] in
            guard case .waiting = locked.state else { return [] }
            locked.state = .failed(error)
            defer { locked.waiters = [:] }
            return Array(locked.waiters.values)
        }
        for waiter in waiters { waiter.resume(throwing: error) }
    }

    /// Returns once the gate is open, or throws the reason it failed, or `CancellationError`.
    func wait() async throws {
        let id = locked.withLockedValue { locked in
            defer { locked.nextWaiter += 1 }
            return locked.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let outcome = locked.withLockedValue { locked -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    switch locked.state {
                    case .open: return .success(())
                    case .failed(let error): return .failure(error)
                    case .waiting:
                        locked.waiters[id] = continuation
                        return nil
                    }
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            locked.withLockedValue { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }
}
#endif
