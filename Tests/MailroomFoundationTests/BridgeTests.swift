import Foundation
import Mailroom
import MailroomFoundation
import MailroomTesting
import Testing

// MARK: - Fixtures

private let orderShipped = Notification.Name("Shop.orderShipped")

/// The mail a bridge turns `orderShipped` notifications into.
private struct OrderShipped: Mail, Decodable, Equatable {
    let orderNumber: Int
    let carrier: String
    let trackingURL: URL?
}

/// An object that posts notifications, and a class it is not.
private final class Warehouse: Sendable {
    let name: String
    init(_ name: String) { self.name = name }
}

private final class Stranger: Sendable {}

/// Collects the lines `NotificationBridge.log` writes while a test runs, and restores the hook afterwards.
private final class LogCapture: Sendable {
    let lines = Locked<[String]>([])

    func capture<Result>(_ body: () throws -> Result) rethrows -> Result {
        let previous = NotificationBridge.log
        NotificationBridge.log = { [lines] line in lines.append(line) }
        defer { NotificationBridge.log = previous }
        return try body()
    }
}

private func shipped(_ number: Int, carrier: String = "UPS") -> [AnyHashable: Any] {
    ["orderNumber": number, "carrier": carrier, "trackingURL": URL(string: "https://example.com/\(number)")!]
}

// MARK: - Incoming

