#if Postgres
import MailroomPostgres
import PostgresNIO

/// Runs `link`, and `client` if given (the link's), prints `ready` once the link listens, and returns the status
/// `work` returns, once both have ended; or, when the link cannot listen (another live link has its origin, say),
/// prints `refused` and why, and returns 3 once they have ended.
func whileRunning(
    _ link: PostgresLink, client: PostgresClient? = nil, _ work: () async throws -> Int32
) async throws -> Int32 {
    try await withThrowingTaskGroup(of: Void.self) { group in
        if let client { group.addTask { await client.run() } }
        group.addTask { try await link.run() }
        defer { group.cancelAll() }
        do {
            try await link.listening()
        } catch {
            say("refused \(error)")
            return 3
        }
        say("ready")
        return try await work()
    }
}
#endif
