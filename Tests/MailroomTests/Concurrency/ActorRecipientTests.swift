import Dispatch
import Mailroom
import Testing

@Suite("Actor recipients")
struct ActorRecipientTests {
    @Test(
        "register(actor) { actor, m in ... } runs the closure isolated to the actor, which it mutates without await, in post order"
    )
    func isolatedClosureRunsOnActorInPostOrder() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let store = PingStore(tape: tape)
        office.register(store) { (store, ping: Ping) in
            store.assertIsolated()
            store.applied.append(ping.n)
            store.tape.record("ping \(ping.n)")
        }

        await onBackgroundThread("500 posts from a global-queue thread") {
            for n in 0..<500 {
                office.post(Ping(n: n))
            }
        }
        await tape.waitForCount(500, "deliveries on the actor")

        #expect(tape.events == (0..<500).map { "ping \($0)" })
        #expect(await store.applied == Array(0..<500))
    }

    @Test(
        "register(sender:, actor) { ... } runs on the actor for the mail of exactly that sender, in post order"
    )
    func exactSenderActorFormRunsOnActorInPostOrder() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let store = PingStore(tape: tape)
        let phone = Phone("phone")
        let otherPhone = Phone("other phone")
        let device = Device("device")
        office.register(sender: phone, store) { (store, ping: Ping) in
            store.applied.append(ping.n)
            store.apply(Ping(n: -ping.n))
        }

        await onBackgroundThread("posts from a global-queue thread") {
            for round in 0..<50 {
                office.post(Ping(n: round * 10 + 1))
                office.post(Ping(n: round * 10 + 2), sender: device)
                office.post(Ping(n: round * 10 + 3), sender: otherPhone)
                office.post(Ping(n: round * 10 + 4), sender: phone)
            }
        }
        await tape.waitForCount(50, "deliveries on the actor")

        let expected = (0..<50).map { $0 * 10 + 4 }
        #expect(tape.events == expected.map { "apply \(-$0)" })
        #expect(await store.applied == expected.flatMap { [$0, -$0] })
        withExtendedLifetime(phone) {}
    }

    @Test(
        "register(actor, Store.record) runs the async actor method on the actor one mail at a time, in post order, though the actor is reentrant"
    )
    func asyncActorMethodRunsOneAtATimeInPostOrder() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let store = PingStore(tape: tape)
        office.register(store, PingStore.record)

        await onBackgroundThread("200 posts from a global-queue thread") {
            for n in 0..<200 {
                office.post(Ping(n: n))
            }
        }
        await tape.waitForCount(400, "starts and ends")

        #expect(tape.events == startsAndEnds(0..<200))
        #expect(await store.applied == Array(0..<200))
    }

    @Test("An actor recipient is held weakly: once released it deallocates and its registrations go")
    func actorIsHeldWeakly() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let deinits = Recorder<String>()
        let phone = Phone("phone")
        var store: PingStore? = PingStore(tape: tape, onDeinit: { deinits.record("deinit") })
        weak let weakStore = store
        office.register(store!) { (store, ping: Ping) in store.apply(ping) }
        office.register(sender: phone, store!) { (store, ping: Ping) in store.apply(ping) }
        office.register(store!, PingStore.record)
        #expect(office.registrationCount == 3)

        store = nil

        #expect(weakStore == nil)
        #expect(deinits.events == ["deinit"])
        #expect(office.registrationCount == 0)
        await returns("deliver to an office whose recipients have gone") {
            try await office.deliver(Ping(n: 1), sender: phone)
        }
        #expect(tape.events.isEmpty)
    }

    @Test(
        "Mail queued for an actor that is released meanwhile is dropped, without a crash; deliver returns and the registration goes"
    )
    func mailQueuedForReleasedActorIsDropped() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let posted = Recorder<Int>()
        let gate = AsyncGate()
        defer { gate.open() }
        var store: PingStore? = PingStore(tape: tape, gate: gate, onDeinit: { tape.record("deinit") })
        weak let weakStore = store
        office.register(store!, PingStore.record)
        // Called during each post, after the actor's registration took the mail.
        office.register { (ping: Ping) in posted.record(ping.n) }

        office.post(Ping(n: 0))
        await tape.waitForCount(1, "the actor to start on Ping 0")
        for n in 1..<5 {
            office.post(Ping(n: n))
        }
        let delivery = Task { try await office.deliver(Ping(n: 5)) }
        await posted.waitForCount(6, "the six posts")
        store = nil
        let aliveWhileHandling = weakStore != nil
        gate.open()
        let returned = await returns("deliver of mail for a released actor") { try await delivery.value }

        #expect(returned)
        #expect(aliveWhileHandling)
        #expect(tape.events == ["start 0", "end 0", "deinit"])
        #expect(weakStore == nil)
        #expect(office.registrationCount == 1)
    }
}
