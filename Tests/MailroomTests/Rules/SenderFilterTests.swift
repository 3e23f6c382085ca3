import Mailroom
import Testing

@Suite("Handler (M, S): mail posted by a sender of class S or a subclass")
struct RequiredSenderTests {
    @Test(
        "An (M, S) closure receives mail posted by an S or a subclass of S, and not mail without a sender or from another sender type"
    )
    func closureReceivesOnlySendersOfItsClass() {
        let office = PostOffice()
        let log = Log()
        office.register { (ping: Ping, device: Device) in log.record("\(ping.n) from \(device.name)") }

        office.post(Ping(n: 1), sender: Device("device"))
        office.post(Ping(n: 2), sender: Phone("phone"))
        office.post(Ping(n: 3))
        office.post(Ping(n: 4), sender: Stranger("stranger"))
        office.post(Ping(n: 5), sender: nil as Device?)
        office.post(Pong(n: 6), sender: Device("device"))
        office.post(Ping(n: 7), sender: Device("second device"))

        #expect(log.events == ["1 from device", "2 from phone", "7 from second device"])
    }

    @Test("A handler whose sender type is any AnyObject & Sendable receives every sender; with S? also no sender")
    func anySenderHandlers() {
        let office = PostOffice()
        let log = Log()
        office.register { (ping: Ping, sender: any AnyObject & Sendable) in
            log.record("required \(ping.n) from \(type(of: sender))")
        }
        office.register { (ping: Ping, sender: (any AnyObject & Sendable)?) in
            log.record("optional \(ping.n) from \(sender.map { "\(type(of: $0))" } ?? "nil")")
        }

        office.post(Ping(n: 1), sender: Device("device"))
        office.post(Ping(n: 2), sender: Stranger("stranger"))
        office.post(Ping(n: 3))

        #expect(
            log.events == [
                "required 1 from Device", "optional 1 from Device", "required 2 from Stranger",
                "optional 2 from Stranger", "optional 3 from nil",
            ]
        )
    }

    @Test("An (M, S) closure receives the very sender instance that posted")
    func closureReceivesTheIdenticalSender() {
        let office = PostOffice()
        let received = Recorder<ObjectIdentifier>()
        office.register { (_: Ping, device: Device) in received.record(ObjectIdentifier(device)) }
        let device = Device("device")
        let phone = Phone("phone")

        office.post(Ping(n: 1), sender: device)
        office.post(Ping(n: 2), sender: phone)

        #expect(received.events == [ObjectIdentifier(device), ObjectIdentifier(phone)])
    }

    @Test("An (M, Phone) closure receives a Phone posted through a Device-typed variable, but not a plain Device")
    func subclassSenderHandlerMatchesDynamicClass() {
        let office = PostOffice()
        let log = Log()
        office.register { (ping: Ping, phone: Phone) in log.record("\(ping.n) from \(phone.name)") }
        let phoneAsDevice: Device = Phone("phone")

        office.post(Ping(n: 1), sender: Device("device"))
        office.post(Ping(n: 2), sender: phoneAsDevice)
        office.post(Ping(n: 3))

        #expect(log.events == ["2 from phone"])
    }

    @Test(
        "(M, S) closures registered after posts from a subclass and a superclass sender were routed get exactly the senders their class admits"
    )
    func senderClassRegisteredAfterRoutesExist() {
        let office = PostOffice()
        let log = Log()
        office.post(Ping(n: 0), sender: Phone("phone"))
        office.post(Ping(n: 0), sender: Device("device"))
        office.post(Ping(n: 0))

        office.register { (ping: Ping, phone: Phone) in log.record("Phone handler \(ping.n) from \(phone.name)") }
        office.register { (ping: Ping, device: Device) in log.record("Device handler \(ping.n) from \(device.name)") }
        office.post(Ping(n: 1), sender: Phone("phone"))
        office.post(Ping(n: 2), sender: Device("device"))
        office.post(Ping(n: 3))

        #expect(
            log.events == [
                "Phone handler 1 from phone", "Device handler 1 from phone",
                "Device handler 2 from device",
            ])
    }

    @Test("An (M, S) method receives mail from S or a subclass of S only")
    func methodReceivesOnlySendersOfItsClass() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let phoneOnly = Screen("phone-only", log: log)
        office.register(screen, Screen.receivePingFromDevice)
        office.register(phoneOnly, Screen.receivePingFromPhone)

        office.post(Ping(n: 1), sender: Device("device"))
        office.post(Ping(n: 2), sender: Phone("phone"))
        office.post(Ping(n: 3))
        office.post(Ping(n: 4), sender: Stranger("stranger"))

        #expect(
            log.events == [
                "screen 1 from device",
                "screen 2 from phone",
                "phone-only 2 from phone",
            ])
    }
}

@Suite("Handler (M, S?): mail without a sender or from a sender of class S")
struct OptionalSenderTests {
    @Test(
        "An (M, S?) closure receives nil for mail without a sender, and S or subclass senders, but not another sender type"
    )
    func closureReceivesNilOrSendersOfItsClass() {
        let office = PostOffice()
        let log = Log()
        office.register { (ping: Ping, device: Device?) in log.record("\(ping.n) from \(device?.name ?? "nil")") }

        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: Device("device"))
        office.post(Ping(n: 3), sender: Phone("phone"))
        office.post(Ping(n: 4), sender: Stranger("stranger"))
        office.post(Ping(n: 5), sender: nil as Stranger?)
        office.post(Pong(n: 6))

        #expect(log.events == ["1 from nil", "2 from device", "3 from phone", "5 from nil"])
    }

    @Test(
        "An (M, S?) method receives nil for mail without a sender, and S or subclass senders, but not another sender type"
    )
    func methodReceivesNilOrSendersOfItsClass() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        office.register(screen, Screen.receivePingFromOptionalDevice)

        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: Phone("phone"))
        office.post(Ping(n: 3), sender: Stranger("stranger"))
        office.post(Ping(n: 4), sender: Device("device"))

        #expect(log.events == ["screen 1 from nil", "screen 2 from phone", "screen 4 from device"])
    }
}

@Suite("Handler (M): every M, whatever the sender")
struct AnySenderTests {
    @Test("An (M) closure receives every M: without a sender, from S, from a subclass and from an unrelated sender")
    func closureReceivesEveryMail() {
        let office = PostOffice()
        let log = Log()
        office.register { (ping: Ping) in log.record("\(ping.n)") }

        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: Device("device"))
        office.post(Ping(n: 3), sender: Phone("phone"))
        office.post(Ping(n: 4), sender: Stranger("stranger"))
        office.post(Ping(n: 5), sender: nil as Device?)
        office.post(Pong(n: 6))

        #expect(log.events == ["1", "2", "3", "4", "5"])
    }

    @Test("An (M) method receives every M whatever the sender")
    func methodReceivesEveryMail() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        office.register(screen, Screen.receivePing)

        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: Device("device"))
        office.post(Ping(n: 3), sender: Stranger("stranger"))
        office.post(Pong(n: 4), sender: Stranger("stranger"))

        #expect(log.events == ["screen 1", "screen 2", "screen 3"])
    }

    @Test("The no-argument forms register(of: M.self) for closures and methods receive every M and nothing else")
    func noArgumentFormsReceiveEveryMail() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        office.register(of: Chime.self) { _ in log.record("closure chime") }
        office.register(screen, Screen.refresh(on: Chime.self))

        office.post(Chime())
        office.post(Chime(), sender: Device("device"))
        office.post(Ping(n: 1))

        #expect(
            log.events == [
                "closure chime", "screen refresh",
                "closure chime", "screen refresh",
            ])
    }
}
