#if Postgres && Observability
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// CLOCK_MONOTONIC in nanoseconds: on Linux every process reads the same clock, so a receiver can subtract the
/// sender's stamp.
func monotonicNow() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

private let standardOutput = NIOLock()

/// Writes a line at once (standard output is a pipe to the parent, which `print` would hold back), one line at a
/// time: a receiver's long `stats` line and a `last` line written beside it must not interleave.
func say(_ line: String) {
    standardOutput.withLock { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
}

func complain(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out: \(what)" }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The result of `work`, or ``TimedOut`` once `limit` has passed; `work` is then cancelled, and must end when it is.
func within<T: Sendable>(
    _ limit: Duration, _ what: String, _ work: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        if let first = try await group.next(), let result = first { return result }
        throw TimedOut(what: what)
    }
}

/// Something that happens once, which any number of tasks can wait for.
final class Occurrence: Sendable {
    private struct State {
        var happened = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = NIOLockedValueBox(State())

    var hasHappened: Bool { state.withLockedValue(\.happened) }

    func happen() {
        let waiters = state.withLockedValue { state in
            state.happened = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once it has happened, or once the waiting task is cancelled.
    func wait() async {
        let id = state.withLockedValue { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLockedValue { state in
                    if state.happened || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLockedValue { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}

/// Calls `line` with each line of `file` as it comes (without its newline), and `end` when the file ends.
///
/// A thread of its own reads with blocking reads and ends with the file. `FileHandle.readabilityHandler` is not
/// used: its dispatch source was watching a child's pipe when libdispatch's event loop crashed in a CI run (see
/// `Lines` in the Postgres example).
func readLines(
    of file: FileHandle, _ line: @escaping @Sendable (String) -> Void, end: @escaping @Sendable () -> Void
) {
    Thread.detachNewThread {
        var pending = Data()
        while case let data = file.availableData, !data.isEmpty {
            pending.append(data)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                line(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending.removeSubrange(pending.startIndex...newline)
            }
        }
        end()
    }
}

func connectionConfiguration(socket: String) -> PostgresConnection.Configuration {
    .init(unixSocketPath: socket, username: "postgres", password: nil, database: "postgres")
}

func clientConfiguration(socket: String) -> PostgresClient.Configuration {
    .init(unixSocketPath: socket, username: "postgres", password: nil, database: "postgres")
}

/// The result of `work` on a connection of its own, closed afterwards.
func withConnection<T>(
    socket: String, id: Int, logger: Logger, _ work: (PostgresConnection) async throws -> T
) async throws -> T {
    let connection = try await PostgresConnection.connect(
        configuration: connectionConfiguration(socket: socket), id: id, logger: logger)
    do {
        let result = try await work(connection)
        try? await connection.close()
        return result
    } catch {
        try? await connection.close()
        throw error
    }
}

func firstValue<T: PostgresDecodable & Sendable>(
    _ type: T.Type, _ query: PostgresQuery, on connection: PostgresConnection, logger: Logger
) async throws -> T? {
    for try await value in try await connection.query(query, logger: logger).decode(T.self) { return value }
    return nil
}

func execute(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws {
    for try await _ in try await connection.query(query, logger: logger) {}
}
#endif
