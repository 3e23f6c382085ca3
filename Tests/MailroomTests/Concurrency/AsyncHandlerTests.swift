import Dispatch
import Mailroom
import Testing

@Suite("Async handlers")
struct AsyncHandlerTests {
    @Test(
        "An async handler that suspends handles its mail one at a time, never overlapping itself, in post order"
    )
    func asyncHandlerRunsOneAtATimeInPostOrder() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let inFlight = Shared(0)
        let mostInFlight = Shared(0)
        office.register { (ping: Ping) async in
            let running = inFlight.update { count -> Int in
                count += 1
                return count
            }
            mostInFlight.update { $0 = max($0, running) }
            tape.record("start \(ping.n)")
            await yieldSeveralTimes()
            tape.record("end \(ping.n)")
            inFlight.update { $0 -= 1 }
        }

        for n in 0..<200 {
            office.post(Ping(n: n))
        }
        await tape.waitForCount(400, "starts and ends")

        #expect(tape.events == startsAndEnds(0..<200))
        #expect(mostInFlight.value == 1)
    }

    @Test(
        "The async forms (M, S), (M, S?) and register(sender:) each receive what their sender filter admits, one at a time, in post order"
    )
    func asyncSenderFormsRunOneAtATimeInPostOrder() async {
        let office = PostOffice()
        let byKind = Recorder<String>()
        let byOptionalKind = Recorder<String>()
        let exact = Recorder<String>()
        let device = Device("device")
        let phone = Phone("phone")
        let stranger = Stranger("stranger")
        office.register { (ping: Ping, device: Device) async in
            byKind.record("start \(ping.n) from \(device.name)")
            await yieldSeveralTimes()
            byKind.record("end \(ping.n)")
        }
        office.register { (ping: Ping, device: Device?) async in
            byOptionalKind.record("start \(ping.n) from \(device?.name ?? "nil")")
            await yieldSeveralTimes()
            byOptionalKind.record("end \(ping.n)")
        }
        office.register(sender: phone) { (ping: Ping) async in
            exact.record("start \(ping.n)")
            await yieldSeveralTimes()
            exact.record("end \(ping.n)")
        }

        let rounds = 0..<25
        await onBackgroundThread("posts from a global-queue thread") {
            for round in rounds {
                office.post(Ping(n: round * 10))
                office.post(Ping(n: round * 10 + 1), sender: device)
                office.post(Ping(n: round * 10 + 2), sender: stranger)
                // Last in each round, and admitted by all three: a wrongly admitted post would come before it.
                office.post(Ping(n: round * 10 + 3), sender: phone)
            }
        }
        await byKind.waitForCount(rounds.count * 4, "(M, S) events")
        await byOptionalKind.waitForCount(rounds.count * 6, "(M, S?) events")
        await exact.waitForCount(rounds.count * 2, "register(sender:) events")

        #expect(
            byKind.events
                == rounds.flatMap { round in
                    ["start \(round * 10 + 1) from device", "end \(round * 10 + 1)"]
                        + ["start \(round * 10 + 3) from phone", "end \(round * 10 + 3)"]
                })
        #expect(
            byOptionalKind.events
                == rounds.flatMap { round in
                    ["start \(round * 10) from nil", "end \(round * 10)"]
                        + ["start \(round * 10 + 1) from device", "end \(round * 10 + 1)"]
                        + ["start \(round * 10 + 3) from phone", "end \(round * 10 + 3)"]
                })
        #expect(exact.events == startsAndEnds(rounds.map { $0 * 10 + 3 }))
        withExtendedLifetime(phone) {}
    }

    @Test("post returns without waiting for an async handler, which runs later")
    func postDoesNotWaitForAsyncHandler() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let gate = AsyncGate()
        defer { gate.open() }
        office.register { (ping: Ping) async in
            tape.record("start \(ping.n)")
            await gate.wait()
            tape.record("end \(ping.n)")
        }

        let seenWhenPostReturned = await finish("post to return while the handler waits for the gate") {
            office.post(Ping(n: 1))
            return tape.events.filter { $0.hasPrefix("end") }
        }
        await tape.waitForCount(1, "the handler to start")
        let seenWhileWaiting = tape.events
        gate.open()
        await tape.waitForCount(2, "the handler to end")

        #expect(seenWhenPostReturned == [])
        #expect(seenWhileWaiting == ["start 1"])
        #expect(tape.events == ["start 1", "end 1"])
    }

    @Test("await deliver returns only after the async handler has handled the mail")
    func deliverWaitsForAsyncHandler() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let gate = AsyncGate()
        defer { gate.open() }
        office.register { (ping: Ping) async in
            tape.record("start \(ping.n)")
            if ping.n == 2 {
                await gate.wait()
            }
            await yieldSeveralTimes(20)
            tape.record("end \(ping.n)")
        }

        await returns("deliver(Ping 1)") { try await office.deliver(Ping(n: 1)) }
        let seenAfterFirstDeliver = tape.events

        let delivery = Task {
            try await office.deliver(Ping(n: 2))
            tape.record("deliver returned")
        }
        await tape.waitForCount(3, "the handler to start on Ping 2")
        let seenWhileHandlerWaits = tape.events
        gate.open()
        await returns("deliver(Ping 2)") { try await delivery.value }

        #expect(seenAfterFirstDeliver == ["start 1", "end 1"])
        #expect(seenWhileHandlerWaits == ["start 1", "end 1", "start 2"])
        #expect(tape.events == ["start 1", "end 1", "start 2", "end 2", "deliver returned"])
    }

    @Test(
        "Unregistering an async handler drops its mail that has not started; a deliver waiting for it returns"
    )
    func unregisterDropsQueuedAsyncMail() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let posted = Recorder<Int>()
        let gate = AsyncGate()
        defer { gate.open() }
        let id = office.register { (ping: Ping) async in
            tape.record("start \(ping.n)")
            if ping.n == 0 {
                await gate.wait()
            }
            tape.record("end \(ping.n)")
        }
        // Called during each post, after the async registration took the mail.
        office.register { (ping: Ping) in posted.record(ping.n) }

        office.post(Ping(n: 0))
        await tape.waitForCount(1, "the handler to start on Ping 0")
        for n in 1..<4 {
            office.post(Ping(n: n))
        }
        let delivery = Task { try await office.deliver(Ping(n: 4)) }
        await posted.waitForCount(5, "the five posts")
        office.unregister(id)
        gate.open()
        let returned = await returns("deliver of mail dropped by unregister") { try await delivery.value }

        #expect(returned)
        #expect(tape.events == ["start 0", "end 0"])
        #expect(office.registrationCount == 1)
    }

    @Test(
        "Releasing the office drops the mail its async handlers and actors have not started, then releases their closures"
    )
    func releasingTheOfficeDropsQueuedAsyncMail() async {
        let handlerTape = Recorder<String>()
        let actorTape = Recorder<String>()
        let released = Recorder<String>()
        let gate = AsyncGate()
        defer { gate.open() }
        // Both recipients wait at the gate while handling Ping 0, so Pings 1 to 4 are still queued, not started,
        // when the office goes.
        let store = PingStore(tape: actorTape, gate: gate)
        var office: PostOffice? = PostOffice()
        weak let weakOffice = office
        do {
            let closureToken = Token { released.record("async closure released") }
            office!.register { (ping: Ping) async in
                withExtendedLifetime(closureToken) {}
                handlerTape.record("start \(ping.n)")
                if ping.n == 0 {
                    await gate.wait()
                }
                handlerTape.record("end \(ping.n)")
            }
            office!.register(store, PingStore.record)
        }

        office!.post(Ping(n: 0))
        await handlerTape.waitForCount(1, "the async handler to start on Ping 0")
        await actorTape.waitForCount(1, "the actor to start on Ping 0")
        for n in 1..<5 {
            office!.post(Ping(n: n))
        }
        office = nil
        gate.open()
        await released.waitForCount(1, "the async closure to be released")
        await actorTape.waitForCount(2, "the actor to end Ping 0")

        #expect(weakOffice == nil)
        #expect(handlerTape.events == ["start 0", "end 0"])
        #expect(actorTape.events == ["start 0", "end 0"])
        #expect(await store.applied == [0])
        #expect(released.events == ["async closure released"])
    }
}
