// Fixtures for the tests of protocol and catch-all recipients, verified and sticky mail, one-shot and owner-tied
// registrations, undelivered mail, introspection and the MailroomTesting recorder.

import Dispatch
import Foundation
import Mailroom
import Testing

// MARK: - Protocol mail

/// A protocol refining `Mail`: several structs, an enum and a subclass conform to it.
protocol Alert: Mail {
    var message: String { get }
}

/// A protocol refining `Mail` that no mail type conforms to.
protocol Beacon: Mail {}

struct DiskFull: Alert, Equatable {
    let percent: Int

    var message: String { "disk \(percent)%" }
}

struct BatteryLow: Alert, Equatable {
    let level: Int

    var message: String { "battery \(level)%" }
}

enum Siren: Alert, Equatable {
    case fire
    case flood(level: Int)

    var message: String {
        switch self {
        case .fire: "siren fire"
        case .flood(let level): "siren flood \(level)"
        }
    }
}

/// Class mail that does not conform to `Alert`; its subclass `UrgentNotice` adds the conformance, which
/// `SevereNotice` inherits.
class Notice: Mail, @unchecked Sendable {
    let text: String

    init(_ text: String) {
        self.text = text
    }
}

class UrgentNotice: Notice, Alert, @unchecked Sendable {
    var message: String { "\(type(of: self)) \(text)" }
}

final class SevereNotice: UrgentNotice, @unchecked Sendable {}

/// The name of a mail's dynamic type, for catch-all recipients' logs.
func typeName(_ mail: any Mail) -> String {
    String(describing: type(of: mail))
}

/// The name of a sender of the fixture classes, or "nil".
func senderName(_ sender: (any AnyObject & Sendable)?) -> String {
    switch sender {
    case nil: "nil"
    case let device as Device: device.name
    case let stranger as Stranger: stranger.name
    case let flow as CheckoutFlow: flow.name
    case let some?: "\(type(of: some))"
    }
}

// MARK: - Verified and sticky mail

/// The class whose instances post `CheckoutFinished`, with a subclass.
class CheckoutFlow: @unchecked Sendable {
    let name: String

    init(_ name: String) {
        self.name = name
    }
}

final class ExpressCheckout: CheckoutFlow, @unchecked Sendable {}

struct CheckoutFinished: VerifiedMail, Equatable {
    typealias RequiredSender = CheckoutFlow
    let orderNumber: Int
}

/// Mail every post of which is sticky.
struct SessionState: StickyMail, Equatable {
    let user: String
}

// MARK: - Recipients

/// A recipient whose method records the alerts and pings it receives, prefixed by its name.
final class Widget: Sendable {
    let name: String
    let log: Log

    init(_ name: String, log: Log) {
        self.name = name
        self.log = log
    }

    func render(_ ping: Ping) {
        log.record("\(name) \(ping.n)")
    }
}

// MARK: - Threads

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
