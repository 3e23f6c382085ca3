/// The mail a ``MailSequence`` holds for its one loop: filled by posts, on any thread, and emptied by the loop.
///
/// An `AsyncStream` did this before, several times slower per element when the loop keeps up with the posts
/// (docs/performance.md). This buffer hands mail to a waiting loop directly, as the stream does; a loop that finds
/// mail buffered (the usual case once it wakes) returns it without suspending, and takes all of it at once, under
/// one lock, when nothing is dropped (`.unbounded`), or one letter at a time otherwise, so that the bounded
/// policies count exactly the mail the loop has not taken yet.
final class MailBuffer<Element: Sendable>: Sendable {
    /// What the buffer keeps while the loop is busy: `AsyncStream`'s policies, with the same meaning.
    typealias Policy = AsyncStream<Element>.Continuation.BufferingPolicy

    private struct State {
        /// Mail not taken yet, oldest first, from index `head` on.
        var letters: [Element] = []
        var head = 0
        /// The loop, when it waits for mail.
        var waiter: UnsafeContinuation<Element?, Never>?
        var isFinished = false
        /// Called once, when the buffer is finished.
        var onFinish: (@Sendable () -> Void)?

        var count: Int { letters.count - head }

        /// Takes the oldest letter.
        mutating func takeFirst() -> Element {
            let letter = letters[head]
            head += 1
            // Taken letters are dropped in batches, once they are half the array: not one shift per letter.
            if head >= 64, head * 2 >= letters.count {
                letters.removeFirst(head)
                head = 0
            }
            return letter
        }

        /// Takes every letter, oldest first.
        mutating func takeAll(into batch: inout [Element]) {
            if head == 0 {
                swap(&batch, &letters)
            } else {
                batch.append(contentsOf: letters[head...])
                letters.removeAll(keepingCapacity: true)
            }
            head = 0
        }
    }

    /// What the loop found in the buffer.
    private enum Taken {
        /// A letter: the oldest, or the first of those it took at once.
        case letter(Element)
        /// Nothing, and nothing will come: the buffer is finished.
        case ended
        /// Nothing yet: the loop waits.
        case nothing
    }

    private let policy: Policy
    private let state = Locked(State())

    init(policy: Policy) {
        self.policy = policy
    }

    /// Adds `letter` for the loop, or hands it to the loop if it waits; drops it as the policy says, or when the
    /// buffer is finished.
    func append(_ letter: Element) {
        let waiter = state.withLock { state -> UnsafeContinuation<Element?, Never>? in
            guard !state.isFinished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            switch policy {
            case .bufferingOldest(let limit):
                guard state.count < limit else { return nil }
            case .bufferingNewest(let limit):
                guard limit > 0 else { return nil }
                if state.count == limit {
                    _ = state.takeFirst()
                }
            case .unbounded:
                break
            @unknown default:
                break
            }
            state.letters.append(letter)
            return nil
        }
        waiter?.resume(returning: letter)
    }

    /// Ends the buffer: later mail is dropped, the loop takes what is buffered and then ends. Calls `onFinish`
    /// once, the first time.
    func finish() {
        let (waiter, onFinish) = state.withLock { state in
            guard !state.isFinished else {
                return (nil, nil) as (UnsafeContinuation<Element?, Never>?, (@Sendable () -> Void)?)
            }
            state.isFinished = true
            defer {
                state.waiter = nil
                state.onFinish = nil
            }
            return (state.waiter, state.onFinish)
        }
        waiter?.resume(returning: nil)
        onFinish?()
    }

    /// True while the loop waits for mail; for tests.
    var hasWaitingLoop: Bool {
        state.withLock { $0.waiter != nil }
    }

    /// Calls `body` once the buffer is finished: at once if it is already.
    func onFinish(_ body: @escaping @Sendable () -> Void) {
        let finished = state.withLock { state -> Bool in
            guard !state.isFinished else { return true }
            state.onFinish = body
            return false
        }
        if finished {
            body()
        }
    }

    /// The next letter, from `batch` if it holds any (the caller's, refilled here), otherwise from the buffer,
    /// waiting for one if it is empty; `nil` once the buffer is finished and empty. The cancellation of the
    /// calling task finishes the buffer. For the one loop only.
    func next(batch: inout [Element], index: inout Int) async -> Element? {
        if index < batch.count {
            defer { index += 1 }
            return batch[index]
        }
        batch.removeAll(keepingCapacity: true)
        index = 0
        // A cancelled loop takes what is buffered and ends, even while posts keep the buffer from running dry.
        if Task.isCancelled {
            finish()
        }
        let taken = state.withLock { state -> Taken in
            guard state.count > 0 else { return state.isFinished ? .ended : .nothing }
            guard case .unbounded = policy else { return .letter(state.takeFirst()) }
            state.takeAll(into: &batch)
            index = 1
            return .letter(batch[0])
        }
        switch taken {
        case .letter(let letter):
            return letter
        case .ended:
            return nil
        case .nothing:
            return await withTaskCancellationHandler {
                await withUnsafeContinuation { (waiter: UnsafeContinuation<Element?, Never>) in
                    let found = state.withLock { state -> Taken in
                        if state.count > 0 { return .letter(state.takeFirst()) }
                        if state.isFinished { return .ended }
                        state.waiter = waiter
                        return .nothing
                    }
                    switch found {
                    case .letter(let letter): waiter.resume(returning: letter)
                    case .ended: waiter.resume(returning: nil)
                    case .nothing: break
                    }
                }
            } onCancel: {
                finish()
            }
        }
    }
}
