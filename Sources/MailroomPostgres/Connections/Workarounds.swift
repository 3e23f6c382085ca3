#if Postgres
import Logging
import NIOCore
import PostgresNIO

// What postgres-nio 1.33.2 does that the link must work around, in one place, with the test in UpstreamTests.swift
// that shows the upstream behaviour: when that test fails, the behaviour is gone, and so can the workaround be.
// docs/design.md ("postgres-nio's faults") says what else was suspected and why it needs no workaround.

extension PostgresConnection {
    /// The rows of `query`, or ``ConnectionLost/closed`` when the connection has closed.
    ///
    /// **A query written to a closed connection never answers.** postgres-nio writes a query to the connection's
    /// channel without a promise for the write; on a channel that has closed, the write fails, and the query with
    /// its promise is dropped, so `query(_:logger:)` waits forever (vapor/postgres-nio#487 fixed this; #501
    /// reverted the fix). A pooled connection can close between its lease and a query. Here the check and the write
    /// happen in one turn of the connection's event loop, where no close can come between them; a query written to
    /// an open connection is failed by postgres-nio when the connection closes, so this always returns.
    func answer(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await eventLoop.flatSubmit { [self] () -> EventLoopFuture<[PostgresRow]> in
            guard !isClosed else { return eventLoop.makeFailedFuture(ConnectionLost.closed) }
            return self.query(query, logger: logger).map(\.rows)
        }.get()
    }

    /// Closes the connection without waiting for the close to complete: what a query waits on then fails.
    func closeNow() {
        let _: EventLoopFuture<Void> = close()
    }
}
#endif
