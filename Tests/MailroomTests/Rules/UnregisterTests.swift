import Dispatch
import Mailroom
import Testing

@Suite("Unregistering by id")
struct UnregisterTests {
    @Test("After unregister returns, the registration receives nothing posted later, and the others still do")
    func unregisteredReceivesNothingLater() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let first = office.register { (ping: Ping) in log.record("first \(ping.n)") }
        let method = office.register(screen, Screen.receivePing)
        office.register { (ping: Ping) in log.record("second \(ping.n)") }
        office.post(Ping(n: 1))

        office.unregister(first)
        office.unregister(method)
        office.post(Ping(n: 2))

        #expect(log.events == ["first 1", "screen 1", "second 1", "second 2"])
        #expect(office.registrationCount == 1)
    }

    @Test("Unregistering an id twice changes nothing the second time")
    func unregisteringTwice() {
        let office = PostOffice()
        let log = Log()
        let removed = office.register { (ping: Ping) in log.record("removed \(ping.n)") }
        office.register { (ping: Ping) in log.record("kept \(ping.n)") }
        office.unregister(removed)
        #expect(office.registrationCount == 1)

        office.unregister(removed)

        #expect(office.registrationCount == 1)
        office.post(Ping(n: 1))
        #expect(log.events == ["kept 1"])
    }

    @Test("Unregistering another office's id changes nothing in either office")
    func unregisteringAnotherOfficesId() {
        let office = PostOffice()
        let otherOffice = PostOffice()
        let log = Log()
        office.register { (ping: Ping) in log.record("mine \(ping.n)") }
        let foreign = otherOffice.register { (ping: Ping) in log.record("theirs \(ping.n)") }

        office.unregister(foreign)

        #expect(office.registrationCount == 1)
        #expect(otherOffice.registrationCount == 1)
        office.post(Ping(n: 1))
        otherOffice.post(Ping(n: 2))
        #expect(log.events == ["mine 1", "theirs 2"])
    }

    @Test("Unregistering an id this office never issued (one unregistered long ago elsewhere) changes nothing")
    func unregisteringUnknownId() {
        let office = PostOffice()
        let log = Log()
        let unknown: RecipientId = {
            let scratch = PostOffice()
            let id = scratch.register(of: Chime.self) { _ in }
            scratch.unregister(id)
            return id
        }()
        let device = Device("device")
        office.register { (ping: Ping) in log.record("any \(ping.n)") }
        office.register(sender: device) { (ping: Ping) in log.record("exact \(ping.n)") }

        office.unregister(unknown)

        #expect(office.registrationCount == 2)
        office.post(Ping(n: 1), sender: device)
        #expect(log.events == ["any 1", "exact 1"])
    }
}

@Suite("Unregister vs queue: a queued delivery that has not started is dropped")
struct UnregisterQueueTests {
    @Test("Three deliveries queued behind a blocked serial queue are dropped when unregister returns before they start")
    func queuedDeliveriesAreDropped() {
        let office = PostOffice()
        let queue = DispatchQueue(label: "mailroom.tests.drop")
        let dropped = Recorder<Int>()
        let kept = Recorder<Int>()
        let id = office.register(queue: queue) { (ping: Ping) in dropped.record(ping.n) }
        office.register(queue: queue) { (ping: Ping) in kept.record(ping.n) }
        let gate = block(queue)
        office.post(Ping(n: 1))
        office.post(Ping(n: 2))
        office.post(Ping(n: 3))

        office.unregister(id)
        gate.open()
        drain(queue)

        #expect(dropped.events == [])
        #expect(kept.events == [1, 2, 3])
    }

    @Test("Queued method deliveries are dropped when unregister(object) returns before they start")
    func queuedMethodDeliveriesAreDropped() {
        let office = PostOffice()
        let queue = DispatchQueue(label: "mailroom.tests.drop-object")
        let log = Log()
        let screen = Screen("screen", log: log)
        office.register(queue: queue, screen, Screen.receivePing)
        office.register(queue: queue, screen, Screen.receivePingFromOptionalDevice)
        office.register(queue: queue) { (ping: Ping) in log.record("closure \(ping.n)") }
        let gate = block(queue)
        office.post(Ping(n: 1))
        office.post(Ping(n: 2))
        office.post(Ping(n: 3))

        office.unregister(screen)
        gate.open()
        drain(queue)

        #expect(log.events == ["closure 1", "closure 2", "closure 3"])
    }

    @Test("Deliveries already run before unregister are kept; only those not started are dropped")
    func onlyUnstartedDeliveriesAreDropped() {
        let office = PostOffice()
        let queue = DispatchQueue(label: "mailroom.tests.partial-drop")
        let received = Recorder<Int>()
        let id = office.register(queue: queue) { (ping: Ping) in received.record(ping.n) }
        office.post(Ping(n: 1))
        office.post(Ping(n: 2))
        drain(queue)
        let gate = block(queue)
        office.post(Ping(n: 3))
        office.post(Ping(n: 4))

        office.unregister(id)
        gate.open()
        drain(queue)

        #expect(received.events == [1, 2])
    }
}

@Suite("RecipientId and the shared office")
struct RecipientIdTests {
    @Test("Every registration gets a distinct id, across forms and offices")
    func idsAreDistinct() {
        let office = PostOffice()
        let otherOffice = PostOffice()
        let screen = Screen("screen", log: Log())
        let device = Device("device")
        var ids: [RecipientId] = []
        for _ in 0..<50 {
            ids.append(office.register { (_: Ping) in })
            ids.append(otherOffice.register { (_: Ping, _: Device?) in })
            ids.append(office.register(screen, Screen.receivePing))
            ids.append(otherOffice.register(of: Chime.self, sender: device) { _ in })
        }

        #expect(ids.count == 200)
        #expect(Set(ids).count == 200)
    }

    @Test("description reads RecipientId(n), with n at least 1 and growing with each registration on one thread")
    func descriptionFormat() throws {
        let office = PostOffice()
        let first = office.register { (_: Ping) in }
        let second = office.register { (_: Ping) in }

        let numbers = try [first, second].map { id -> UInt64 in
            let text = id.description
            #expect(text.hasPrefix("RecipientId("))
            #expect(text.hasSuffix(")"))
            let digits = text.dropFirst("RecipientId(".count).dropLast()
            #expect(!digits.isEmpty)
            #expect(digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber))
            return try #require(UInt64(digits))
        }
        #expect(numbers[0] >= 1)
        #expect(numbers[1] > numbers[0])
        #expect("\(first)" == first.description)
    }

    @Test("PostOffice.default is one shared instance")
    func defaultIsShared() {
        let first = PostOffice.default
        let second = PostOffice.default
        #expect(first === second)

        // A mail type private to this test, so nothing else on the shared office can see it.
        struct DefaultOfficeProbe: Mail { let n: Int }
        let received = Recorder<Int>()
        let id = first.register { (probe: DefaultOfficeProbe) in received.record(probe.n) }
        second.post(DefaultOfficeProbe(n: 42))
        PostOffice.default.unregister(id)
        first.post(DefaultOfficeProbe(n: 43))

        #expect(received.events == [42])
    }
}
