import Foundation
import Mailroom
import MailroomFoundation
import Testing

// MARK: - Fixtures

/// Mail forwarded under its default name, "MailroomFoundationTests.CartChanged".
private struct CartChanged: NotificationMail, Equatable, Decodable {
    let itemCount: Int
    let total: Double
    let coupon: String?
}

/// Mail forwarded under a name observers already use.
private struct ThemeChanged: NotificationMail {
    let dark: Bool
    var notificationName: Notification.Name { Notification.Name("LegacyThemeDidChange") }
}

/// Mail that never encodes, under a name of its own.
private struct Unencodable: NotificationMail {
    var notificationName: Notification.Name { Notification.Name("LegacyUnencodable") }

    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            self, EncodingError.Context(codingPath: [], debugDescription: "not today"))
    }
}

private final class Cart: Sendable {}

/// The login events of the example: an owner and its enum of events.
final class LoginManager: Sendable {
    enum Event: NotificationEvents, Equatable, Decodable {
        typealias RequiredSender = LoginManager
        case succeeded(user: String)
        case failed(LoginError)
        case loggedOut
    }

    enum LoginError: String, Error, Codable, Equatable {
        case wrongPassword
        case offline
    }
}

/// Records the notifications a center posts under some names: name, object and userInfo.
private final class NotificationLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [Notification] = []
    private var observers: [any NSObjectProtocol] = []
    private let center: NotificationCenter

    init(_ center: NotificationCenter, names: [Notification.Name]) {
        self.center = center
        for name in names {
            observers.append(
                center.addObserver(forName: name, object: nil, queue: nil) { [weak self] note in
                    self?.lock.withLock { self?.entries.append(note) }
                })
        }
    }

    deinit {
        observers.forEach(center.removeObserver)
    }

    var notifications: [Notification] { lock.withLock { entries } }
}

// MARK: - Outgoing

@Suite("Bridge out: typed mail also posted to a NotificationCenter")
struct ForwardTests {
    @Test(
        "Forwarded mail is posted under its module-qualified type name, with its sender as object and encoded userInfo")
    func forwardsWithDefaultName() {
        let center = NotificationCenter()
        let office = PostOffice()
        let name = Notification.Name("MailroomFoundationTests.CartChanged")
        let log = NotificationLog(center, names: [name])
        let cart = Cart()
        let forward = office.forward(CartChanged.self, to: center)

        office.post(CartChanged(itemCount: 2, total: 9.5, coupon: "SPRING"), sender: cart)
        office.post(CartChanged(itemCount: 0, total: 0, coupon: nil))

        let notes = log.notifications
        #expect(notes.count == 2)
        #expect(notes.map(\.name) == [name, name])
        #expect(notes.first?.object as? Cart === cart)
        #expect(notes.last?.object == nil)
        #expect(notes.first?.userInfo?["itemCount"] as? Int == 2)
        #expect(notes.first?.userInfo?["total"] as? Double == 9.5)
        #expect(notes.first?.userInfo?["coupon"] as? String == "SPRING")
        #expect(notes.last?.userInfo?.keys.contains("coupon") == false)
        #expect(forward.failureCount == 0)
    }

    @Test("A mail type can keep the name its observers already use")
    func explicitName() {
        let center = NotificationCenter()
        let office = PostOffice()
        let log = NotificationLog(center, names: [Notification.Name("LegacyThemeDidChange")])
        let forward = office.forward(ThemeChanged.self, to: center)

        office.post(ThemeChanged(dark: true))

        #expect(log.notifications.map { $0.userInfo?["dark"] as? Bool } == [true])
        withExtendedLifetime(forward) {}
    }

