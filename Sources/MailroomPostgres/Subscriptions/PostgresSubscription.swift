#if Postgres
import Foundation
import NIOConcurrencyHelpers
import PostgresNIO

/// A named, durable reader of a link's mail: its position on each channel is stored in the database, so a process
/// that stops (a crash, `kill -9`, a deploy) and starts again under the same name is handed everything committed
/// meanwhile, in order, and then the mail as it comes.
///
/// ```swift
/// let welcomes = try link.subscription("welcome-emails")
/// try welcomes.receive(SignedUp.self) { signup, delivery in
///     try await mailer.sendWelcome(to: signup.email)
/// }
/// try await link.run()
/// ```
///
/// What a caller may rely on (the article <doc:MailroomPostgres> has the full table):
/// - **At least once, in order.** Each mail of the received types is handed to its recipient in its channel's
///   commit order, one at a time per channel, and the position moves past it only once the recipient has returned.
///   The position is stored once per batch: after at most 500 mail (32 when a recipient is transactional), and
///   whenever the channel has nothing more, a recipient throws, or the reader gives the channel to another process.
///   A process that dies before the position is stored gets that batch again when it starts: each mail is handled
///   at least once.
/// - **Exactly-once effects in the same database.** A recipient given with
///   ``receive(_:inTransaction:)`` runs in the transaction that moves the position: its writes commit with it or
///   not at all.
/// - **A consumer group.** Processes that use the same name share its positions and its channels: each channel is
///   read by one live process at a time, under a session lock, and the channels are shared out evenly among the
///   processes that read them. A process that joins takes its share, and the share of one that stops or dies goes
///   to the others, within about two ``PostgresLink/Configuration/heartbeat``s (each process looks once per
///   heartbeat, between batches); a channel that changes hands goes on from its stored position. A process's
///   liveness is its link's origin lock, so a killed process leaves at once.
/// - **Retries, then dead letters.** A recipient that throws is reported as a `DeliveryFailure` on the link's
///   office (its mail a ``RemoteLetter``, its error the recipient's), and the attempt is counted in the database, so
///   a restart or another process goes on counting. It gets the same mail again after a back-off of 20 ms doubling
///   to 1 s, until ``maximumAttempts`` attempts have failed: then the mail moves to the dead letters with its error
///   (``deadLetters(on:)``), and the channel goes on. Mail that cannot be decoded is reported the same way and moves
///   to the dead letters at once. ``moveBack(_:in:)`` hands a dead letter to the subscription again.
/// - **Nothing skipped in silence.** Mail that left the outbox before the subscription read it is reported as
///   ``PostgresLinkError/Code/missedMail``.
///
/// Mail posted by this process is handed to its subscriptions too, unlike the office's recipients, which get only
/// the other processes' mail. Mail of a type the subscription does not receive moves its position without a call.
public final class PostgresSubscription: Sendable {
    /// Where a subscription starts on a channel for which it has no stored position yet: the first time it runs,
    /// or when it receives a type on a channel new to it. Once stored, a position is kept across restarts.
    public struct Start: Sendable, Hashable {
        enum Kind: Sendable, Hashable {
            case end
            case sequence(Int64)
            /// After the mail written at or before this time; `nil` for all of the outbox.
            case time(Date?)
        }

        let kind: Kind

        /// After the channel's last mail when the subscription starts: it receives mail committed from then on.
        public static let end = Start(kind: .end)

        /// At the oldest mail the outbox still has (see ``PostgresLink/Configuration/retention``).
        public static let beginning = Start(kind: .time(nil))

        /// After the mail numbered `sequence` on each channel (``PostgresSubscription/Delivery/sequence``): it
        /// receives `sequence + 1` onwards, and mail among them that the outbox no longer has is reported as missed.
        public static func after(sequence: Int64) -> Start {
            Start(kind: .sequence(max(sequence, 0)))
        }

        /// After the mail written at or before `time` (by the database's clock): it receives, in each channel's
        /// order, the first mail the outbox has that was written after `time`, and all that follows.
        public static func after(_ time: Date) -> Start {
            Start(kind: .time(time))
        }
    }

