import Dispatch
import Foundation
import Mailroom
import Testing

@Suite("Waiting for a delivery with deliver")
struct DeliverTests {
    @Test(
        "await deliver(m) returns once the synchronous, queue, main-actor, async and actor recipients have all handled m"
    )
    func deliverWaitsForEveryKindOfRecipient() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let queue = DispatchQueue(label: "deliver.queue")
        let viewModel = await MainActor.run { PingViewModel(tape: tape) }
        let store = PingStore(tape: tape)
        registerSlowRecipientOfEachKind(on: office, queue: queue, tape: tape)
        office.register(viewModel, PingViewModel.receive)
        office.register(store, PingStore.record)

        var seenWhenDeliverReturned: [[String]] = []
        for n in 1...3 {
            await returns("deliver(Ping \(n))") { try await office.deliver(Ping(n: n)) }
            seenWhenDeliverReturned.append(tape.events.filter { $0.hasSuffix(" \(n)") }.sorted())
        }

        for n in 1...3 {
            #expect(
                seenWhenDeliverReturned[n - 1]
                    == [
                        "actor \(n)", "async \(n)", "end \(n)", "main actor \(n)", "now \(n)", "ping \(n)",
                        "queue \(n)", "start \(n)",
                    ])
        }
        #expect(tape.count == 24)
        withExtendedLifetime(viewModel) {}
    }

    @Test(
        "await deliver(m, sender:) returns once the sender-filtered synchronous, queue, main-actor, async and actor recipients have all handled m"
    )
    func deliverWithSenderWaitsForEveryKindOfRecipient() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let queue = DispatchQueue(label: "deliver.sender.queue")
        let phone = Phone("phone")
        let viewModel = await MainActor.run { PingViewModel(tape: tape) }
        let store = PingStore(tape: tape)
        office.register(sender: phone) { (ping: Ping) in tape.record("now \(ping.n)") }
        office.register(queue: queue) { (ping: Ping, phone: Phone) in
            Thread.sleep(forTimeInterval: 0.01)
            tape.record("queue \(ping.n)")
        }
        office.register(on: .mainActor) { (ping: Ping, device: Device?) in
            Thread.sleep(forTimeInterval: 0.01)
            tape.record("main actor \(ping.n) from \(device?.name ?? "nil")")
        }
        office.register(viewModel, PingViewModel.receiveFromDevice)
        office.register { (ping: Ping, device: Device) async in
            await yieldSeveralTimes(20)
            try? await Task.sleep(for: .milliseconds(10))
            tape.record("async \(ping.n) from \(device.name)")
        }
        office.register(sender: phone, store) { (store, ping: Ping) in store.apply(ping) }

        await returns("deliver(Ping 1, sender: phone)") { try await office.deliver(Ping(n: 1), sender: phone) }
        let seenWhenDeliverReturned = tape.events.sorted()

        #expect(
            seenWhenDeliverReturned == [
                "apply 1", "async 1 from phone", "main actor 1 from phone", "now 1", "ping 1 from phone", "queue 1",
            ])
        withExtendedLifetime((viewModel, store, phone)) {}
    }

    @Test("await deliver(m) from the main actor returns once every kind of recipient has handled m")
    func deliverFromMainActorWaitsForEveryKindOfRecipient() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let queue = DispatchQueue(label: "deliver.main.queue")
        let viewModel = await MainActor.run { PingViewModel(tape: tape) }
        let store = PingStore(tape: tape)
        registerSlowRecipientOfEachKind(on: office, queue: queue, tape: tape)
        office.register(viewModel, PingViewModel.receive)
        office.register(store, PingStore.record)

        let seenWhenDeliverReturned = await finish("deliver(Ping 1) on the main actor") { @MainActor () -> [String] in
            try await office.deliver(Ping(n: 1))
            return tape.events.sorted()
        }

        #expect(
            seenWhenDeliverReturned == [
                "actor 1", "async 1", "end 1", "main actor 1", "now 1", "ping 1", "queue 1", "start 1",
            ])
        withExtendedLifetime(viewModel) {}
    }

    @Test(
        "A queue delivery dropped by unregister before it ran still lets the deliver waiting for it return"
    )
    func droppedQueueDeliveryLetsDeliverReturn() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let posted = Recorder<Int>()
        let queue = DispatchQueue(label: "deliver.dropped.queue")
        let gate = block(queue)
        defer { gate.open() }
        let id = office.register(queue: queue) { (ping: Ping) in tape.record("queue \(ping.n)") }
        // Called during the post, after the queue registration enqueued its delivery.
        office.register { (ping: Ping) in posted.record(ping.n) }

        let delivery = Task { try await office.deliver(Ping(n: 1)) }
        await posted.waitForCount(1, "the post")
        office.unregister(id)
        gate.open()
        let returned = await returns("deliver of a dropped queue delivery") { try await delivery.value }

        #expect(returned)
        #expect(tape.events.isEmpty)
    }

    @Test(
        "A main-actor delivery dropped by unregister before it ran still lets the deliver waiting for it return"
    )
    func droppedMainActorDeliveryLetsDeliverReturn() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let posted = Recorder<Int>()
        let viewModel = await MainActor.run { PingViewModel(tape: tape) }
        let closure = office.register(on: .mainActor) { (ping: Ping) in tape.record("closure \(ping.n)") }
        office.register(viewModel, PingViewModel.receive)
        // Called during the post, after the main-actor registrations enqueued their deliveries.
        office.register { (ping: Ping) in posted.record(ping.n) }

        // The main actor stays busy here until both registrations are gone: their deliveries cannot run before.
        let delivery = await MainActor.run { () -> Task<Void, any Error> in
            let delivery = Task.detached { try await office.deliver(Ping(n: 1)) }
            posted.waitForCount(1, timeout: .seconds(30))
            office.unregister(closure)
            office.unregister(viewModel)
            return delivery
        }
        let returned = await returns("deliver of dropped main-actor deliveries") { try await delivery.value }

        #expect(returned)
        #expect(tape.events.isEmpty)
        #expect(office.registrationCount == 1)
    }
}

/// Registers, for every `Ping`, a synchronous closure, then a closure on the serial `queue`, a main-actor
/// closure, an async closure and an actor's isolated closure, each slowed down a little (sleeping, or
/// suspending), so that a `deliver` that did not wait for one of them would return before it ran.
private func registerSlowRecipientOfEachKind(on office: PostOffice, queue: DispatchQueue, tape: Recorder<String>) {
    office.register { (ping: Ping) in tape.record("now \(ping.n)") }
    office.register(queue: queue) { (ping: Ping) in
        Thread.sleep(forTimeInterval: 0.01)
        tape.record("queue \(ping.n)")
    }
    office.register(on: .mainActor) { (ping: Ping) in
        Thread.sleep(forTimeInterval: 0.01)
        tape.record("main actor \(ping.n)")
    }
    office.register { (ping: Ping) async in
        await yieldSeveralTimes(20)
        try? await Task.sleep(for: .milliseconds(10))
        tape.record("async \(ping.n)")
    }
    let store = PingStore(tape: tape)
    office.register(store) { (store, ping: Ping) in
        store.tape.record("actor \(ping.n)")
    }
    // The office holds the actor weakly: keep it as long as the office.
    office.register { (_: Chime) in withExtendedLifetime(store) {} }
}