    @Test("Mail that does not encode is not forwarded; its EncodingError, under the name it has, goes to onFailure")
    func encodingFailures() {
        let center = NotificationCenter()
        let office = PostOffice()
        let log = NotificationLog(center, names: [Notification.Name("LegacyUnencodable")])
        let failures = Locked<[String]>([])
        let forward = office.forward(Unencodable.self, to: center) { failure in failures.append(failure.description) }

        office.post(Unencodable())

        #expect(log.notifications.isEmpty)
        #expect(forward.failureCount == 1)
        #expect(
            failures.current == [
                "LegacyUnencodable <-> MailroomFoundationTests.Unencodable: at the top level: not today"
            ])
    }

    @Test("A forward stops when cancelled or released")
    func forwardsStop() {
        let center = NotificationCenter()
        let office = PostOffice()
        let log = NotificationLog(center, names: [Notification.Name("LegacyThemeDidChange")])
        let cancelled = office.forward(ThemeChanged.self, to: center)
        office.post(ThemeChanged(dark: true))
        cancelled.cancel()
        office.post(ThemeChanged(dark: false))
        do {
            let released = office.forward(ThemeChanged.self, to: center)
            office.post(ThemeChanged(dark: true))
            withExtendedLifetime(released) {}
        }
        office.post(ThemeChanged(dark: false))

        #expect(log.notifications.count == 2)
        #expect(office.registrationCount == 0)
    }

    @Test("Each event of a NotificationEvents enum is forwarded as Module.Owner.case, with the owner as object")
    func eventNames() {
        let center = NotificationCenter()
        let office = PostOffice()
        let names = ["succeeded", "failed", "loggedOut"].map {
            Notification.Name("MailroomFoundationTests.LoginManager.\($0)")
        }
        let log = NotificationLog(center, names: names)
        let manager = LoginManager()
        let forward = office.forward(LoginManager.Event.self, to: center)

        office.post(LoginManager.Event.succeeded(user: "ada"), sender: manager)
        office.post(LoginManager.Event.failed(.offline), sender: manager)
        office.post(LoginManager.Event.loggedOut, sender: manager)

        #expect(log.notifications.map(\.name) == names)
        #expect(log.notifications.allSatisfy { $0.object as? LoginManager === manager })
        withExtendedLifetime(forward) {}
    }

    @Test("Mail forwarded and bridged back under the same name reaches its recipients once, and other offices too")
    func noLoops() {
        let center = NotificationCenter()
        let office = PostOffice()
        let other = PostOffice()
        let received = Locked<[String]>([])
        office.register { (change: CartChanged) in received.append("office \(change.itemCount)") }
        other.register { (change: CartChanged) in received.append("other \(change.itemCount)") }
        let name = Notification.Name("MailroomFoundationTests.CartChanged")
        let out = office.forward(CartChanged.self, to: center)
        let back = office.bridge(name, in: center, as: CartChanged.self)
        let across = other.bridge(name, in: center, as: CartChanged.self)

        office.post(CartChanged(itemCount: 1, total: 1, coupon: nil))
        center.post(name: name, object: nil, userInfo: ["itemCount": 2, "total": 2.0])

        // NotificationCenter calls its observers in no fixed order on Linux: compare the deliveries, not their order.
        #expect(received.current.sorted() == ["office 1", "office 2", "other 1", "other 2"])
        #expect([out, back, across].map(\.failureCount) == [0, 0, 0])
    }

    @Test("Encoded events decode back into the same enum through a bridge")
    func eventsRoundTrip() {
        let center = NotificationCenter()
        let sending = PostOffice()
        let receiving = PostOffice()
        let received = Locked<[LoginManager.Event]>([])
        receiving.register { (event: LoginManager.Event, _: LoginManager) in received.update { $0.append(event) } }
        let forward = sending.forward(LoginManager.Event.self, to: center)
        let name = Notification.Name("MailroomFoundationTests.LoginManager.failed")
        let bridge = receiving.bridge(name, in: center, as: LoginManager.Event.self, sentBy: LoginManager.self)
        let manager = LoginManager()

        sending.post(LoginManager.Event.failed(.wrongPassword), sender: manager)
        sending.post(LoginManager.Event.succeeded(user: "ada"), sender: manager)

        #expect(received.current == [.failed(.wrongPassword)])
        #expect(forward.failureCount == 0 && bridge.failureCount == 0)
    }
}
