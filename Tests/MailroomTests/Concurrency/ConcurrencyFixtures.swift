// Fixtures for the tests of Mailroom's Swift-concurrency features: evidence of running on the main actor,
// a recorder that async tests can wait on, a gate that async handlers wait on, a main-actor view model, an
// actor store, and async helpers that wait with a timeout (failing with a clear message instead of hanging).

import Dispatch
import Foundation
import Mailroom
import Testing

/// How long a test waits for something that should happen at once, before it fails.
let concurrencyTimeout: Duration = .seconds(10)

// MARK: - Main-actor evidence

/// A key whose value is set on the main queue only. On Linux the main actor executes on the main queue (on
/// whatever thread drains it), so a block that reads the key there runs on the main actor.
let mainQueueMarker: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// True when the caller runs on the main queue, that is on the main actor.
func isOnMainQueue() -> Bool {
    DispatchQueue.getSpecific(key: mainQueueMarker) == true
}

/// Called from a handler that claims to run on the main actor: it compiles only in a main-actor context, and
/// tells whether the main queue is really the one running.
@MainActor
func mainActorEvidence() -> Bool {
    isOnMainQueue()
}

// MARK: - Recording and waiting

/// Records events from any thread, in the order they happen; async tests wait for a count with a timeout.
final class Tape<Event: Sendable>: @unchecked Sendable {
    private struct Waiter {
        let id: Int
        let count: Int
        let continuation: CheckedContinuation<Bool, Never>
    }

    private let lock = NSLock()
    private var storage: [Event] = []
    private var waiters: [Waiter] = []
    private var lastWaiterId = 0
    private var expired: Set<Int> = []

    init() {}

    func record(_ event: Event) {
        let ready: [Waiter] = lock.withLock {
            storage.append(event)
            let count = storage.count
            let ready = waiters.filter { $0.count <= count }
            waiters.removeAll { $0.count <= count }
            return ready
        }
        for waiter in ready {
            waiter.continuation.resume(returning: true)
        }
    }

    var events: [Event] {
        lock.withLock { storage }
    }

    var count: Int {
        lock.withLock { storage.count }
    }

    /// Waits until at least `count` events have been recorded; records an issue naming `what` and returns
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
                waiters.append(Waiter(id: id, count: count, continuation: continuation))
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
        let waiter: Waiter? = lock.withLock {
            guard let index = waiters.firstIndex(where: { $0.id == id }) else {
                expired.insert(id)
                return nil
            }
            return waiters.remove(at: index)
        }
        waiter?.continuation.resume(returning: false)
    }
}

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
/// (cancelling the task) if it has not finished after `timeout`.
@discardableResult
func finish<T: Sendable>(
    within timeout: Duration = concurrencyTimeout,
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async -> T
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
        let work = Task { await body() }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled {
                resumeOnce(.timedOut)
                work.cancel()
            }
        }
        Task {
            let value = await work.value
            timer.cancel()
            resumeOnce(.finished(value))
        }
    }
    guard case .finished(let value) = outcome else {
        Issue.record("Timed out after \(timeout) waiting for \(what)", sourceLocation: sourceLocation)
        return nil
    }
    return value
}

private enum Outcome<T: Sendable>: Sendable {
    case finished(T)
    case timedOut
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
    _ body: @escaping @Sendable () async -> Void
) async -> Bool {
    await finish(what, sourceLocation: sourceLocation, body) != nil
}

/// Blocks the serial `queue` until the returned gate is opened; tests open it in a `defer` too. Unlike the
/// shared `block(_:)`, it holds the queue for up to a minute, so that a loaded machine cannot let the queue go
/// before the test opens it.
func hold(_ queue: DispatchQueue) -> QueueGate {
    let gate = QueueGate()
    queue.async { _ = gate.semaphore.wait(timeout: .now() + .seconds(60)) }
    return gate
}

/// What `hold(_:)` returns: opening it lets the queue go on.
final class QueueGate: Sendable {
    fileprivate let semaphore = DispatchSemaphore(value: 0)

    func open() {
        semaphore.signal()
    }
}

/// Suspends a few times, so that anything that could run concurrently with the caller gets the chance to.
func yieldSeveralTimes(_ times: Int = 5) async {
    for _ in 0..<times {
        await Task.yield()
    }
}

/// The posts of each thread, in the order a recipient received them: `n` encodes thread × 1_000_000 + index.
func receivedPerThread(_ received: some Collection<Int>, threads: Int) -> [[Int]] {
    (0..<threads).map { thread in received.filter { $0 / 1_000_000 == thread }.map { $0 % 1_000_000 } }
}

// MARK: - Recipients

/// A view model isolated to the main actor, registered by its methods. It records what it receives, with
/// whether it ran on the main queue, on a tape that outlives it.
@MainActor
final class PingViewModel {
    let tape: Tape<String>
    private let onDeinit: Token

    init(tape: Tape<String>, onDeinit: @escaping @Sendable () -> Void = {}) {
        self.tape = tape
        self.onDeinit = Token(onDeinit: onDeinit)
    }

    func receive(_ ping: Ping) {
        tape.record("ping \(ping.n)\(mainActorEvidence() ? "" : " OFF MAIN")")
    }

    func receiveFromDevice(_ ping: Ping, _ device: Device) {
        tape.record("ping \(ping.n) from \(device.name)\(mainActorEvidence() ? "" : " OFF MAIN")")
    }

    func receiveFromOptionalDevice(_ ping: Ping, _ device: Device?) {
        tape.record("ping \(ping.n) from \(device?.name ?? "nil")\(mainActorEvidence() ? "" : " OFF MAIN")")
    }

    func reload() {
        tape.record("reload\(mainActorEvidence() ? "" : " OFF MAIN")")
    }
}

/// A store: an actor that receives mail on itself. `applied` is actor state, that registered closures mutate
/// without `await`.
actor PingStore {
    var applied: [Int] = []
    let tape: Tape<String>
    private let gate: AsyncGate?
    private let onDeinit: Token

    init(tape: Tape<String>, gate: AsyncGate? = nil, onDeinit: @escaping @Sendable () -> Void = {}) {
        self.tape = tape
        self.gate = gate
        self.onDeinit = Token(onDeinit: onDeinit)
    }

    /// Synchronous and isolated: registered through a closure that receives the actor as its isolated parameter.
    func apply(_ ping: Ping) {
        applied.append(ping.n)
        tape.record("apply \(ping.n)")
    }

    /// Asynchronous: it suspends between its start and its end; mail 0 waits for the gate, if there is one.
    func record(_ ping: Ping) async {
        tape.record("start \(ping.n)")
        if ping.n == 0, let gate {
            await gate.wait()
        }
        await yieldSeveralTimes()
        applied.append(ping.n)
        tape.record("end \(ping.n)")
    }
}

/// The events a one-at-a-time recipient records for mails `numbers`: start and end of each, in turn.
func startsAndEnds(_ numbers: some Sequence<Int>) -> [String] {
    numbers.flatMap { ["start \($0)", "end \($0)"] }
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
