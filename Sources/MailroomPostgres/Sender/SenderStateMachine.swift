#if Postgres
/// A mail on its way out: encoded, with its channel and name, and its poster's trace context.
struct Outgoing: Hashable, Sendable {
    var channel: String
    var linkedName: String
    var body: String
    /// The poster's context, encoded (``LinkTelemetry/carrier()``), or `nil`.
    var context: String? = nil

    /// The mail without its context: what an echo is recognised by, whatever context it was posted in.
    var withoutContext: Outgoing {
        Outgoing(channel: channel, linkedName: linkedName, body: body)
    }
}

/// The sender's bookkeeping, as a value that takes events and returns what to do: the mail queued, the mail
/// written and not yet known to have committed, and the mail in doubt after a failure. ``Sender`` performs what it
/// returns and tells it how that went; nothing here waits or touches the database.
///
/// Mail leaves in the order it was queued, each channel's share of a batch in one statement committed on its own.
/// An autocommitted statement answers before it commits, so written mail stays at the queue's front, unconfirmed,
/// until the next answer on the same connection shows that the commit went through (when nothing else is queued,
/// the answer to ``Action/confirm``). The sender keeps one connection for as long as mail is unconfirmed: the
/// machine says ``Action/wait`` only when nothing is. After a failure, the unconfirmed mail is in doubt: its numbers
/// are looked up before anything else is written, and what did not commit is written again. Each mail is written
/// once.
struct SenderStateMachine: Sendable {
    /// What the sender does next.
    enum Action: Hashable, Sendable {
        /// Look up which of these numbers committed, and report them with ``lookedUp(_:)``, or ``failed()``.
        case lookUp([Int64])
        /// Write these batches, one statement each, in order; then ``succeeded()`` or ``failed()``.
        case write([Outbox.Batch])
        /// Run any statement on the connection that wrote last, to confirm that its write committed; then
        /// ``succeeded()`` or ``failed()``.
        case confirm
        /// Nothing is unconfirmed, and nothing to write: the connection may go; ask again once mail is queued
        /// (or the link stops).
        case wait
        /// The link stopped, and the sender is done: every mail queued was written, or the database failed
        /// ``attemptsAfterStop`` times after the stop (``unsent`` says how much was not written).
        case finish
    }

    /// What ``enqueue(_:)`` did with a mail.
    enum Enqueued: Equatable, Sendable {
        /// Queued: the sender may have to be woken.
        case queued
        /// Not queued: it was this process's own mail, read back after a transaction that sent it committed.
        case echo
        /// Not queued: ``SenderStateMachine/unsent`` mail are waiting, the limit.
        case full
    }

    fileprivate struct Queued: Hashable, Sendable {
        var mail: Outgoing
        /// The link's own number for it, given when it is first written.
        var number: Int64?
    }

    /// The most mail written at a time: one statement per channel among them.
    static let batchLimit = 256

    /// How many failures after ``stop()`` end the sender: enough to look up and write again what a late commit
    /// made fail, few enough that a database that is gone does not hold up the shutdown for long.
    static let attemptsAfterStop = 3

    let origin: String
    /// The link's own random id, written with each mail.
    let link: Int64
    let limit: Int

    private var queue: [Queued] = []
    /// Where the queue starts in `queue`: taking from the front moves it, and the taken slots are dropped once they
    /// are half of the array, so that taking is O(1) amortized however long the queue grew while the database was
    /// down.
    private var head = 0
    /// How many mail at the queue's front were written and are not yet confirmed.
    private var written = 0
    /// What the outstanding write or confirmation confirms when it answers: the unconfirmed mail before it.
    private var confirming: Int?
    /// The numbers of mail whose write may or may not have committed.
    private var inDoubt: [Int64] = []
    private var nextNumber: Int64 = 1
    private(set) var isStopping = false
    private var failuresAfterStop = 0
    /// The failures in a row: how long to wait before trying again.
    private(set) var failures = 0
    /// Mail this process posts to itself after a commit: its queuing is skipped once.
    private var echoes: [Outgoing: Int] = [:]

    init(origin: String, link: Int64, limit: Int) {
        self.origin = origin
        self.link = link
        self.limit = limit
    }

    /// The mail queued and not yet known to be written.
    var unsent: Int { queue.count - head }

    /// Queues `mail`, unless it is the echo of mail this process sent in a transaction, or the queue is full.
    mutating func enqueue(_ mail: Outgoing) -> Enqueued {
        if !echoes.isEmpty, let count = echoes[mail.withoutContext] {
            echoes[mail.withoutContext] = count > 1 ? count - 1 : nil
            return .echo
        }
        guard unsent < limit else { return .full }
        queue.append(Queued(mail: mail))
        return .queued
    }

