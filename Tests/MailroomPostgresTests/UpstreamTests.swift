#if Postgres
import Foundation
import PostgresNIO
import Testing

@testable import MailroomPostgres

/// The fault of postgres-nio 1.33.2 that the link works around (Connections/Workarounds.swift). The first test shows
/// the fault with postgres-nio's own API: when it fails, postgres-nio answers, and the workaround can go.
extension DatabaseTests {
    @Suite("postgres-nio's faults")
    struct UpstreamTests {
        @Test(
            "postgres-nio: a query on a closed connection never answers (the process is given 2 s, where an answer takes milliseconds)"
        )
        func queryOnClosedConnectionHangs() async throws {
            let probe = try Peer("upstream", arguments: ["--upstream", "query-on-closed-connection"])
            try await probe.line(startingWith: "querying")
            let answered = try? await probe.line(startingWith: "answered", within: .seconds(2))
            #expect(answered == nil, "postgres-nio answered: the workaround in Workarounds.swift can go")
            #expect(probe.isRunning)
            probe.terminate()
        }

        @Test("the link's query on a closed connection fails at once")
        func workaroundAnswers() async throws {
            let connection = try await PostgresConnection.connect(
                configuration: Server.configuration(), id: 1, logger: Server.logger)
            try await connection.close()
            await #expect(throws: ConnectionLost.self) {
                try await within(.seconds(30), closing: nil) {
                    try await connection.answer("SELECT 1", logger: Server.logger)
                }
            }
        }
    }
}
#endif
