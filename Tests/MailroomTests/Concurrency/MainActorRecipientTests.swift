import Dispatch
import Mailroom
import Testing

@Suite("Main-actor recipients, by method and by closure")
struct MainActorRecipientTests {
    @Test("The tests' evidence of running on the main actor holds on the main actor only")
    func mainActorEvidenceTellsMainQueueFromOtherThreads() async {
        let onMainActor = await MainActor.run { mainActorEvidence() }
        let onBackground = Shared<Bool?>(nil)
        await onBackgroundThread { onBackground.value = isOnMainQueue() }
        let onSerialQueue = Shared<Bool?>(nil)
        let queue = DispatchQueue(label: "evidence.queue")
        queue.async { onSerialQueue.value = isOnMainQueue() }
        await queueDrained(queue)

        #expect(onMainActor)
        #expect(onBackground.value == false)
        #expect(onSerialQueue.value == false)
        #expect(isOnMainQueue() == false)
    }

    @Test(
        "A main-actor method registered with register(vm, VM.receive) receives 1000 posts from one background thread on the main actor, exactly 0..<1000 in order"
    )
    func methodReceivesBackgroundPostsInOrderOnMainActor() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let viewModel = await MainActor.run { PingViewModel(tape: tape) }
        office.register(viewModel, PingViewModel.receive)

        await onBackgroundThread("1000 posts from a global-queue thread") {
            for n in 0..<1000 {
                office.post(Ping(n: n))
            }
        }
        await tape.waitForCount(1000, "main-actor deliveries")
        await mainQueueDrained()

