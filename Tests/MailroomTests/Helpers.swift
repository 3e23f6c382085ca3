// Shared fixtures for the Mailroom tests: mail types, senders, recipients, a thread-safe recorder and
// helpers that wait (always with a timeout, failing with a clear message instead of hanging).

import Dispatch
import Foundation
import Mailroom
import Testing

// MARK: - Mail

struct Ping: Mail, Equatable {
    let n: Int
}

struct Pong: Mail, Equatable {
    let n: Int
}

/// Mail whose contents nobody reads, for the no-argument registration forms.
struct Chime: Mail {}

/// Mail used only by the scale tests, so that their registrations are of types no recipient under test uses.
struct Noise: Mail {
    let n: Int
}

enum Traffic: Mail, Equatable {
    case green
    case amber(seconds: Int)
    case red(reason: String)
}

/// A three-level class hierarchy of mail: `Crate` is a `Parcel`, which is a `Letter`.
class Letter: Mail, @unchecked Sendable {
    let tag: String

    init(_ tag: String) {
        self.tag = tag
    }
}

class Parcel: Letter, @unchecked Sendable {}

final class Crate: Parcel, @unchecked Sendable {}

/// Same-named mail types in different scopes.
enum ScopeA {
    struct Ping: Mail {}
}

enum ScopeB {
    struct Ping: Mail {}
}

/// A generic mail type: `Envelope<Int>` and `Envelope<String>` are different mail types.
struct Envelope<Content: Sendable>: Mail {
    let content: Content
}

// MARK: - Senders

/// A sender class with a subclass, `Phone`.
class Device: @unchecked Sendable {
    let name: String

    init(_ name: String) {
        self.name = name
    }
}

final class Phone: Device, @unchecked Sendable {}

/// A sender class unrelated to `Device`.
final class Stranger: Sendable {
    let name: String

    init(_ name: String) {
        self.name = name
    }
}

// MARK: - Recording

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

/// Records events from any thread, in the order they happen.
final class Recorder<Event: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Event] = []
    private var waiters: [(count: Int, semaphore: DispatchSemaphore)] = []

    init() {}

    func record(_ event: Event) {
        let ready: [DispatchSemaphore] = lock.withLock {
            storage.append(event)
            let count = storage.count
            let ready = waiters.filter { $0.count <= count }.map(\.semaphore)
            waiters.removeAll { $0.count <= count }
            return ready
        }
        for semaphore in ready {
            semaphore.signal()
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

    /// Waits until at least `count` events have been recorded; records an issue and returns false after
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
}

typealias Log = Recorder<String>

// MARK: - Recipients

/// A recipient whose methods record what they receive, prefixed by its name.
final class Screen: Sendable {
    let name: String
    let log: Log

    init(_ name: String, log: Log) {
        self.name = name
        self.log = log
    }

    func receivePing(_ ping: Ping) {
        log.record("\(name) \(ping.n)")
    }

    func receivePingFromDevice(_ ping: Ping, _ device: Device) {
        log.record("\(name) \(ping.n) from \(device.name)")
    }

    func receivePingFromPhone(_ ping: Ping, _ phone: Phone) {
        log.record("\(name) \(ping.n) from \(phone.name)")
    }

    func receivePingFromOptionalDevice(_ ping: Ping, _ device: Device?) {
        log.record("\(name) \(ping.n) from \(device?.name ?? "nil")")
    }

    func receivePong(_ pong: Pong) {
        log.record("\(name) pong \(pong.n)")
    }

    func refresh() {
        log.record("\(name) refresh")
    }

    func receiveLetter(_ letter: Letter) {
        log.record("\(name) letter \(letter.tag)")
    }

    func receiveParcel(_ parcel: Parcel) {
        log.record("\(name) parcel \(parcel.tag)")
    }

    func receiveCrate(_ crate: Crate) {
        log.record("\(name) crate \(crate.tag)")
    }

    func receiveCrateFromDevice(_ crate: Crate, _ device: Device) {
        log.record("\(name) crate \(crate.tag) from \(device.name)")
    }

    func receiveParcelFromOptionalDevice(_ parcel: Parcel, _ device: Device?) {
        log.record("\(name) parcel \(parcel.tag) from \(device?.name ?? "nil")")
    }
}

/// An object that runs `onDeinit` when it deallocates, to observe when the office releases it.
final class Token: Sendable {
    private let onDeinit: @Sendable () -> Void

    init(onDeinit: @escaping @Sendable () -> Void = {}) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit()
    }
}

/// The calling thread's identity.
func currentThreadID() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}

// MARK: - Sizes

/// How much bigger than the default the stress and randomized tests run: `MAILROOM_STRESS_SCALE=10 swift test`
/// makes them do ten times the work. The default (1) keeps the whole suite within seconds.
let stressScale = max(1, Int(ProcessInfo.processInfo.environment["MAILROOM_STRESS_SCALE"] ?? "") ?? 1)

// MARK: - Waiting

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

/// The posts of each thread, in the order a recipient received them: `n` encodes thread × 100_000 + index.
func postsByThread(_ received: [Int], threads: Int) -> [[Int]] {
    (0..<threads).map { thread in received.filter { $0 / 100_000 == thread }.map { $0 % 100_000 } }
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

/// A recipient that records the number carried by each `Ping` it receives.
final class Tally: Sendable {
    let received = Recorder<Int>()

    init() {}

    func receive(_ ping: Ping) {
        received.record(ping.n)
    }
}

/// A recipient that records, in one shared log, each call of its method and the start of its deinit.
final class Mortal: Sendable {
    private let log: Log
    private let calls = Shared(0)
    private let callsBeforeSignal: Int
    private let enoughCalls: DispatchSemaphore

    /// `enoughCalls` is signalled once the method has been called `callsBeforeSignal` times.
    init(log: Log, callsBeforeSignal: Int, enoughCalls: DispatchSemaphore) {
        self.log = log
        self.callsBeforeSignal = callsBeforeSignal
        self.enoughCalls = enoughCalls
    }

    func receive(_ ping: Ping) {
        log.record("call")
        let count = calls.update { calls -> Int in
            calls += 1
            return calls
        }
        if count == callsBeforeSignal {
            enoughCalls.signal()
        }
    }

    deinit {
        log.record("deinit")
    }
}
