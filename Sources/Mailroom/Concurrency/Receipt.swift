/// Counts the deliveries of one ``PostOffice/deliver(_:)`` that have not run yet, and resumes it when none is
/// left.
@usableFromInline
final class Receipt: Sendable {
    private struct State {
        var pending = 0
        var waiter: CheckedContinuation<Void, Never>?
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

    /// Returns once every deferred delivery ran or was dropped.
    @usableFromInline
    func wait() async {
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
    }
}
