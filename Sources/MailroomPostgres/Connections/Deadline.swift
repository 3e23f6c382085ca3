#if Postgres
import PostgresNIO

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

/// The wait before trying again after `failures` failures in a row: 20 ms, doubling to 1 s. The client's pool has
/// its own backoff for connecting; this is for the link's statements and its listening, which can fail on a
/// connection the pool had.
func retryDelay(afterFailures failures: Int) -> Duration {
    min(.milliseconds(20) * (1 << min(max(failures - 1, 0), 6)), .seconds(1))
}
#endif
