/// Counts the deliveries of one ``PostOffice/deliver(_:)-9cnzh`` that have not run yet, and collects the
/// failures of its recipients; resumes it when no delivery is left.
@usableFromInline
final class Receipt: Sendable {
    private struct State {
        var pending = 0
        var waiter: CheckedContinuation<Void, Never>?
        var failures: [(rank: UInt, failure: DeliveryFailure)] = []
    }

    private let state = Locked(State())

    @usableFromInline
    init() {}

    /// A delivery was deferred.
    func begin() {
        state.withLock { $0.pending += 1 }
    }

    /// A deferred delivery ran, or was dropped.
    func end() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.pending -= 1
            guard state.pending == 0 else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// The handler of the registration of `rank` threw.
    func record(_ failure: DeliveryFailure, rank: UInt) {
        state.withLock { $0.failures.append((rank, failure)) }
    }

    /// Returns once every deferred delivery ran or was dropped, with the failures of every delivery, in the order
    /// of their recipients' ranks.
    @usableFromInline
    func wait() async -> [DeliveryFailure] {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                guard state.pending > 0 else { return true }
                state.waiter = continuation
                return false
            }
            if done {
                continuation.resume()
            }
        }
        return state.withLock { $0.failures }.sorted { $0.rank < $1.rank }.map(\.failure)
    }
}
