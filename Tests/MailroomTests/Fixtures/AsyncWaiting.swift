// Waits from async tests: always with a timeout, failing with a clear message instead of hanging.

import Dispatch
import Foundation
import Testing

/// How long a test waits for something that should happen at once, before it fails.
let concurrencyTimeout: Duration = .seconds(10)

/// A gate that async code waits on until the test opens it. Opening it again does nothing.
final class AsyncGate: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init() {}

    func open() {
        let waiting: [CheckedContinuation<Void, Never>] = lock.withLock {
            isOpen = true
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in waiting {
            waiter.resume()
        }
    }

    /// Suspends until the gate is opened (tests open it in a `defer`, so that nothing stays stuck).
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open: Bool = lock.withLock {
                if isOpen { return true }
                waiters.append(continuation)
                return false
            }
            if open {
                continuation.resume()
            }
        }
    }
}

/// Runs `body` in a task of its own and returns its result, or records an issue naming `what` and returns nil
/// if it threw, or (cancelling the task) if it has not finished after `timeout`.
@discardableResult
func finish<T: Sendable>(
    within timeout: Duration = concurrencyTimeout,
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async throws -> T
) async -> T? {
    let resumed = Shared(false)
    let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome<T>, Never>) in
        let resumeOnce: @Sendable (Outcome<T>) -> Void = { outcome in
            let first = resumed.update { resumed -> Bool in
                defer { resumed = true }
                return !resumed
            }
            if first {
                continuation.resume(returning: outcome)
            }
        }
        let work = Task { try await body() }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled {
                resumeOnce(.timedOut)
                work.cancel()
            }
        }
        Task {
            let result = await work.result
            timer.cancel()
            switch result {
            case .success(let value): resumeOnce(.finished(value))
            case .failure(let error): resumeOnce(.threw(error))
            }
        }
    }
    switch outcome {
    case .finished(let value):
        return value
    case .threw(let error):
        Issue.record("\(what) threw \(error)", sourceLocation: sourceLocation)
        return nil
    case .timedOut:
        Issue.record("Timed out after \(timeout) waiting for \(what)", sourceLocation: sourceLocation)
        return nil
    }
}

private enum Outcome<T: Sendable>: Sendable {
    case finished(T)
    case threw(any Error)
    case timedOut
}

/// Returns once every block submitted to the main queue before the call has run (a barrier); records an issue
/// after a timeout.
@discardableResult
func mainQueueDrained(sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
    await finish("the main queue to drain", sourceLocation: sourceLocation) {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async { continuation.resume() }
        }
    } != nil
}

/// Returns once every block submitted to the serial `queue` before the call has run; records an issue after
/// a timeout.
@discardableResult
func queueDrained(_ queue: DispatchQueue, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
    await finish("queue '\(queue.label)' to drain", sourceLocation: sourceLocation) {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    } != nil
}

/// Awaits `deliver` (or anything else that should return promptly) with a timeout.
@discardableResult
func returns(
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async throws -> Void
) async -> Bool {
    await finish(what, sourceLocation: sourceLocation, body) != nil
}

/// Suspends a few times, so that anything that could run concurrently with the caller gets the chance to.
func yieldSeveralTimes(_ times: Int = 5) async {
    for _ in 0..<times {
        await Task.yield()
    }
}

/// Waits until `condition` holds, checking it every millisecond; records an issue naming `what` and returns
/// false if it still does not hold after `timeout`.
@discardableResult
func eventually(
    _ what: String,
    within timeout: Duration = concurrencyTimeout,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("Timed out after \(timeout) waiting for \(what)", sourceLocation: sourceLocation)
            return false
        }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}
