#if Postgres
import NIOConcurrencyHelpers

/// The highest number a channel is known to have, as the listener reads it, for the subscriptions' readers to wait
/// on: a reader that has handled everything waits here instead of asking the database again.
final class Watermark: Sendable {
    private struct State {
        var latest: Int64 = 0
        var waiters: [Int: (beyond: Int64, continuation: CheckedContinuation<Int64, any Error>)] = [:]
        var nextWaiter = 0
    }

    private let state = NIOLockedValueBox(State())

    /// The channel has mail up to `sequence`: the readers waiting for less go on.
    func advance(to sequence: Int64) {
        let woken = state.withLockedValue { state -> [CheckedContinuation<Int64, any Error>] in
            guard sequence > state.latest else { return [] }
            state.latest = sequence
            let ready = state.waiters.filter { $0.value.beyond < sequence }
            for id in ready.keys { state.waiters[id] = nil }
            return ready.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume(returning: sequence) }
    }

    /// Returns the highest number known once it is above `sequence`, or `nil` once `limit` has passed.
    func wait(beyond sequence: Int64, atMost limit: Duration) async throws -> Int64? {
        try await withThrowingTaskGroup(of: Int64?.self) { group in
            group.addTask { try await self.wait(beyond: sequence) }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// Returns the highest number known once it is above `sequence`, or throws `CancellationError`.
    func wait(beyond sequence: Int64) async throws -> Int64 {
        let id = state.withLockedValue { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let outcome = state.withLockedValue { state -> Result<Int64, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.latest > sequence { return .success(state.latest) }
                    state.waiters[id] = (sequence, continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            state.withLockedValue { $0.waiters.removeValue(forKey: id) }?.continuation.resume(
                throwing: CancellationError())
        }
    }
}
#endif