    /// What a recipient is told about the mail it is handed, besides the mail.
    public struct Delivery: Sendable, Hashable {
        /// The channel the mail was committed on.
        public let channel: String
        /// Its place in its channel's order: the same in every process and after every restart.
        public let sequence: Int64
        /// The ``PostgresLink/Configuration/origin`` of the link that sent it.
        public let origin: String
        /// Which attempt at this mail this is in this process, from 1: more than 1 after the recipient threw.
        public let attempt: Int
    }

    /// A mail that a subscription's recipient failed to handle ``PostgresSubscription/maximumAttempts`` times, or
    /// that did not decode, kept in the database with the last error until it is moved back.
    public struct DeadLetter: Sendable, Hashable {
        /// Its number among the dead letters.
        public let id: Int64
        /// The subscription that failed to handle it.
        public let subscription: String
        /// The channel it was committed on.
        public let channel: String
        /// Its number on the channel.
        public let sequence: Int64
        /// The ``PostgresLink/Configuration/origin`` of the link that sent it.
        public let origin: String
        /// The ``LinkedMail/linkedName`` it was sent under.
        public let linkedName: String
        /// Its JSON.
        public let body: String
        /// The last error, in words: what the recipient threw, or why the mail did not decode.
        public let error: String
        /// How many attempts failed.
        public let attempts: Int
        /// When it was moved to the dead letters, by the database's clock.
        public let failedAt: Date
    }

    /// The subscription's name: processes that use it share its positions.
    public let name: String
    /// Where it starts on a channel it has no position on.
    public let start: Start
    /// The failed attempts at one mail after which it moves to the dead letters.
    public let maximumAttempts: Int

    /// One received type's recipient, built from the type so that nothing is cast: it decodes a body (throwing
    /// when it cannot), and then runs the recipient on the reader's connection.
    struct Recipient: Sendable {
        let inTransaction: Bool
        let decode: @Sendable (String) throws -> @Sendable (Delivery, PostgresConnection) async throws -> Void
    }

    private struct State {
        /// By channel, then by linked name.
        var recipients: [String: [String: Recipient]] = [:]
        var isRunning = false
    }

    private let state = NIOLockedValueBox(State())
    private let core: LinkCore

    init(name: String, start: Start, maximumAttempts: Int, core: LinkCore) {
        self.name = name
        self.start = start
        self.maximumAttempts = maximumAttempts
        self.core = core
    }

    /// The subscription's dead letters, oldest first, read on `connection`. The tables must exist: they do once a
    /// link with the same ``PostgresLink/Configuration/tablePrefix`` has run.
    public func deadLetters(on connection: PostgresConnection) async throws -> [DeadLetter] {
        try await core.outbox.deadLetters(of: name, on: connection)
    }

    /// Deletes `letter` from the dead letters and writes its mail again, at the end of its channel, for this
    /// subscription alone, in the transaction open on `connection`: once that commits, the subscription is handed
    /// the mail again (as a new attempt, with a new ``Delivery/sequence``), and neither the offices of linked
    /// processes nor other subscriptions receive it again.
    ///
    /// ```swift
    /// try await client.withTransaction(logger: logger) { connection in
    ///     for letter in try await welcomes.deadLetters(on: connection) {
    ///         try await welcomes.moveBack(letter, in: connection)
    ///     }
    /// }
    /// ```
    /// - Throws: ``PostgresLinkError`` with the code ``PostgresLinkError/Code/unknownDeadLetter`` when the letter is
    ///   not among this subscription's dead letters (moved back already, say), or the database's error.
    public func moveBack(_ letter: DeadLetter, in connection: PostgresConnection) async throws {
        guard letter.subscription == name, try await core.outbox.resurrect(letter, on: connection) else {
            throw PostgresLinkError(
                .unknownDeadLetter, channel: letter.channel, sequences: letter.sequence...letter.sequence,
                subscription: name, detail: "dead letter \(letter.id) of \(letter.subscription)")
        }
        core.logger.info(
            "moved a dead letter back",
            metadata: ["subscription": "\(name)", "channel": "\(letter.channel)", "sequence": "\(letter.sequence)"])
    }

