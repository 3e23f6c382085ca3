import Dispatch
import Mailroom
import Testing

@Suite("Type identity: mail types are told apart as Swift tells types apart")
struct TypeIdentityTests {
    @Test("Same-named types nested in different scopes are different mail types")
    func sameNamedNestedTypesAreDifferent() {
        let office = PostOffice()
        let log = Log()
        office.register { (_: ScopeA.Ping) in log.record("A") }
        office.register { (_: ScopeB.Ping) in log.record("B") }
        office.register { (_: Ping) in log.record("top-level") }

        office.post(ScopeA.Ping())
        office.post(ScopeB.Ping())
        office.post(ScopeA.Ping())
        office.post(Ping(n: 0))

        #expect(log.events == ["A", "B", "A", "top-level"])
    }

    @Test("Envelope<Int> and Envelope<String> are different mail types")
    func genericSpecializationsAreDifferent() {
        let office = PostOffice()
        let integers = Recorder<Int>()
        let strings = Recorder<String>()
        let optionals = Recorder<Int?>()
        office.register { (envelope: Envelope<Int>) in integers.record(envelope.content) }
        office.register { (envelope: Envelope<String>) in strings.record(envelope.content) }
        office.register { (envelope: Envelope<Int?>) in optionals.record(envelope.content) }

        office.post(Envelope(content: 1))
        office.post(Envelope(content: "x"))
        office.post(Envelope(content: 2))
        office.post(Envelope<Int?>(content: nil))
        office.post(Envelope(content: "y"))

        #expect(integers.events == [1, 2])
        #expect(strings.events == ["x", "y"])
        #expect(optionals.events == [nil])
    }
}

@Suite("Enum and payload mail: the exact values are delivered")
struct MailValueTests {
    @Test("Enum mail delivers the exact cases posted, with their associated values")
    func enumMailDeliversExactCases() {
        let office = PostOffice()
        let received = Recorder<Traffic>()
        office.register { (traffic: Traffic) in received.record(traffic) }

        office.post(Traffic.green)
        office.post(Traffic.amber(seconds: 3))
        office.post(Traffic.red(reason: "stop"))
        office.post(Traffic.amber(seconds: 0))

        #expect(received.events == [.green, .amber(seconds: 3), .red(reason: "stop"), .amber(seconds: 0)])
    }

    @Test("A struct with a heap payload is delivered intact to synchronous and queued recipients")
    func payloadIsDeliveredIntact() {
        let office = PostOffice()
        let queue = DispatchQueue(label: "mailroom.tests.payload")
        let received = Recorder<String>()
        office.register { (envelope: Envelope<[String]>) in
            received.record("sync " + envelope.content.joined(separator: ","))
        }
        office.register(queue: queue) { (envelope: Envelope<[String]>) in
            received.record("queued " + envelope.content.joined(separator: ","))
        }

        do {
            let content = (0..<5).map { "item\($0)" }
            office.post(Envelope(content: content))
        }
        drain(queue)

        #expect(received.events == ["sync item0,item1,item2,item3,item4", "queued item0,item1,item2,item3,item4"])
    }

    @Test("Posting with no recipients, or only recipients of other types, calls nothing and registers nothing")
    func postingWithoutRecipientsDoesNothing() {
        let office = PostOffice()
        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: Device("device"))
        office.post(Crate("c"), sender: Stranger("stranger"))
        #expect(office.registrationCount == 0)

        let log = Log()
        office.register { (pong: Pong) in log.record("pong \(pong.n)") }
        office.post(Ping(n: 3))
        office.post(Ping(n: 4), sender: Device("device"))
        office.post(Letter("l"))

        #expect(log.events == [])
        #expect(office.registrationCount == 1)
    }
}
