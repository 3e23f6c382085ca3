import Foundation

/// The recorder's entries and the waits in progress, behind a lock.
final class RecorderState: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [MailRecorder.Entry] = []
    private var taken = 0
    private var waiters: [Waiter] = []

    var entries: [MailRecorder.Entry] {
        lock.withLock { recorded }
    }

    var untaken: [MailRecorder.Entry] {
        lock.withLock { Array(recorded[taken...]) }
    }

    func append(_ entry: MailRecorder.Entry) {
        let waiters = lock.withLock {
            recorded.append(entry)
            defer { self.waiters = [] }
            return self.waiters
        }
        for waiter in waiters {
            waiter.resume()
        }
    }

    func removeAll() {
        lock.withLock {
            recorded = []
            taken = 0
        }
    }

    /// The next `count` entries not taken yet, now taken; `nil` if fewer were recorded.
    func take(_ count: Int) -> [MailRecorder.Entry]? {
        lock.withLock {
            guard recorded.count - taken >= count else { return nil }
            defer { taken += count }
            return Array(recorded[taken..<taken + count])
        }
    }

    /// Returns when `count` entries not taken yet are there (at once if they already are), when another entry
    /// is recorded, or at `deadline`, whichever comes first.
    func waitForEntries(_ count: Int, until deadline: ContinuousClock.Instant, clock: ContinuousClock) async {
        let waiter = Waiter()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            waiter.start(continuation, until: deadline, clock: clock)
            let ready = lock.withLock {
                guard recorded.count - taken < count else { return true }
                waiters.append(waiter)
                return false
            }
            if ready {
                waiter.resume()
            }
        }
    }
}

/// One wait: resumed once, by a recorded entry or by its deadline, whichever comes first.
private final class Waiter: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?
    private var timer: Task<Void, Never>?

    func start(
        _ continuation: CheckedContinuation<Void, Never>, until deadline: ContinuousClock.Instant,
        clock: ContinuousClock
    ) {
        lock.withLock { self.continuation = continuation }
        let timer = Task { [self] in
            try? await clock.sleep(until: deadline)
            resume()
        }
        let alreadyResumed = lock.withLock {
            guard self.continuation != nil else { return true }
            self.timer = timer
            return false
        }
        if alreadyResumed {
            timer.cancel()
        }
    }

    func resume() {
        let (continuation, timer) = lock.withLock {
            defer {
                self.continuation = nil
                self.timer = nil
            }
            return (self.continuation, self.timer)
        }
        timer?.cancel()
        continuation?.resume()
    }
}
