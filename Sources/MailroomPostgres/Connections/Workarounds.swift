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

/// Why the link gave up on a connection.
enum ConnectionLost: Error, CustomStringConvertible {
    /// The connection was closed (by the server, the network, or the link).
    case closed
    /// The server did not answer within this time; the link closed the connection.
    case noAnswer(within: Duration)

    var description: String {
        switch self {
        case .closed: "the connection is closed"
        case .noAnswer(let limit): "the database did not answer within \(limit); the link closed the connection"
        }
    }
}

/// The result of `work`; or, when `limit` passes first (or the task is cancelled), closes `connection` (which ends
/// what `work` waits on it for), cancels `work`, and throws ``ConnectionLost/noAnswer(within:)`` (or
/// `CancellationError`) once `work` has ended. No task outlives the call.
func within<T: Sendable>(
    _ limit: Duration, closing connection: PostgresConnection?, _ work: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        do {
            if let result = try await group.next() ?? nil { return result }
        } catch is CancellationError {
            connection?.closeNow()
            throw CancellationError()
        }
        connection?.closeNow()
        group.cancelAll()
        while let outcome = await group.nextResult() {
            if case .success(let result?) = outcome { return result }
        }
        throw ConnectionLost.noAnswer(within: limit)
    }
}
#endif
