#if Postgres
import Foundation
import Logging
import PostgresNIO

/// What postgres-nio 1.33.2 does that MailroomPostgres works around (Sources/MailroomPostgres/Connections/
/// Workarounds.swift), shown with postgres-nio's own API in a process of its own, which the test ends:
///
///   LinkPeer --upstream query-on-closed-connection
///       closes a connection, prints `querying`, runs a query on it, and prints `answered` if it ever answers.
func probeUpstream(_ probe: String, socket: String) async throws -> Int32 {
    var logger = Logger(label: "LinkPeer.upstream")
    logger.logLevel = .critical
    guard probe == "query-on-closed-connection" else {
        say("unknown probe \(probe)")
        return 2
    }
    let connection = try await PostgresConnection.connect(
        configuration: .init(unixSocketPath: socket, username: "postgres", password: nil, database: "postgres"),
        id: 1, logger: logger)
    try await connection.close()
    say("querying")
    _ = try? await connection.query("SELECT 1", logger: logger)
    say("answered")
    return 0
}
#endif
