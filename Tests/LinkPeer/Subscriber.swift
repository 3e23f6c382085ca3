#if Postgres
import Foundation
import Logging
import Mailroom
import MailroomPostgres
import PostgresNIO

/// A process of the subscription tests, on the tables of the prefix in LINKPEER_PREFIX:
///
///   LinkPeer --subscribe NAME ORIGIN [--in-transaction] [--die-at SEQUENCE]
///
/// Runs a link whose subscription NAME (starting at the beginning) receives `Note`, `Blob` and `Tick`, and prints
/// `ready` once it listens, then `handled CHANNEL SEQUENCE ORIGIN INDEX` for each mail its recipient returns from,
/// among the link's log lines (from `info` up, or the level in LINKPEER_LOG).
/// With `--in-transaction`, the recipient inserts (CHANNEL, SEQUENCE) into the table PREFIXeffects in the
/// subscription's transaction, and with `--die-at`, it kills its own process with SIGKILL after inserting the mail
/// of that number on the channel `peer_mail`, before the transaction commits. Stops the link and exits with 0 when
/// it reads `finish`.
func subscribe(_ arguments: [String], socket: String) async throws -> Int32 {
    guard arguments.count >= 2 else {
        say("usage: LinkPeer --subscribe NAME ORIGIN [--in-transaction] [--die-at SEQUENCE]")
        return 2
    }
    let (name, origin) = (arguments[0], arguments[1])
    let inTransaction = arguments.contains("--in-transaction")
    let dieAt = arguments.firstIndex(of: "--die-at").flatMap { arguments.dropFirst($0 + 1).first }.flatMap {
        Int64($0)
    }
    let prefix = ProcessInfo.processInfo.environment["LINKPEER_PREFIX"] ?? "mailroom_"
    // On standard output, beside the `handled` lines: `reading a channel` says when this process took a channel.
    let logger = {
        var logger = Logger(label: "LinkPeer.\(origin)", factory: StreamLogHandler.standardOutput(label:))
        logger.logLevel =
            ProcessInfo.processInfo.environment["LINKPEER_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        return logger
    }()
    var configuration = PostgresLink.Configuration(origin: origin)
    configuration.heartbeat = .seconds(1)
    configuration.tablePrefix = prefix
    let link = try PostgresLink(
        office: PostOffice(), carrying: [Note.self, Blob.self, Tick.self],
        database: .init(unixSocketPath: socket, username: "postgres", password: nil, database: "postgres"),
        configuration: configuration, logger: logger)
    let subscription = try link.subscription(name, startingAt: .beginning)
    let effects = PostgresQuery(unsafeSQL: "INSERT INTO \(prefix)effects (channel, seq) VALUES ($1, $2)")

    /// Receives `M`, whose mail has an origin and an index.
    func receive<M: LinkedMail>(_: M.Type, _ describe: @escaping @Sendable (M) -> String) throws {
        if inTransaction {
            try subscription.receive(M.self) { mail, delivery, connection in
                var insert = effects
                insert.binds.append(delivery.channel)
                insert.binds.append(delivery.sequence)
                try await connection.query(insert, logger: logger)
                if delivery.channel == "peer_mail" && delivery.sequence == dieAt {
                    kill(getpid(), SIGKILL)
                }
                say("handled \(delivery.channel) \(delivery.sequence) \(describe(mail))")
            }
        } else {
            try subscription.receive(M.self) { mail, delivery in
                say("handled \(delivery.channel) \(delivery.sequence) \(describe(mail))")
            }
        }
    }
    try receive(Note.self) { "\($0.origin) \($0.index)" }
    try receive(Blob.self) { "\($0.origin) \($0.index)" }
    try receive(Tick.self) { "\($0.origin) \($0.index)" }

    return try await whileRunning(link) {
        while let command = readLine(), command != "finish" {}
        return 0
    }
}
#endif
