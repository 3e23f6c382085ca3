#if Postgres
import NIOConcurrencyHelpers

/// The highest number a channel is known to have, as the listener reads it, for the subscriptions' readers to wait
/// on: a reader that has handled everything waits here instead of asking the database again. Once a reader has asked
/// for them, it also keeps the mail the listener delivered last (up to a page, and up to 4 MiB of JSON), so that a
/// reader that is up to date takes the next mail from here, as the notification carried it, rather than reading it
/// from the outbox.
final class Watermark: Sendable {
    /// The most mail kept, and the most JSON.
    static let recentLimit = (mail: Listener.pageSize, bytes: 4 << 20)

    fileprivate struct State {
        var latest: Int64 = 0
        var waiters: [Int: (beyond: Int64, continuation: CheckedContinuation<Int64, any Error>)] = [:]
        var nextWaiter = 0
        /// Whether a reader takes mail from here: until one does, none is kept.
        var keepsRecent = false
        /// The mail numbered up to `latest`, in order and without a gap, as the listener delivered it.
        var recent: [Outbox.Row] = []
    }

    private let state = NIOLockedValueBox(State())

    /// The channel has mail up to `sequence`, and the listener delivered `rows` (in order) on the way: the readers
    /// waiting for less go on.
    func advance(to sequence: Int64, delivering rows: [Outbox.Row] = []) {
        let woken = state.withLockedValue { state -> [CheckedContinuation<Int64, any Error>] in
            guard sequence > state.latest else { return [] }
            if state.keepsRecent { state.keep(rows, upTo: sequence) }
            state.latest = sequence
            let ready = state.waiters.filter { $0.value.beyond < sequence }
            for id in ready.keys { state.waiters[id] = nil }
            return ready.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume(returning: sequence) }
    }

    /// The mail after `sequence` up to the highest number known, when there is some and all of it is kept here;
    /// otherwise `nil` (the outbox has it). From the first call on, the watermark keeps the mail the listener
    /// delivers.
    func rows(after sequence: Int64) -> [Outbox.Row]? {
        state.withLockedValue { state in
            state.keepsRecent = true
            guard let first = state.recent.first?.sequence, first <= sequence + 1, sequence < state.latest else {
                return nil
            }
            return Array(state.recent[Int(sequence + 1 - first)...])
        }
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

extension Watermark.State {
    /// Keeps `rows`, delivered on the way to `sequence`, after the mail kept: what is kept is the mail up to
    /// `sequence` without a gap, or nothing. Then drops the oldest beyond the limits.
    fileprivate mutating func keep(_ rows: [Outbox.Row], upTo sequence: Int64) {
        if recent.last?.sequence != latest { recent = [] }
        for row in rows {
            if let last = recent.last?.sequence, row.sequence != last + 1 { recent = [] }
            recent.append(row)
        }
        if recent.last?.sequence != sequence { recent = [] }
        let limit = Watermark.recentLimit
        var bytes = 0
        let kept = recent.reversed().prefix { row in
            bytes += row.body.utf8.count
            return bytes <= limit.bytes
        }.prefix(limit.mail).count
        recent.removeFirst(recent.count - kept)
    }
}
#endif