        #expect(tape.events == (0..<1000).map { "ping \($0)" })
        withExtendedLifetime(viewModel) {}
    }

    @Test(
        "The main-actor method forms (M, S), (M, S?), no-argument and the register(sender:) forms receive background posts on the main actor, as their sender filters say, in post order"
    )
    func everyMethodFormReceivesOnMainActor() async {
        let office = PostOffice()
        let byKind = Recorder<String>()
        let byOptionalKind = Recorder<String>()
        let noArgument = Recorder<String>()
        let exact = Recorder<String>()
        let exactWithSender = Recorder<String>()
        let exactNoArgument = Recorder<String>()
        let models = await MainActor.run {
            [
                PingViewModel(tape: byKind), PingViewModel(tape: byOptionalKind), PingViewModel(tape: noArgument),
                PingViewModel(tape: exact), PingViewModel(tape: exactWithSender), PingViewModel(tape: exactNoArgument),
            ]
        }
        let senders = SenderMix()
        office.register(models[0], PingViewModel.receiveFromDevice)
        office.register(models[1], PingViewModel.receiveFromOptionalDevice)
        office.register(models[2], PingViewModel.reload)
        office.register(sender: senders.phone, models[3], PingViewModel.receive)
        office.register(sender: senders.phone, models[4], PingViewModel.receiveFromDevice)
        office.register(sender: senders.phone, models[5], PingViewModel.reload)

        await onBackgroundThread("posts from a global-queue thread") {
            senders.post(to: office)
        }
        await mainQueueDrained()

        #expect(byKind.events == SenderMix.receivedByKind)
        #expect(byOptionalKind.events == SenderMix.receivedByOptionalKind)
        #expect(noArgument.events == Array(repeating: "reload", count: 100))
        #expect(exact.events == SenderMix.rounds.map { "ping \($0 * 10 + 2)" })
        #expect(exactWithSender.events == SenderMix.rounds.map { "ping \($0 * 10 + 2) from phone" })
        #expect(exactNoArgument.events == Array(repeating: "reload", count: 20))
        withExtendedLifetime((models, senders)) {}
    }

    @Test(
        "The seven register(on: .mainActor) closure forms receive posts from a detached task on the main actor, as their sender filters say, in post order"
    )
    func everyClosureFormReceivesOnMainActor() async {
        let office = PostOffice()
        let any = Recorder<String>()
        let byKind = Recorder<String>()
        let byOptionalKind = Recorder<String>()
        let noArgument = Recorder<String>()
        let exact = Recorder<String>()
        let senders = SenderMix()
        office.register(on: .mainActor) { (ping: Ping) in
            any.record("ping \(ping.n)\(mainActorEvidence() ? "" : " OFF MAIN")")
        }
        office.register(on: .mainActor) { (ping: Ping, device: Device) in
            byKind.record("ping \(ping.n) from \(device.name)\(mainActorEvidence() ? "" : " OFF MAIN")")
        }
        office.register(on: .mainActor) { (ping: Ping, device: Device?) in
            byOptionalKind.record(
                "ping \(ping.n) from \(device?.name ?? "nil")\(mainActorEvidence() ? "" : " OFF MAIN")")
        }
        office.register(on: .mainActor, of: Ping.self) { _ in
            noArgument.record("reload\(mainActorEvidence() ? "" : " OFF MAIN")")
        }
        office.register(on: .mainActor, sender: senders.phone) { (ping: Ping) in
            exact.record("ping \(ping.n)\(mainActorEvidence() ? "" : " OFF MAIN")")
        }
        let exactWithSender = Recorder<String>()
        office.register(on: .mainActor, sender: senders.phone) { (ping: Ping, phone: Phone) in
            exactWithSender.record("ping \(ping.n) from \(phone.name)\(mainActorEvidence() ? "" : " OFF MAIN")")
        }
        let exactNoArgument = Recorder<String>()
        office.register(on: .mainActor, of: Ping.self, sender: senders.phone) { _ in
            exactNoArgument.record("reload\(mainActorEvidence() ? "" : " OFF MAIN")")
        }

        await finish("posts from a detached task") {
            await Task.detached { senders.post(to: office) }.value
        }
        await mainQueueDrained()

        #expect(any.events == SenderMix.rounds.flatMap { round in (0..<5).map { "ping \(round * 10 + $0)" } })
        #expect(byKind.events == SenderMix.receivedByKind)
        #expect(byOptionalKind.events == SenderMix.receivedByOptionalKind)
        #expect(noArgument.events == Array(repeating: "reload", count: 100))
        #expect(exact.events == SenderMix.rounds.map { "ping \($0 * 10 + 2)" })
        #expect(exactWithSender.events == SenderMix.rounds.map { "ping \($0 * 10 + 2) from phone" })
        #expect(exactNoArgument.events == Array(repeating: "reload", count: 20))
        withExtendedLifetime(senders) {}
    }

    @Test(
        "A post made on the main actor delivers to main-actor methods and closures synchronously: they have run when post returns"
    )
    func postOnMainActorDeliversSynchronously() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let phone = Phone("phone")
        let models = await MainActor.run { (PingViewModel(tape: tape), PingViewModel(tape: tape)) }
        office.register(models.0, PingViewModel.receive)
        office.register(models.1, PingViewModel.receiveFromOptionalDevice)
        office.register(on: .mainActor) { (ping: Ping) in
            tape.record("closure \(ping.n)\(mainActorEvidence() ? "" : " OFF MAIN")")
        }
        office.register(on: .mainActor, sender: phone) { (ping: Ping) in
            tape.record("exact closure \(ping.n)\(mainActorEvidence() ? "" : " OFF MAIN")")
        }

        let seenWhenPostReturned = await MainActor.run { () -> [[String]] in
            office.post(Ping(n: 1))
            let afterFirst = tape.events
            office.post(Ping(n: 2), sender: phone)
            let afterSecond = tape.events
            return [afterFirst, afterSecond]
        }
        await mainQueueDrained()

        #expect(
            seenWhenPostReturned == [
                ["ping 1", "ping 1 from nil", "closure 1"],
                [
                    "ping 1", "ping 1 from nil", "closure 1", "ping 2", "ping 2 from phone", "closure 2",
                    "exact closure 2",
                ],
            ])
        #expect(tape.count == 7)
        withExtendedLifetime((models, phone)) {}
    }

    @Test(
        "A main-actor method recipient is held weakly: once released it deallocates, its registrations go and it receives nothing"
    )
    func methodRecipientIsHeldWeakly() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let deinits = Recorder<String>()
        let holder = Shared<PingViewModel?>(
            await MainActor.run { PingViewModel(tape: tape, onDeinit: { deinits.record("deinit") }) })
        weak let weakModel = holder.value
        let phone = Phone("phone")
        office.register(holder.value!, PingViewModel.receive)
        office.register(holder.value!, PingViewModel.receiveFromDevice)
        office.register(holder.value!, PingViewModel.receiveFromOptionalDevice)
        office.register(holder.value!, PingViewModel.reload)
        office.register(sender: phone, holder.value!, PingViewModel.receive)
        office.register(sender: phone, holder.value!, PingViewModel.receiveFromDevice)
        office.register(sender: phone, holder.value!, PingViewModel.reload)
        #expect(office.registrationCount == 7)

        holder.value = nil

        #expect(weakModel == nil)
        #expect(deinits.events == ["deinit"])
        #expect(office.registrationCount == 0)
        await onBackgroundThread { office.post(Ping(n: 1), sender: phone) }
        await MainActor.run { office.post(Ping(n: 2), sender: phone) }
        await mainQueueDrained()
        #expect(tape.events.isEmpty)
    }

    @Test(
        "Mail queued for a main-actor method recipient is dropped when the recipient deallocates before it runs, and its registration goes"
    )
    func queuedMailForDeallocatedRecipientIsDropped() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let controlTape = Recorder<String>()
        let deinits = Recorder<String>()
        let holder = Shared<PingViewModel?>(
            await MainActor.run { PingViewModel(tape: tape, onDeinit: { deinits.record("deinit") }) })
        weak let weakModel = holder.value
        let control = await MainActor.run { PingViewModel(tape: controlTape) }
        office.register(holder.value!, PingViewModel.receive)
        office.register(control, PingViewModel.receive)
        #expect(office.registrationCount == 2)

        // While the main actor is busy here, a background thread posts: the deliveries wait in the main queue,
        // behind this block, and the recipient deallocates before they can run.
        let postedInTime = await MainActor.run { () -> Bool in
            let posted = postFromAnotherThread {
                for n in 0..<5 {
                    office.post(Ping(n: n))
                }
            }
            let queuedSoFar = tape.count + controlTape.count
            holder.value = nil
            return posted && queuedSoFar == 0
        }
        await mainQueueDrained()

        #expect(postedInTime)
        #expect(deinits.events == ["deinit"])
        #expect(weakModel == nil)
        #expect(tape.events.isEmpty)
        #expect(controlTape.events == (0..<5).map { "ping \($0)" })
        #expect(office.registrationCount == 1)
        withExtendedLifetime(control) {}
    }

    @Test(
        "Unregistering a main-actor closure or method drops its deliveries queued on the main actor that have not run"
    )
    func unregisterDropsQueuedMainActorDeliveries() async {
        let office = PostOffice()
        let closureTape = Recorder<String>()
        let methodTape = Recorder<String>()
        let objectTape = Recorder<String>()
        let controlTape = Recorder<String>()
        let models = await MainActor.run { (PingViewModel(tape: methodTape), PingViewModel(tape: objectTape)) }
        let closure = office.register(on: .mainActor) { (ping: Ping) in closureTape.record("ping \(ping.n)") }
        let method = office.register(models.0, PingViewModel.receive)
        office.register(models.1, PingViewModel.receive)
        office.register(models.1, PingViewModel.reload)
        office.register(on: .mainActor) { (ping: Ping) in controlTape.record("ping \(ping.n)") }
        #expect(office.registrationCount == 5)

        let postedInTime = await MainActor.run { () -> Bool in
            let posted = postFromAnotherThread {
                for n in 0..<5 {
                    office.post(Ping(n: n))
                }
            }
            let queuedSoFar = closureTape.count + methodTape.count + objectTape.count + controlTape.count
            office.unregister(closure)
            office.unregister(method)
            office.unregister(models.1)
            return posted && queuedSoFar == 0
        }
        await mainQueueDrained()

        #expect(postedInTime)
        #expect(closureTape.events.isEmpty)
        #expect(methodTape.events.isEmpty)
        #expect(objectTape.events.isEmpty)
        #expect(controlTape.events == (0..<5).map { "ping \($0)" })
        #expect(office.registrationCount == 1)
        withExtendedLifetime(models) {}
    }

    @Test(
        "A post made on the main actor is not handled by a main-actor registration before mail another thread posted to it earlier"
    )
    func mainActorPostDoesNotOvertakeEarlierQueuedMail() async {
        let office = PostOffice()
        let tape = Recorder<Int>()
        office.register(on: .mainActor) { (ping: Ping) in tape.record(ping.n) }

        // Ping 1 reaches the registration (and waits in the main queue) before Ping 2 is posted on the main actor.
        let postedInTime = await MainActor.run { () -> Bool in
            let posted = postFromAnotherThread { office.post(Ping(n: 1)) }
            office.post(Ping(n: 2))
            return posted
        }
        await mainQueueDrained()

        #expect(postedInTime)
        // "Across posting threads, the order is the order in which the posts reached the registration."
        #expect(tape.events == [1, 2])
    }

    @Test("Releasing the office drops its main-actor deliveries that have not run, then releases their closures")
    func releasingTheOfficeDropsQueuedMainActorDeliveries() async {
        let tape = Recorder<String>()
        let released = Recorder<String>()
        let holder = Shared<PostOffice?>(PostOffice())
        weak let weakOffice = holder.value
        do {
            let token = Token { released.record("closure released") }
            holder.value!.register(on: .mainActor) { (ping: Ping) in
                withExtendedLifetime(token) {}
                tape.record("ping \(ping.n)")
            }
        }

        let postedInTime = await MainActor.run { () -> Bool in
            let posted = postFromAnotherThread {
                for n in 0..<5 {
                    holder.value?.post(Ping(n: n))
                }
            }
            holder.value = nil
            return posted
        }
        await mainQueueDrained()
        await released.waitForCount(1, "the handler to be released")

        #expect(postedInTime)
        #expect(weakOffice == nil)
        #expect(tape.events.isEmpty)
        #expect(released.events == ["closure released"])
    }
}

