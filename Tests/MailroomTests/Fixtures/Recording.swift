// Thread-safe records of what happened: a lock-guarded value and recorders that tests can wait on.

import Dispatch
import Foundation
import Testing

/// A value guarded by a lock, shareable between threads.
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Changes the value under the lock and returns what `body` returns.
    @discardableResult
    func update<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&stored) }
    }
}

/// Records events from any thread, in the order they happen. A synchronous test waits for a count by blocking,
/// an async test by suspending; both with a timeout.
final class Recorder<Event: Sendable>: @unchecked Sendable {
    private struct SuspendedWaiter {
        let id: Int
        let count: Int
        let continuation: CheckedContinuation<Bool, Never>
    }

    private let lock = NSLock()
    private var storage: [Event] = []
    private var waiters: [(count: Int, semaphore: DispatchSemaphore)] = []
    private var suspendedWaiters: [SuspendedWaiter] = []
    private var lastWaiterId = 0
    private var expired: Set<Int> = []

    init() {}

    func record(_ event: Event) {
        let (ready, readySuspended): ([DispatchSemaphore], [SuspendedWaiter]) = lock.withLock {
            storage.append(event)
            let count = storage.count
            let ready = waiters.filter { $0.count <= count }.map(\.semaphore)
            waiters.removeAll { $0.count <= count }
            let readySuspended = suspendedWaiters.filter { $0.count <= count }
            suspendedWaiters.removeAll { $0.count <= count }
            return (ready, readySuspended)
        }
        for semaphore in ready {
            semaphore.signal()
        }
        for waiter in readySuspended {
            waiter.continuation.resume(returning: true)
        }
    }

    var events: [Event] {
        lock.withLock { storage }
    }

    var count: Int {
        lock.withLock { storage.count }
    }

    func removeAll() {
        lock.withLock { storage.removeAll() }
    }

    /// Blocks until at least `count` events have been recorded; records an issue and returns false after
    /// `timeout` otherwise.
    @discardableResult
    func waitForCount(
        _ count: Int,
        timeout: DispatchTimeInterval = defaultTimeout,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let alreadyThere: Bool = lock.withLock {
            if storage.count >= count { return true }
            waiters.append((count, semaphore))
            return false
        }
        if alreadyThere { return true }
        return waitFor(
            semaphore, "\(count) recorded events (have \(self.count))", timeout: timeout,
            sourceLocation: sourceLocation)
    }

    /// Suspends until at least `count` events have been recorded; records an issue naming `what` and returns
    /// false after `timeout` otherwise.
    @discardableResult
    func waitForCount(
        _ count: Int,
        _ what: String = "events",
        timeout: Duration = concurrencyTimeout,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Bool {
        let id: Int = lock.withLock {
            lastWaiterId += 1
            return lastWaiterId
        }
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled {
                expire(id)
            }
        }
        let reached = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer: Bool? = lock.withLock {
                if storage.count >= count { return true }
                if expired.remove(id) != nil { return false }
                suspendedWaiters.append(SuspendedWaiter(id: id, count: count, continuation: continuation))
                return nil
            }
            if let answer {
                continuation.resume(returning: answer)
            }
        }
        timer.cancel()
        if !reached {
            Issue.record(
                "Timed out after \(timeout) waiting for \(count) \(what) (have \(self.count))",
                sourceLocation: sourceLocation)
        }
        return reached
    }

    private func expire(_ id: Int) {
        let waiter: SuspendedWaiter? = lock.withLock {
            guard let index = suspendedWaiters.firstIndex(where: { $0.id == id }) else {
                expired.insert(id)
                return nil
            }
            return suspendedWaiters.remove(at: index)
        }
        waiter?.continuation.resume(returning: false)
    }
}

typealias Log = Recorder<String>
