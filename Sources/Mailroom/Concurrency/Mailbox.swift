/// The mail waiting for one registration whose handler suspends (an async closure or an actor), delivered one
/// letter at a time, in the order the posts appended them, by a single task at a time.
@usableFromInline
final class Mailbox: Sendable {
    /// One posted mail, copied, with its sender and the receipt of the `deliver(_:)` that waits for it.
    struct Letter: Sendable {
        let mail: any Sendable
        let sender: SendableObject?
        let receipt: Receipt?
    }

    private struct State {
        var letters: [Letter] = []
        var next = 0
        var isDraining = false
    }

    let handler: Registration.AsyncHandler
    private let state = Locked(State())

    init(_ handler: @escaping Registration.AsyncHandler) {
        self.handler = handler
    }

    /// Adds a letter. Returns true when no task is draining the mailbox: the caller then starts one.
    func append(_ mail: any Sendable, from sender: SendableObject?, receipt: Receipt?) -> Bool {
        state.withLock { state in
            state.letters.append(Letter(mail: mail, sender: sender, receipt: receipt))
            defer { state.isDraining = true }
            return !state.isDraining
        }
    }

    /// The oldest letter, or `nil` when there is none left, in which case the draining task must end.
    func next() -> Letter? {
        state.withLock { state in
            guard state.next < state.letters.count else {
                state.letters.removeAll(keepingCapacity: true)
                state.next = 0
                state.isDraining = false
                return nil
            }
            let letter = state.letters[state.next]
            state.next += 1
            if state.next >= 64, state.next * 2 >= state.letters.count {
                state.letters.removeFirst(state.next)
                state.next = 0
            }
            return letter
        }
    }
}

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