/// Runs `body` on a global-queue thread (never the caller's) and blocks the caller until it finished, for at most
/// the default timeout: from the main actor, posts made this way are queued behind the caller.
@MainActor
private func postFromAnotherThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        body()
        done.signal()
    }
    return waitFor(done, "posts from another thread", timeout: .seconds(30))
}

extension MainActorRecipientTests {
    /// Deprecated because it calls the deprecated `queue:` form on purpose; a deprecated function may, silently.
    @available(*, deprecated, message: "calls the deprecated register(queue:_:_:) of a main-actor method on purpose")
    func registerMainActorMethodWithQueue(_ office: PostOffice, _ viewModel: PingViewModel) {
        office.register(queue: DispatchQueue.global(), viewModel, PingViewModel.receive)
    }

    @Test(
        "A main-actor method registered with a queue: (deprecated, the queue is ignored) still runs on the main actor, in post order"
    )
    @available(*, deprecated, message: "exercises the deprecated form")
    func mainActorMethodWithQueueStillRunsOnMainActor() async {
        let office = PostOffice()
        let tape = Recorder<String>()
        let viewModel = await MainActor.run { PingViewModel(tape: tape) }
        registerMainActorMethodWithQueue(office, viewModel)

        await onBackgroundThread("100 posts from a global-queue thread") {
            for n in 0..<100 {
                office.post(Ping(n: n))
            }
        }
        await tape.waitForCount(100, "main-actor deliveries")

        #expect(tape.events == (0..<100).map { "ping \($0)" })
        withExtendedLifetime(viewModel) {}
    }
}

