// The vocabulary of the randomized stress test: numbered mail of every shape, senders that carry a serial
// number, which posts handlers throw on or consume, its seed, a clock that orders the events of every thread,
// and per-thread context for worker threads.

import Foundation
import Mailroom

// MARK: - Numbered mail

/// The kinds of mail of the stress test. `urgentMemo` is a subclass of `memo`.
enum StressMailKind: Int, CaseIterable, Sendable {
    case ping
    case pong
    case memo
    case urgentMemo

    /// Whether mail posted as `self` reaches a registration for `registered`.
    func reaches(_ registered: StressMailKind) -> Bool {
        self == registered || (self == .urgentMemo && registered == .memo)
    }

    /// The kinds of posted mail that reach a registration for `self`.
    var reachedBy: [StressMailKind] {
        Self.allCases.filter { $0.reaches(self) }
    }
}

/// Mail that carries a number (the stress test's post number) and knows its kind.
protocol StressMail: Mail {
    init(n: Int)
    var n: Int { get }
    static var stressKind: StressMailKind { get }
}

extension Ping: StressMail {
    static var stressKind: StressMailKind { .ping }
}

extension Pong: StressMail {
    static var stressKind: StressMailKind { .pong }
}

/// Class mail with a subclass, carrying a number.
class StressMemo: StressMail, @unchecked Sendable {
    let n: Int

    required init(n: Int) {
        self.n = n
    }

    class var stressKind: StressMailKind { .memo }
}

final class StressUrgentMemo: StressMemo, @unchecked Sendable {
    override class var stressKind: StressMailKind { .urgentMemo }
}

/// Calls `body` with the mail type of `kind`.
func withStressMailType<Result>(_ kind: StressMailKind, _ body: (any StressMail.Type) -> Result) -> Result {
    switch kind {
    case .ping: body(Ping.self)
    case .pong: body(Pong.self)
    case .memo: body(StressMemo.self)
    case .urgentMemo: body(StressUrgentMemo.self)
    }
}

// MARK: - Senders

/// The sender classes of the stress test: `Phone` is a subclass of `Device`; `Stranger` is unrelated.
enum StressSenderKind: Int, CaseIterable, Sendable {
    case device
    case phone
    case stranger

    /// Whether a sender of class `self` is admitted by a `(M, S)` or `(M, S?)` handler whose `S` is `filter`.
    func isAdmitted(by filter: StressSenderKind) -> Bool {
        self == filter || (self == .phone && filter == .device)
    }
}

/// A sender whose name is its serial number.
protocol StressSender: AnyObject, Sendable {
    var name: String { get }
}

extension StressSender {
    var stressSerial: Int { Int(name) ?? -99 }
}

extension Device: StressSender {}
extension Stranger: StressSender {}

/// A sender of one of the three classes, held strongly.
enum StressSenderObject: Sendable {
    case device(Device)
    case phone(Phone)
    case stranger(Stranger)

    init(kind: StressSenderKind, serial: Int) {
        switch kind {
        case .device: self = .device(Device("\(serial)"))
        case .phone: self = .phone(Phone("\(serial)"))
        case .stranger: self = .stranger(Stranger("\(serial)"))
        }
    }

    var kind: StressSenderKind {
        switch self {
        case .device: .device
        case .phone: .phone
        case .stranger: .stranger
        }
    }

    var stressSerial: Int {
        switch self {
        case .device(let device): device.stressSerial
        case .phone(let phone): phone.stressSerial
        case .stranger(let stranger): stranger.stressSerial
        }
    }
}

// MARK: - Failures and consumption

/// Which posts a handler throws on or consumes, by post number: one that does not know the post it handles (a
/// queued handler that is not passed the mail) is given `never` or `always` only.
enum StressTrigger: Sendable, CustomStringConvertible {
    case never
    case always
    case oddPosts

    func fires(on post: Int) -> Bool {
        switch self {
        case .never: false
        case .always: true
        case .oddPosts: post % 2 == 1
        }
    }

    var description: String {
        switch self {
        case .never: "no post"
        case .always: "every post"
        case .oddPosts: "odd posts"
        }
    }
}

/// What the stress test's handlers throw: the serial of the registration and the number of the post.
struct StressFailure: Error {
    let serial: Int
    let post: Int
}

/// One step of a post, as its posting thread saw it: a synchronous delivery, or a report of a failure
/// delivered in the `DeliveryFailure` post nested in it.
enum StressStep: Sendable {
    /// The registration `serial` was called; it then threw, consumed the mail, or neither.
    case delivered(serial: Int, threw: Bool, consumed: Bool)
    /// The recipient of `DeliveryFailure` `by` (`-1`: the shared office's auditor) got the report of the
    /// failure of `thrower` on the post.
    case report(by: Int, thrower: Int)
}

// MARK: - Randomness

/// The seed of the randomized reliability tests: `MAILROOM_STRESS_SEED` or a fixed default.
let stressSeed: UInt64 = UInt64(ProcessInfo.processInfo.environment["MAILROOM_STRESS_SEED"] ?? "") ?? 0x5EED_2026

// MARK: - Ordering events across threads

/// A counter that orders events of all threads, and a log of method calls and deinits of recipients, both under
/// one lock: a call logged after a recipient's deinit was logged began after that deinit began.
final class StressClock: @unchecked Sendable {
    struct Event {
        let probe: Int
        let isDeinit: Bool
        let time: Int
    }

    private let lock = NSLock()
    private var now = 0
    private var events: [Event] = []

    /// The next time: later than every time handed out before this call began.
    func tick() -> Int {
        lock.withLock {
            now += 1
            return now
        }
    }

    func logCall(of probe: Int) {
        lock.withLock {
            now += 1
            events.append(Event(probe: probe, isDeinit: false, time: now))
        }
    }

    func logDeinit(of probe: Int) {
        lock.withLock {
            now += 1
            events.append(Event(probe: probe, isDeinit: true, time: now))
        }
    }

    var log: [Event] {
        lock.withLock { events }
    }
}

// MARK: - Worker threads

/// What a worker thread of a randomized test knows about itself, reachable from handlers that run on it.
///
/// Only its own thread reads or writes it.
final class StressWorker {
    let index: Int
    /// The number of the post this thread is making, or -1.
    var currentPost = -1
    /// What the post this thread is making did so far, in order.
    var steps: [StressStep] = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0)
        return key
    }()

    init(index: Int) {
        self.index = index
    }

    /// The worker running the calling thread, or nil on any other thread.
    static var current: StressWorker? {
        pthread_getspecific(key).map { Unmanaged<StressWorker>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `body` with this worker attached to the calling thread.
    func run(_ body: () -> Void) {
        precondition(pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque()) == 0)
        defer { pthread_setspecific(Self.key, nil) }
        withExtendedLifetime(self) { body() }
    }
}
