import Mailroom
import Testing

@Suite("register(sender:): mail posted by that very instance only, which is held weakly")
struct ExactSenderTests {
    @Test(
        "An exact-sender closure receives mail from that instance only, not from another instance of the same class, a subclass or no sender"
    )
    func closureReceivesOnlyFromThatInstance() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        office.register(sender: device) { (ping: Ping) in log.record("\(ping.n)") }

        office.post(Ping(n: 1), sender: device)
        office.post(Ping(n: 2), sender: Device("device"))
        office.post(Ping(n: 3))
        office.post(Ping(n: 4), sender: Phone("phone"))
        office.post(Ping(n: 5), sender: Stranger("stranger"))
        office.post(Pong(n: 6), sender: device)
        office.post(Ping(n: 7), sender: device)

        #expect(log.events == ["1", "7"])
    }

    @Test("An exact-sender (M, S) closure receives the identical sender instance")
    func closureReceivesTheIdenticalSender() {
        let office = PostOffice()
        let received = Recorder<ObjectIdentifier>()
        let phone = Phone("phone")
        office.register(sender: phone) { (_: Ping, sender: Phone) in received.record(ObjectIdentifier(sender)) }

        office.post(Ping(n: 1), sender: phone)
        office.post(Ping(n: 2), sender: Phone("phone"))
        let phoneAsDevice: Device = phone
        office.post(Ping(n: 3), sender: phoneAsDevice)

        #expect(received.events == [ObjectIdentifier(phone), ObjectIdentifier(phone)])
    }

    @Test("The no-argument exact-sender forms, closure and method, receive mail from that instance only")
    func noArgumentFormsReceiveOnlyFromThatInstance() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let device = Device("device")
        office.register(of: Chime.self, sender: device) { _ in log.record("closure chime") }
        office.register(sender: device, screen, Screen.refresh(on: Chime.self))

        office.post(Chime(), sender: device)
        office.post(Chime(), sender: Device("device"))
        office.post(Chime())

        #expect(log.events == ["closure chime", "screen refresh"])
    }

    @Test("Exact-sender methods (M) and (M, S) receive mail from that instance only")
    func methodsReceiveOnlyFromThatInstance() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let device = Device("device")
        office.register(sender: device, screen, Screen.receivePing)
        office.register(sender: device, screen, Screen.receivePingFromDevice)

        office.post(Ping(n: 1), sender: Device("twin"))
        office.post(Ping(n: 2), sender: device)
        office.post(Ping(n: 3))

        #expect(log.events == ["screen 2", "screen 2 from device"])
    }

    @Test("The office holds an exact sender weakly, and its closure registrations go when it deallocates")
    func closureSenderIsHeldWeakly() {
        let office = PostOffice()
        let log = Log()
        office.register { (ping: Ping) in log.record("any \(ping.n)") }
        var device: Device? = Device("device")
        weak let weakDevice = device
        office.register(sender: device!) { (ping: Ping) in log.record("exact \(ping.n)") }
        office.register(sender: device!) { (ping: Ping, _: Device) in log.record("exact with sender \(ping.n)") }
        office.register(of: Chime.self, sender: device!) { _ in log.record("exact chime") }
        office.post(Ping(n: 1), sender: device)
        #expect(office.registrationCount == 4)

        device = nil

        #expect(weakDevice == nil)
        #expect(office.registrationCount == 1)
        office.post(Ping(n: 2), sender: Device("device"))
        #expect(log.events == ["any 1", "exact 1", "exact with sender 1", "any 2"])
    }

    @Test(
        "The office holds an exact sender of a method registration weakly, and the registration goes when the sender deallocates"
    )
    func methodSenderIsHeldWeakly() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        office.register(screen, Screen.receivePong)
        var device: Device? = Device("device")
        weak let weakDevice = device
        office.register(sender: device!, screen, Screen.receivePing)
        office.register(sender: device!, screen, Screen.receivePingFromDevice)
        #expect(office.registrationCount == 3)

        device = nil

        #expect(weakDevice == nil)
        #expect(office.registrationCount == 1)
        office.post(Ping(n: 1), sender: Device("device"))
        office.post(Pong(n: 2))
        #expect(log.events == ["screen pong 2"])
    }

    @Test("Exact-sender registrations of two instances each receive their own sender's mail")
    func twoSendersAreKeptApart() {
        let office = PostOffice()
        let log = Log()
        let first = Device("first")
        let second = Device("second")
        office.register(sender: first) { (ping: Ping) in log.record("first got \(ping.n)") }
        office.register(sender: second) { (ping: Ping) in log.record("second got \(ping.n)") }

        office.post(Ping(n: 1), sender: second)
        office.post(Ping(n: 2), sender: first)
        office.post(Ping(n: 3), sender: second)

        #expect(log.events == ["second got 1", "first got 2", "second got 3"])
    }
}
