import NIOConcurrencyHelpers
import PostgresNIO

/// Why the link gave up on a connection.
enum ConnectionLost: Error {
    /// The connection was closed (by the server, the network, or the link).
    case closed
    /// The server did not answer within the configuration's `queryTimeout`; the link closed the connection.
    case noAnswer
}

extension PostgresConnection {
    /// The result of `work` on this connection, or ``ConnectionLost`` within 50 ms of the connection closing, or
    /// once `limit` passes without a result (after closing the connection).
    ///
    /// A query on a connection whose server vanished, or that was closed under it, can wait forever; the caller must
    /// not, and must not wait for the stuck query either (a task group would), so the work runs in a task of its
    /// own and is abandoned to the closed connection when the time is up. That task and the timer start at once on
    /// the caller's thread (`Task.immediate`), up to their first wait, so that the query leaves without waiting for
    /// a thread of the pool. The closing is polled while the work runs: a callback on the connection's
    /// `closeFuture` for each query would stay registered, one more per query, for as long as the connection
    /// lives.
    @discardableResult
    func answer<T: Sendable>(
        within limit: Duration, _ work: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        guard !isClosed else { throw ConnectionLost.closed }
        let waiting = NIOLockedValueBox<CheckedContinuation<T, any Error>?>(nil)
        return try await withCheckedThrowingContinuation { continuation in
            waiting.withLockedValue { $0 = continuation }
            let timer = Task.immediate {
                let deadline = ContinuousClock.now + limit
                while ContinuousClock.now < deadline && !self.isClosed {
                    try await Task.sleep(for: min(.milliseconds(50), deadline - .now))
                }
                guard let continuation = waiting.withLockedValue({ $0.take() }) else { return }
                if self.isClosed {
                    continuation.resume(throwing: ConnectionLost.closed)
                } else {
                    self.abandon()
                    continuation.resume(throwing: ConnectionLost.noAnswer)
                }
            }
            Task.immediate {
                let result: Result<T, any Error>
                do { result = .success(try await work(self)) } catch { result = .failure(error) }
                timer.cancel()
                waiting.withLockedValue { $0.take() }?.resume(with: result)
            }
        }
    }

    /// Closes the connection without waiting: a close can wait as long as a query on a broken connection, and
    /// nothing the link does depends on its end. The connection is kept until it is closed: postgres-nio asserts
    /// that a connection is closed when it is deinitialized.
    func abandon() {
        (close() as EventLoopFuture<Void>).whenComplete { _ in withExtendedLifetime(self) {} }
    }
}