    /// Hands each mail of type `M` to `recipient`, which the subscription runs in the channel's order; the position
    /// moves past the mail once `recipient` returns. See ``PostgresSubscription`` for what happens when it throws.
    /// - Throws: ``PostgresLinkError`` with the code ``PostgresLinkError/Code/notCarried`` when the link does not
    ///   carry `M`, ``PostgresLinkError/Code/duplicateName`` when the subscription receives `M` already, or
    ///   ``PostgresLinkError/Code/alreadyRunning`` when the link is running.
    public func receive<M: LinkedMail>(
        _ type: M.Type, _ recipient: @escaping @Sendable (M, Delivery) async throws -> Void
    ) throws {
        try add(M.self, inTransaction: false) { mail, delivery, _ in try await recipient(mail, delivery) }
    }

    /// Hands each mail of type `M` to `recipient` in a transaction open on `connection`, the one that moves the
    /// position past the mail (with the rest of its batch): what `recipient` writes there commits if and only if the
    /// position moves, so each mail has its effect in that database exactly once. When `recipient` throws, what it
    /// wrote is rolled back (to a savepoint taken before it), and what the batch's other recipients wrote stays.
    ///
    /// ```swift
    /// try welcomes.receive(SignedUp.self) { signup, delivery, connection in
    ///     try await connection.query("INSERT INTO welcomes (email) VALUES (\(signup.email))", logger: logger)
    /// }
    /// ```
    ///
    /// Run only statements on `connection`, and not `BEGIN`, `COMMIT` or `ROLLBACK`: the subscription ends the
    /// transaction.
    /// - Throws: as ``receive(_:_:)``.
    public func receive<M: LinkedMail>(
        _ type: M.Type,
        inTransaction recipient: @escaping @Sendable (M, Delivery, PostgresConnection) async throws -> Void
    ) throws {
        try add(M.self, inTransaction: true, recipient)
    }

    private func add<M: LinkedMail>(
        _: M.Type, inTransaction: Bool,
        _ recipient: @escaping @Sendable (M, Delivery, PostgresConnection) async throws -> Void
    ) throws {
        let (channel, linkedName) = (M.linkedChannel, M.linkedName)
        guard core.carriages[channel]?[linkedName] != nil else {
            throw PostgresLinkError(.notCarried, name: linkedName, channel: channel, subscription: name)
        }
        let limit = core.configuration.maximumMailSize
        let entry = Recipient(inTransaction: inTransaction) { body in
            let mail: M = try Carriage.decode(body, limit: limit)
            return { delivery, connection in try await recipient(mail, delivery, connection) }
        }
        try state.withLockedValue { state in
            guard !state.isRunning else {
                throw PostgresLinkError(.alreadyRunning, origin: core.origin, subscription: name)
            }
            guard state.recipients[channel]?[linkedName] == nil else {
                throw PostgresLinkError(.duplicateName, name: linkedName, channel: channel, subscription: name)
            }
            state.recipients[channel, default: [:]][linkedName] = entry
        }
    }

    /// Reads every channel the subscription receives a type on, a task each, until cancelled; recipients cannot
    /// be added meanwhile.
    func run(on client: PostgresClient, watermarks: [String: Watermark]) async throws {
        let recipients = state.withLockedValue { state in
            state.isRunning = true
            return state.recipients
        }
        defer { state.withLockedValue { $0.isRunning = false } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            let channels = recipients.keys.sorted()
            for (channel, recipients) in recipients {
                guard let watermark = watermarks[channel] else { continue }
                let reader = SubscriptionReader(
                    subscription: self, channel: channel, channels: channels, recipients: recipients,
                    watermark: watermark, core: core)
                group.addTask { try await reader.run(on: client) }
            }
            try await group.waitForAll()
        }
    }
}
#endif
