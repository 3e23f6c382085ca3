#if Postgres
/// One channel of a named subscription, as a value that takes events and returns what to do next: the stored
/// position (the number of the last mail handled), the page of mail read after it, and what a handler's success or
/// failure means. ``SubscriptionReader`` performs what it returns; nothing here waits or touches the database.
///
/// Mail is handled in the channel's order, one at a time, and the position moves past a mail only once its handler
/// has returned. The position is stored once per batch (``storeEvery`` mail at most, and before anything other than
/// handling the next mail: reading, waiting, counting a failure), so that a transaction that stores it commits what
/// the batch's handlers wrote with it. After a crash, the mail after the stored position is handled again, so each
/// mail is handled at least once. A handler that throws
/// has its failure counted in the database, and gets the same mail again after a back-off, until the count reaches
/// the subscription's maximum: then the mail goes to the dead letters and the channel goes on. Numbers that the
/// outbox no longer has (it pruned them) are reported as missed and stepped over, never skipped in silence.
struct SubscriptionStateMachine: Sendable, Hashable {
    /// What the reader does next.
    enum Action: Sendable, Hashable {
        /// Reads a page of the channel's mail numbered after this one, and hands it to ``read(_:complete:)``.
        case read(after: Int64)
        /// Runs the handler for this mail (as its `attempt`th attempt, from 1), in the batch's transaction when the
        /// handler has one; then ``handled()``, ``failed()`` or ``undecodable()``.
        case handle(Outbox.Row, attempt: Int)
        /// Stores the position `to` in place of `from`, committing the batch's transaction if one is open; then
        /// ``stored()``.
        case store(from: Int64, to: Int64)
        /// Counts a failed attempt at this mail in the database, and hands the count to ``counted(attempts:)``.
        case countFailure(Outbox.Row)
        /// Waits this long, then runs the handler for the mail again (its `attempt`th attempt).
        case retry(Outbox.Row, attempt: Int, after: Duration)
        /// Moves the mail to the dead letters and the stored position past it, then ``buried()``.
        case bury(Outbox.Row, attempts: Int)
        /// Moves the stored position from `from` over mail the outbox no longer has, to `to`, reports the mail as
        /// missed, then ``stepped()``.
        case stepOver(PostgresLinkError, from: Int64, to: Int64)
        /// Waits until the channel is known to have mail after this number, and hands that number to
        /// ``woke(latest:)``.
        case wait(beyond: Int64)
    }

    let channel: String
    /// The attempts at one mail after which it goes to the dead letters.
    let maximumAttempts: Int
    /// The most mail handled between two stores of the position.
    let storeEvery: Int
    /// The number of the last mail handled (or stepped over).
    private(set) var position: Int64
    /// The position as stored.
    private var storedPosition: Int64
    /// Mail handled since the position was stored.
    private var unstored = 0
    /// What follows the store under way, when it is not ``next()``.
    private var afterStore: Action?
    /// The highest number the channel is known to have.
    private(set) var latest: Int64
    /// ``latest`` when the last read was asked for: mail up to it had committed, so a read that does not return it
    /// shows that it was pruned.
    private var latestBeforeRead: Int64
    /// Mail read after the position and not yet handled, in order.
    private var pending: ArraySlice<Outbox.Row> = []
    /// Whether the last read returned all the mail there was after the position.
    private var complete = false
    /// The failed attempts at the mail after the position, as stored.
    private var failures: Int

    /// A reader of `channel` whose stored position is `position`, with `failures` failed attempts (as stored) at the
    /// mail after it.
    init(channel: String, position: Int64, failures: Int = 0, maximumAttempts: Int = .max, storeEvery: Int = 1) {
        self.channel = channel
        self.position = position
        self.storedPosition = position
        self.storeEvery = max(storeEvery, 1)
        self.failures = failures
        self.maximumAttempts = maximumAttempts
        latest = position
        latestBeforeRead = position
    }

    /// The first thing to do: read what was committed after the position.
    mutating func start() -> Action {
        read()
    }