@Suite("Bridge in: Foundation notifications posted as typed mail", .serialized)
struct IncomingBridgeTests {
    @Test("Each matching notification is posted as mail decoded from its userInfo, in order")
    func decodesEveryNotification() {
        let center = NotificationCenter()
        let office = PostOffice()
        let recorder = MailRecorder(office, recording: [OrderShipped.self])
        let bridge = office.bridge(orderShipped, in: center, as: OrderShipped.self)

        center.post(name: orderShipped, object: nil, userInfo: shipped(1))
        center.post(name: orderShipped, object: Warehouse("north"), userInfo: shipped(2, carrier: "DHL"))
        center.post(name: Notification.Name("Shop.other"), object: nil, userInfo: shipped(3))

        #expect(
            recorder.mail(of: OrderShipped.self) == [
                OrderShipped(orderNumber: 1, carrier: "UPS", trackingURL: URL(string: "https://example.com/1")),
                OrderShipped(orderNumber: 2, carrier: "DHL", trackingURL: URL(string: "https://example.com/2")),
            ]
        )
        #expect(recorder.entries.allSatisfy { $0.sender == nil })
        #expect(bridge.failureCount == 0)
    }

    @Test(
        "With an object filter only that object's notifications pass; sentBy makes an object of that class the sender")
    func objectFilterAndSender() {
        let center = NotificationCenter()
        let office = PostOffice()
        let north = Warehouse("north")
        let south = Warehouse("south")
        let received = Locked<[String]>([])
        office.register { (order: OrderShipped, sender: Warehouse?) in
            received.append("\(order.orderNumber) from \(sender?.name ?? "nil")")
        }
        let fromNorth = office.bridge(
            orderShipped, object: north, in: center, as: OrderShipped.self, sentBy: Warehouse.self)

        center.post(name: orderShipped, object: north, userInfo: shipped(1))
        center.post(name: orderShipped, object: south, userInfo: shipped(2))
        center.post(name: orderShipped, object: nil, userInfo: shipped(3))
        fromNorth.cancel()

        let anyWarehouse = office.bridge(orderShipped, in: center, as: OrderShipped.self, sentBy: Warehouse.self)
        center.post(name: orderShipped, object: south, userInfo: shipped(4))
        center.post(name: orderShipped, object: Stranger(), userInfo: shipped(5))
        center.post(name: orderShipped, object: nil, userInfo: shipped(6))

        #expect(received.current == ["1 from north", "4 from south", "5 from nil", "6 from nil"])
        withExtendedLifetime(anyWarehouse) {}
    }

    @Test("A notification that does not decode is not posted; its DecodingError with coding path goes to onFailure")
    func decodingFailuresGoToTheHandler() throws {
        let center = NotificationCenter()
        let office = PostOffice()
        let recorder = MailRecorder(office, recording: [OrderShipped.self])
        let failures = Locked<[BridgeFailure]>([])
        let bridge = office.bridge(orderShipped, in: center, as: OrderShipped.self) { failure in
            failures.update { $0.append(failure) }
        }

        center.post(name: orderShipped, object: nil, userInfo: ["carrier": "UPS"])
        center.post(name: orderShipped, object: nil, userInfo: ["orderNumber": "7", "carrier": "UPS"])
        center.post(name: orderShipped, object: nil, userInfo: nil)
        center.post(name: orderShipped, object: nil, userInfo: shipped(8))

        #expect(recorder.mail(of: OrderShipped.self).map(\.orderNumber) == [8])
        #expect(bridge.failureCount == 3)
        let recorded = failures.current
        try #require(recorded.count == 3)
        #expect(recorded.allSatisfy { $0.name == orderShipped && $0.mailType == OrderShipped.self })
        guard case DecodingError.keyNotFound(let key, _) = recorded[0].error else {
            Issue.record("expected keyNotFound, got \(recorded[0].error)")
            return
        }
        #expect(key.stringValue == "orderNumber")
        guard case DecodingError.typeMismatch(_, let context) = recorded[1].error else {
            Issue.record("expected typeMismatch, got \(recorded[1].error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["orderNumber"])
        guard case DecodingError.keyNotFound = recorded[2].error else {
            Issue.record("expected keyNotFound for a missing userInfo, got \(recorded[2].error)")
            return
        }
    }

    @Test(
        "Without a handler each kind of failure (error and coding path) is reported once through the log hook; all are counted"
    )
    func defaultFailureReporting() {
        let center = NotificationCenter()
        let office = PostOffice()
        let capture = LogCapture()
        let bridge = office.bridge(orderShipped, in: center, as: OrderShipped.self)

        capture.capture {
            center.post(name: orderShipped, object: nil, userInfo: ["carrier": "UPS"])
            center.post(name: orderShipped, object: nil, userInfo: ["carrier": "UPS"])
            center.post(name: orderShipped, object: nil, userInfo: ["orderNumber": 1.5, "carrier": "UPS"])
            // The same kind of failure, with another value found: counted, not reported again.
            center.post(name: orderShipped, object: nil, userInfo: ["orderNumber": 2.5, "carrier": "UPS"])
        }

        #expect(bridge.failureCount == 4)
        #expect(
            capture.lines.current == [
                "Shop.orderShipped <-> MailroomFoundationTests.OrderShipped: at the top level: No value for key "
                    + "\"orderNumber\". (not posted; reported once)",
                "Shop.orderShipped <-> MailroomFoundationTests.OrderShipped: at orderNumber: Expected Int but found 1.5 "
                    + "(Double), which is not a whole number. (not posted; reported once)",
            ])
    }

    @Test("Without a handler a bridge reports 32 kinds of failure at most, then only counts them")
    func defaultReportingIsBounded() {
        struct Rejected: Error, CustomStringConvertible {
            let number: Int
            var description: String { "rejected \(number)" }
        }
        let center = NotificationCenter()
        let office = PostOffice()
        let capture = LogCapture()
        let bridge = office.bridge(orderShipped, in: center) { note -> OrderShipped? in
            throw Rejected(number: note.userInfo?["number"] as? Int ?? -1)
        }

        capture.capture {
            for number in 0..<40 {
                center.post(name: orderShipped, object: nil, userInfo: ["number": number])
            }
        }

        #expect(bridge.failureCount == 40)
        let lines = capture.lines.current
        #expect(lines.count == 32)
        #expect(
            lines.first
                == "Shop.orderShipped <-> MailroomFoundationTests.OrderShipped: rejected 0 (not posted; reported once)")
        #expect(
            lines.last
                == "Shop.orderShipped <-> MailroomFoundationTests.OrderShipped: rejected 31 (not posted; 32 kinds of failure "
                + "reported, later ones only counted)")
    }

    @Test("Mail with no payload is posted for every notification, whatever its userInfo holds")
    func payloadFreeMail() {
        struct BecameActive: Mail, Decodable {}
        let center = NotificationCenter()
        let office = PostOffice()
        let count = Locked(0)
        office.register(of: BecameActive.self) { _ in count.update { $0 += 1 } }
        let bridge = office.bridge(orderShipped, in: center, as: BecameActive.self)

        center.post(name: orderShipped, object: nil, userInfo: nil)
        center.post(name: orderShipped, object: nil, userInfo: [:])
        center.post(name: orderShipped, object: nil, userInfo: ["anything": 1])

        #expect(count.current == 3)
        #expect(bridge.failureCount == 0)
    }

    @Test("A closure builds the mail: nil skips the notification, a thrown error goes to onFailure")
    func closureBridges() {
        struct Rejected: Error {}
        let center = NotificationCenter()
        let office = PostOffice()
        let north = Warehouse("north")
        let received = Locked<[String]>([])
        office.register { (order: OrderShipped, sender: Warehouse?) in
            received.append("\(order.orderNumber) \(order.carrier) from \(sender?.name ?? "nil")")
        }
        let failures = Locked<[String]>([])
        let bridge = office.bridge(orderShipped, in: center, sentBy: Warehouse.self) { note -> OrderShipped? in
            guard let number = note.userInfo?["n"] as? Int else { return nil }
            guard number > 0 else { throw Rejected() }
            return OrderShipped(orderNumber: number, carrier: "closure", trackingURL: nil)
        } onFailure: { failure in
            failures.append("\(failure.error)")
        }

        center.post(name: orderShipped, object: north, userInfo: ["n": 1])
        center.post(name: orderShipped, object: nil, userInfo: ["other": 2])
        center.post(name: orderShipped, object: nil, userInfo: ["n": -3])
        center.post(name: orderShipped, object: nil, userInfo: ["n": 4])

        #expect(received.current == ["1 closure from north", "4 closure from nil"])
        #expect(failures.current == ["Rejected()"])
        #expect(bridge.failureCount == 1)
    }

    @Test("A bridge stops when cancelled or released, and cancelling twice changes nothing")
    func bridgesStop() {
        let center = NotificationCenter()
        let office = PostOffice()
        let recorder = MailRecorder(office, recording: [OrderShipped.self])
        let cancelled = office.bridge(orderShipped, in: center, as: OrderShipped.self)
        center.post(name: orderShipped, object: nil, userInfo: shipped(1))
        cancelled.cancel()
        cancelled.cancel()
        center.post(name: orderShipped, object: nil, userInfo: shipped(2))
        do {
            let released = office.bridge(orderShipped, in: center, as: OrderShipped.self)
            center.post(name: orderShipped, object: nil, userInfo: shipped(3))
            withExtendedLifetime(released) {}
        }
        center.post(name: orderShipped, object: nil, userInfo: shipped(4))

        #expect(recorder.mail(of: OrderShipped.self).map(\.orderNumber) == [1, 3])
    }

    @Test("A bridge does not keep its office alive, and posts nothing once the office has gone")
    func bridgeHoldsTheOfficeWeakly() {
        let center = NotificationCenter()
        weak var weakOffice: PostOffice?
        let bridge: NotificationBridge
        do {
            let office = PostOffice()
            weakOffice = office
            bridge = office.bridge(orderShipped, in: center, as: OrderShipped.self)
        }
        #expect(weakOffice == nil)
        center.post(name: orderShipped, object: nil, userInfo: shipped(1))
        #expect(bridge.failureCount == 0)
    }
}