    /// Expects `mail` to be posted once more by this process, as the echo of its transaction's mail.
    mutating func expectEcho(of mail: Outgoing) {
        echoes[mail.withoutContext, default: 0] += 1
    }

    /// Stops expecting `mail` (once), if it is still expected: the echo was posted and not queued.
    mutating func forgetEcho(of mail: Outgoing) {
        let mail = mail.withoutContext
        if let count = echoes[mail] { echoes[mail] = count > 1 ? count - 1 : nil }
    }

    /// Writes what is queued, then finishes: the link is shutting down. From now on, ``attemptsAfterStop``
    /// failures finish too.
    mutating func stop() {
        isStopping = true
    }

    /// What to do now.
    mutating func next() -> Action {
        precondition(confirming == nil, "next() while a write or confirmation is outstanding")
        if failuresAfterStop >= Self.attemptsAfterStop { return .finish }
        if !inDoubt.isEmpty { return .lookUp(inDoubt) }
        let batch = takeBatch()
        if batch.isEmpty {
            if written > 0 {
                confirming = written
                return .confirm
            }
            return isStopping ? .finish : .wait
        }
        confirming = written
        written += batch.count
        return .write(Self.channelBatches(of: batch, origin: origin, link: link))
    }

    /// The outstanding write or confirmation answered: the mail written before it committed. Returns how many
    /// mail that confirms, by channel.
    @discardableResult
    mutating func succeeded() -> [String: Int] {
        guard let confirmed = confirming else { preconditionFailure("succeeded() without a write or confirmation") }
        confirming = nil
        let sent = Self.count(queue[head..<head + confirmed])
        drop(first: confirmed)
        written -= confirmed
        failures = 0
        return sent
    }

    /// The lookup answered: `committed` are the numbers among those looked up that are in the outbox. Returns how
    /// many mail that confirms, by channel.
    @discardableResult
    mutating func lookedUp(_ committed: Set<Int64>) -> [String: Int] {
        var kept: [Queued] = []
        var sent: [Queued] = []
        kept.reserveCapacity(unsent)
        for queued in queue[head...] {
            if queued.number.map(committed.contains) ?? false {
                sent.append(queued)
            } else {
                kept.append(queued)
            }
        }
        queue = kept
        head = 0
        inDoubt = []
        failures = 0
        return Self.count(sent[...])
    }

    private static func count(_ mail: ArraySlice<Queued>) -> [String: Int] {
        mail.reduce(into: [:]) { counts, queued in counts[queued.mail.channel, default: 0] += 1 }
    }

    /// The outstanding action failed (the connection may be gone): the unconfirmed mail is in doubt, to be looked
    /// up on the next connection. A lookup that failed keeps its numbers in doubt.
    mutating func failed() {
        confirming = nil
        inDoubt += queue[head..<head + written].compactMap(\.number)
        written = 0
        failures += 1
        if isStopping { failuresAfterStop += 1 }
    }

    /// How long to wait after ``failures`` failures in a row before the next action: 20 ms, doubling to 1 s.
    var retryDelay: Duration {
        MailroomPostgres.retryDelay(afterFailures: failures)
    }

    /// The queue's next mail after the written ones, up to ``batchLimit``, numbered if they were not yet.
    private mutating func takeBatch() -> [Queued] {
        let start = head + written
        let end = min(queue.count, start + Self.batchLimit)
        for index in start..<end where queue[index].number == nil {
            queue[index].number = nextNumber
            nextNumber += 1
        }
        return Array(queue[start..<end])
    }

    private mutating func drop(first count: Int) {
        head += count
        if head > 0, head * 2 >= queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }

    /// `batch` as one write per channel, each in queue order, the channels in name order.
    private static func channelBatches(of batch: [Queued], origin: String, link: Int64) -> [Outbox.Batch] {
        var batches: [String: Outbox.Batch] = [:]
        for queued in batch {
            let channel = queued.mail.channel
            batches[
                channel,
                default: Outbox.Batch(
                    channel: channel, origin: origin, link: link, numbers: [], echo: false, linkedNames: [], bodies: [])
            ]
            .append(queued)
        }
        return batches.keys.sorted().compactMap { batches[$0] }
    }
}

extension Outbox.Batch {
    fileprivate mutating func append(_ queued: SenderStateMachine.Queued) {
        numbers.append(queued.number ?? 0)
        linkedNames.append(queued.mail.linkedName)
        bodies.append(queued.mail.body)
        contexts.append(queued.mail.context)
    }
}
#endif
