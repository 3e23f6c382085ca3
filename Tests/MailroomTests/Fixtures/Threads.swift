// Running work on many threads at once, and telling threads and queues apart.

import Dispatch
import Foundation
import Testing

/// The calling thread's identity.
func currentThreadID() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}

/// A serial queue whose blocks can tell they run on it: `currentLabel` is its label only inside them.
final class MarkedQueue: Sendable {
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<String>()
    let label: String

    init(_ label: String) {
        self.label = label
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: label)
    }

    /// The label of the marked queue the caller runs on, or nil.
    var currentLabel: String? {
        DispatchQueue.getSpecific(key: key)
    }
}

/// Runs `body` for indices 0..<count with `DispatchQueue.concurrentPerform` and waits for all of them,
/// failing after a timeout. `body` must not use `#expect`: it runs outside the test's task.
func runConcurrently(
    _ count: Int,
    timeout: DispatchTimeInterval = .seconds(10),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable (Int) -> Void
) {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        DispatchQueue.concurrentPerform(iterations: count, execute: body)
        done.signal()
    }
    waitFor(done, "\(count) concurrent workers to finish", timeout: timeout, sourceLocation: sourceLocation)
}

/// Runs `body` on `count` threads of its own, all at once, and waits for them, failing after a timeout.
func runOnThreads(
    _ count: Int,
    timeout: DispatchTimeInterval = .seconds(10),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable (Int) -> Void
) {
    let finished = DispatchSemaphore(value: 0)
    for index in 0..<count {
        let thread = Thread {
            body(index)
            finished.signal()
        }
        thread.start()
    }
    for _ in 0..<count {
        guard waitFor(finished, "\(count) threads to finish", timeout: timeout, sourceLocation: sourceLocation) else {
            return
        }
    }
}

/// Runs `body` on a thread of the global queue and returns once it finished; records an issue after a timeout.
@discardableResult
func onBackgroundThread(
    _ what: String = "work on a background thread",
    timeout: Duration = concurrencyTimeout,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () -> Void
) async -> Bool {
    await finish(within: timeout, what, sourceLocation: sourceLocation) {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                body()
                continuation.resume()
            }
        }
    } != nil
}

/// Runs `body(index)` on `count` threads of their own, all at once, and returns once they all finished;
/// records an issue after a timeout.
@discardableResult
func onThreads(
    _ count: Int,
    timeout: Duration = concurrencyTimeout,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable (Int) -> Void
) async -> Bool {
    await finish(within: timeout, "\(count) posting threads to finish", sourceLocation: sourceLocation) {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for index in 0..<count {
                group.enter()
                Thread {
                    body(index)
                    group.leave()
                }.start()
            }
            group.notify(queue: .global()) { continuation.resume() }
        }
    } != nil
}

/// The posts of each thread, in the order a recipient received them: `n` encodes thread × 1_000_000 + index.
func postsByThread(_ received: some Collection<Int>, threads: Int) -> [[Int]] {
    (0..<threads).map { thread in received.filter { $0 / 1_000_000 == thread }.map { $0 % 1_000_000 } }
}

/// A reusable barrier for a fixed number of threads: each call returns when all of them have called it for the
/// same round. A wait that times out breaks the barrier, so that no thread stays stuck: every later call then
/// returns false at once.
final class ThreadBarrier: @unchecked Sendable {
    private let condition = NSCondition()
    private let parties: Int
    private var arrived = 0
    private var round = 0
    private var isBroken = false

    init(parties: Int) {
        self.parties = parties
    }

    /// Waits until every party has arrived; false if the barrier broke (a wait took longer than `timeout`).
    func arriveAndWait(timeout: TimeInterval = 30) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !isBroken else { return false }
        let myRound = round
        arrived += 1
        if arrived == parties {
            arrived = 0
            round += 1
            condition.broadcast()
            return true
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while round == myRound, !isBroken {
            if !condition.wait(until: deadline) {
                isBroken = true
                condition.broadcast()
            }
        }
        return !isBroken
    }

    var broke: Bool {
        condition.lock()
        defer { condition.unlock() }
        return isBroken
    }
}