extension MainActorRecipientTests {
    /// Registers `@MainActor` closures with the forms that do not say `on: .mainActor`, half of them with a
    /// `queue:`: deprecated, because those forms are, on purpose.
    @available(*, deprecated, message: "calls the deprecated forms for @MainActor closures on purpose")
    fileprivate func registerMainActorClosuresWithoutOn(
        _ office: PostOffice, _ senders: SenderMix, _ tapes: [Recorder<String>]
    ) {
        @MainActor func evidence() -> String { mainActorEvidence() ? "" : " OFF MAIN" }
        let queue = DispatchQueue.global()
        office.register { @MainActor (ping: Ping) in tapes[0].record("ping \(ping.n)\(evidence())") }
        office.register(queue: queue) { @MainActor (ping: Ping, device: Device) in
            tapes[1].record("ping \(ping.n) from \(device.name)\(evidence())")
        }
        office.register { @MainActor (ping: Ping, device: Device?) in
            tapes[2].record("ping \(ping.n) from \(device?.name ?? "nil")\(evidence())")
        }
        let reload: @MainActor (Ping) -> Void = { _ in tapes[3].record("reload\(evidence())") }
        office.register(of: Ping.self, queue: queue, reload)
        let receive: @MainActor (Ping) -> Void = { ping in tapes[4].record("ping \(ping.n)\(evidence())") }
        office.register(of: Ping.self, sender: senders.phone, receive)
        office.register(queue: queue, sender: senders.phone) { @MainActor (ping: Ping, phone: Phone) in
            tapes[5].record("ping \(ping.n) from \(phone.name)\(evidence())")
        }
        office.register(of: Ping.self, sender: senders.phone) { @MainActor _ in tapes[6].record("reload\(evidence())") }
    }