    /// A page of the channel's mail after the position arrived, in order: all of it (`complete`) or a page of it.
    mutating func read(_ rows: [Outbox.Row], complete: Bool) -> Action {
        self.complete = complete
        pending = rows.drop { $0.sequence <= position }
        latest = max(latest, pending.last?.sequence ?? 0)
        if pending.isEmpty && complete && latestBeforeRead > position {
            return stepOver(to: latestBeforeRead)
        }
        return next()
    }

    /// The handler of the first pending mail returned: the position moves past it (to be stored with the batch).
    mutating func handled() -> Action {
        if let row = pending.popFirst() {
            position = row.sequence
            unstored += 1
        }
        failures = 0
        return next()
    }

    /// The position was stored.
    mutating func stored() -> Action {
        storedPosition = position
        unstored = 0
        defer { afterStore = nil }
        return afterStore ?? next()
    }

    /// The handler of the first pending mail threw: the failure is counted, once the mail handled before it is
    /// stored.
    mutating func failed() -> Action {
        guard let row = pending.first else { return next() }
        return storing(then: .countFailure(row))
    }

    /// The first pending mail cannot be decoded: trying again would not help, so it goes to the dead letters.
    mutating func undecodable() -> Action {
        guard let row = pending.first else { return next() }
        return storing(then: .bury(row, attempts: failures + 1))
    }

    /// The first pending mail went to the dead letters, and the stored position past it.
    mutating func buried() -> Action {
        if let row = pending.popFirst() {
            position = row.sequence
            storedPosition = row.sequence
        }
        failures = 0
        return next()
    }

    /// The failed attempts at the first pending mail are `attempts`, as stored: it is tried again after a back-off,
    /// or, at the maximum, goes to the dead letters.
    mutating func counted(attempts: Int) -> Action {
        guard let row = pending.first else { return next() }
        failures = attempts
        if attempts >= maximumAttempts { return .bury(row, attempts: attempts) }
        return .retry(row, attempt: attempts + 1, after: retryDelay(afterFailures: attempts))
    }

    /// The position after missed mail was stored.
    mutating func stepped() -> Action {
        next()
    }

    /// A heartbeat passed while waiting, with no word of new mail: the outbox is read again, so that mail the
    /// listener has not passed on (it is behind, or reconnecting) waits a heartbeat at most.
    mutating func waitedLong() -> Action {
        let action = next()
        guard case .wait = action else { return action }
        return read()
    }

    /// The channel is known to have mail up to `latest`.
    mutating func woke(latest: Int64) -> Action {
        self.latest = max(self.latest, latest)
        return next()
    }

    /// What follows once the first pending mail is done with.
    private mutating func next() -> Action {
        if let first = pending.first, first.sequence == position + 1, unstored < storeEvery {
            return .handle(first, attempt: failures + 1)
        }
        if position != storedPosition { return .store(from: storedPosition, to: position) }
        if let first = pending.first {
            if first.sequence > position + 1 { return stepOver(to: first.sequence - 1) }
            return .handle(first, attempt: failures + 1)
        }
        if !complete || latest > position { return read() }
        return .wait(beyond: position)
    }

    /// `action` once the position is stored.
    private mutating func storing(then action: Action) -> Action {
        guard position != storedPosition else { return action }
        afterStore = action
        return .store(from: storedPosition, to: position)
    }

    private mutating func read() -> Action {
        latestBeforeRead = latest
        return .read(after: position)
    }

    /// Moves the position over the missed numbers up to `sequence`.
    private mutating func stepOver(to sequence: Int64) -> Action {
        defer {
            position = sequence
            storedPosition = sequence
            failures = 0
        }
        return .stepOver(missed(position + 1...sequence), from: position, to: sequence)
    }

    private func missed(_ sequences: ClosedRange<Int64>) -> PostgresLinkError {
        PostgresLinkError(.missedMail, channel: channel, sequences: sequences)
    }
}
#endif
