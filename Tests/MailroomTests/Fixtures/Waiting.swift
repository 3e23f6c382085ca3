// Waits from synchronous tests: always with a timeout, failing with a clear message instead of hanging.

import Dispatch
import Testing

let defaultTimeout: DispatchTimeInterval = .seconds(5)

/// Waits for `semaphore`; records an issue naming `what` and returns false after `timeout`.
@discardableResult
func waitFor(
    _ semaphore: DispatchSemaphore,
    _ what: String,
    timeout: DispatchTimeInterval = defaultTimeout,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    if semaphore.wait(timeout: .now() + timeout) == .success { return true }
    Issue.record("Timed out waiting for \(what)", sourceLocation: sourceLocation)
    return false
}

/// Waits until every block already submitted to the serial `queue` has run (a barrier with a timeout).
@discardableResult
func drain(_ queue: DispatchQueue, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
    let done = DispatchSemaphore(value: 0)
    queue.async { done.signal() }
    return waitFor(done, "queue '\(queue.label)' to drain", sourceLocation: sourceLocation)
}

/// Blocks the serial `queue` until the returned gate is opened (or, so that a failing test never leaves a
/// thread stuck, for at most a minute: long enough that a test starved of CPU under a sanitizer still opens the
/// gate itself).
func block(_ queue: DispatchQueue) -> Gate {
    let gate = Gate()
    queue.async { _ = gate.semaphore.wait(timeout: .now() + .seconds(60)) }
    return gate
}

final class Gate: Sendable {
    fileprivate let semaphore = DispatchSemaphore(value: 0)

    func open() {
        semaphore.signal()
    }

    /// Waits until the gate is opened, or for at most the default timeout.
    func wait() {
        _ = semaphore.wait(timeout: .now() + defaultTimeout)
    }
}