// MARK: - A realistic keyboard notification

private let keyboardWillShow = Notification.Name("UIKeyboardWillShowNotification")

@Suite("Bridge in: a keyboard-frame notification")
struct KeyboardBridgeTests {
    @Test("A keyboard notification with UIKit's userInfo keys arrives as a typed KeyboardFrameChange")
    func keyboardFrames() {
        let center = NotificationCenter()
        let office = PostOffice()
        let received = Locked<[KeyboardFrameChange]>([])
        office.register { (change: KeyboardFrameChange) in received.update { $0.append(change) } }
        let bridge = office.bridge(keyboardWillShow, in: center, as: KeyboardFrameChange.self)

        let begin = CGRect(x: 0, y: 844, width: 390, height: 336)
        let end = CGRect(x: 0, y: 508, width: 390, height: 336)
        center.post(
            name: keyboardWillShow, object: nil,
            userInfo: [
                "UIKeyboardFrameBeginUserInfoKey": NSValue(rect: begin),
                "UIKeyboardFrameEndUserInfoKey": NSValue(rect: end),
                "UIKeyboardAnimationDurationUserInfoKey": NSNumber(value: 0.25),
                "UIKeyboardAnimationCurveUserInfoKey": NSNumber(value: 7),
                "UIKeyboardIsLocalUserInfoKey": true,
                "UIKeyboardCenterEndUserInfoKey": NSValue(point: CGPoint(x: 195, y: 676)),
            ]
        )

        #expect(
            received.current == [
                KeyboardFrameChange(frameBegin: begin, frameEnd: end, duration: 0.25, curve: .keyboard, isLocal: true)
            ]
        )
        #expect(bridge.failureCount == 0)
    }
}