    @Test(
        "A @MainActor closure passed to a form without on: .mainActor (deprecated), with or without queue:, runs on the main actor, as the form's sender filter says, in post order"
    )
    @available(*, deprecated, message: "exercises the deprecated forms")
    func mainActorClosureWithoutOnStillRunsOnMainActor() async {
        let office = PostOffice()
        let tapes = (0..<7).map { _ in Recorder<String>() }
        let senders = SenderMix()
        registerMainActorClosuresWithoutOn(office, senders, tapes)

        await finish("posts from a detached task") {
            await Task.detached { senders.post(to: office) }.value
        }
        await mainQueueDrained()

        #expect(tapes[0].events == SenderMix.rounds.flatMap { round in (0..<5).map { "ping \(round * 10 + $0)" } })
        #expect(tapes[1].events == SenderMix.receivedByKind)
        #expect(tapes[2].events == SenderMix.receivedByOptionalKind)
        #expect(tapes[3].events == Array(repeating: "reload", count: 100))
        #expect(tapes[4].events == SenderMix.rounds.map { "ping \($0 * 10 + 2)" })
        #expect(tapes[5].events == SenderMix.rounds.map { "ping \($0 * 10 + 2) from phone" })
        #expect(tapes[6].events == Array(repeating: "reload", count: 20))
        withExtendedLifetime(senders) {}
    }
}

/// Senders of every kind a filter tells apart, and the posts the tests above make with them.
private struct SenderMix: Sendable {
    let device = Device("device")
    let phone = Phone("phone")
    let otherPhone = Phone("other phone")
    let stranger = Stranger("stranger")

    static let rounds = 0..<20

    /// Each round posts `Ping` round * 10 + 0...4: without a sender, from the device, the phone, the stranger and
    /// the other phone.
    func post(to office: PostOffice) {
        for round in Self.rounds {
            office.post(Ping(n: round * 10))
            office.post(Ping(n: round * 10 + 1), sender: device)
            office.post(Ping(n: round * 10 + 2), sender: phone)
            office.post(Ping(n: round * 10 + 3), sender: stranger)
            office.post(Ping(n: round * 10 + 4), sender: otherPhone)
        }
    }

    /// What a `(Ping, Device)` recipient records of those posts.
    static let receivedByKind = rounds.flatMap { round in
        [
            "ping \(round * 10 + 1) from device", "ping \(round * 10 + 2) from phone",
            "ping \(round * 10 + 4) from other phone",
        ]
    }

    /// What a `(Ping, Device?)` recipient records of those posts.
    static let receivedByOptionalKind = rounds.flatMap { round in
        [
            "ping \(round * 10) from nil", "ping \(round * 10 + 1) from device", "ping \(round * 10 + 2) from phone",
            "ping \(round * 10 + 4) from other phone",
        ]
    }
}
