import Dispatch
import Mailroom
import Testing

@Suite("Introspection")
struct IntrospectionTests {
    @Test("registrations lists every live registration in registration order, with what it listens to and how")
    func registrationsDescribeEveryForm() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let device = Device("device")
        let phone = Phone("phone")
        let owner = Token()
        let store = PingStore(tape: Recorder<String>())
        let queue = DispatchQueue(label: "feature.introspection.queue")
        let ids = [
            office.register { (_: Ping) in },
            office.register(conformingTo: Alert.self) { _ in },
            office.register(conformingTo: (any Mail).self) { (_: any Mail) in },
            office.register { (_: Ping, _: Device?) in },
            office.register { (_: Pong, _: Device) in },
            office.register(sender: device) { (_: Ping) in },
            office.register(sender: phone, conformingTo: Alert.self) { _ in },
            office.register(conformingTo: Alert.self) { (_, _: Phone?) in },
            office.register(queue: queue, screen, Screen.receivePing),
            office.register(on: .mainActor) { (_: Ping) in },
            office.register { (_: Ping) async in },
            office.register(store) { store, ping in store.apply(ping) },
            office.register(once: true) { (_: Traffic) in },
            office.register(tiedTo: owner, screen, Screen.receivePong),
            office.register(queue: queue, conformingTo: (any Mail).self) {
                (_: any Mail, _: (any AnyObject & Sendable)?) in
            },
            office.register { (_: Envelope<Int>) in },
        ]

        let infos = office.registrations

        #expect(infos.map(\.id) == ids)
        #expect(
            infos.map(\.mailType) == [
                "Ping", "any Alert", "any Mail", "Ping", "Pong", "Ping", "any Alert", "any Alert", "Ping", "Ping",
                "Ping", "Ping", "Traffic", "Pong", "any Mail", "Envelope<Int>",
            ])
        // The catch-all with its sender (`any AnyObject & Sendable`, optional) accepts every sender and none: `.any`.
        #expect(
            infos.map(\.senders) == [
                .any, .any, .any, .ofClass("Device", orNone: true), .ofClass("Device", orNone: false),
                .exactly("Device"), .exactly("Phone"), .ofClass("Phone", orNone: true), .any, .any, .any, .any,
                .any, .any, .any, .any,
            ])
        #expect(
            infos.map(\.place) == [
                .postingThread, .postingThread, .postingThread, .postingThread, .postingThread, .postingThread,
                .postingThread, .postingThread, .queue, .mainActor, .task, .task, .postingThread, .postingThread,
                .queue, .postingThread,
            ])
        #expect(
            infos.map(\.queueLabel) == [
                nil, nil, nil, nil, nil, nil, nil, nil, "feature.introspection.queue", nil, nil, nil, nil, nil,
                "feature.introspection.queue", nil,
            ])
        #expect(
            infos.map(\.recipientType) == [
                nil, nil, nil, nil, nil, nil, nil, nil, "Screen", nil, nil, "PingStore", nil, "Screen", nil, nil,
            ])
        #expect(infos.map(\.isOneShot) == ids.map { $0 == ids[12] })
        #expect(infos.map(\.isTiedToOwner) == ids.map { $0 == ids[13] })
        withExtendedLifetime((screen, device, phone, owner, store)) {}
    }

    @Test("Each registration's description is one line saying what it listens to and how it delivers")
    func registrationDescriptions() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let device = Device("device")
        let owner = Token()
        let store = PingStore(tape: Recorder<String>())
        let ids = [
            office.register(on: .mainActor) { (_: Ping, _: Device?) in },
            office.register(store) { store, ping in store.apply(ping) },
            office.register(sender: device, conformingTo: Alert.self, once: true, tiedTo: owner) { _ in },
            office.register(queue: DispatchQueue(label: "q"), screen, Screen.receivePingFromDevice),
        ]

        #expect(
            office.registrations.map(\.description) == [
                "\(ids[0]): Ping from Device or none, on the main actor, closure",
                "\(ids[1]): Ping from any sender, on a task, method of PingStore",
                "\(ids[2]): any Alert from one Device, on the posting thread, closure, one-shot, tied to its owner",
                "\(ids[3]): Ping from Device, on queue q, method of Screen",
            ])
        withExtendedLifetime((screen, device, owner, store)) {}
    }

    @Test(
        "Registrations whose recipient, exact sender or owner has gone, spent one-shots and removed ones are left out")
    func deadAndSpentAreLeftOut() {
        let office = PostOffice()
        let log = Log()
        let first = office.register { (_: Ping) in }
        do {
            let screen = Screen("gone", log: log)
            office.register(screen, Screen.receivePing)
            let device = Device("gone")
            office.register(sender: device) { (_: Ping) in }
            office.register(sender: device, conformingTo: Alert.self) { _ in }
        }
        var owner: Token? = Token()
        office.register(tiedTo: owner!) { (_: Ping) in }
        office.register(conformingTo: Alert.self, tiedTo: owner!) { _ in }
        owner = nil
        office.register(once: true) { (_: Pong) in }
        office.register(conformingTo: (any Mail).self, once: true) { (_: any Mail) in }
        office.post(Pong(n: 1))
        office.unregister(office.register { (_: Ping) in })
        let pending = office.register(once: true) { (_: Traffic) in }
        let last = office.register(conformingTo: Alert.self) { _ in }

        #expect(office.registrations.map(\.id) == [first, pending, last])
        #expect(office.registrationCount == 3)
    }

    @Test("debugDescription lists one line per registration, grouped under its mail type in first-registered order")
    func debugDescriptionText() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let device = Device("device")
        let owner = Token()
        #expect(office.debugDescription == "PostOffice with 0 registrations")

        let ping = office.register { (_: Ping) in }
        #expect(
            office.debugDescription == """
                PostOffice with 1 registration
                  Ping:
                    \(ping): Ping from any sender, on the posting thread, closure
                """)

        let alert = office.register(conformingTo: Alert.self) { _ in }
        let method = office.register(
            queue: DispatchQueue(label: "feature.debug"), screen, Screen.receivePingFromOptionalDevice)
        let exact = office.register(sender: device, once: true) { (_: Pong) in }
        let all = office.register(conformingTo: (any Mail).self, tiedTo: owner) { (_: any Mail) in }
        let alertFromDevice = office.register(conformingTo: Alert.self) { (_, _: Device?) in }

        #expect(
            office.debugDescription == """
                PostOffice with 6 registrations
                  Ping:
                    \(ping): Ping from any sender, on the posting thread, closure
                    \(method): Ping from Device or none, on queue feature.debug, method of Screen
                  any Alert:
                    \(alert): any Alert from any sender, on the posting thread, closure
                    \(alertFromDevice): any Alert from Device or none, on the posting thread, closure
                  Pong:
                    \(exact): Pong from one Device, on the posting thread, closure, one-shot
                  any Mail:
                    \(all): any Mail from any sender, on the posting thread, closure, tied to its owner
                """)
        #expect(String(reflecting: office) == office.debugDescription)
        withExtendedLifetime((screen, device, owner)) {}
    }
}
