import Dispatch
import Mailroom
import Testing

@Suite("Tokens and registrations tied to an owner")
struct LifetimeTests {
    // MARK: - Tokens

    @Test("A token removes its registration when it is released")
    func tokenRemovesOnRelease() {
        let office = PostOffice()
        let log = Log()
        office.register { (ping: Ping) in log.record("kept \(ping.n)") }
        weak var weakToken: RecipientToken?
        do {
            let id = office.register { (ping: Ping) in log.record("token \(ping.n)") }
            let token = office.token(for: id)
            weakToken = token
            #expect(token.id == id)
            #expect(office.registrationCount == 2)
            office.post(Ping(n: 1))
            withExtendedLifetime(token) {}
        }

        #expect(weakToken == nil)
        #expect(office.registrationCount == 1)
        office.post(Ping(n: 2))
        #expect(log.events == ["kept 1", "token 1", "kept 2"])
    }

    @Test("Cancelling a token removes its registration; cancelling again or releasing it changes nothing more")
    func tokenCancelIsIdempotent() {
        let office = PostOffice()
        let log = Log()
        var token: RecipientToken? = office.token(
            for: office.register { (ping: Ping) in log.record("token \(ping.n)") })
        let other = office.register { (ping: Ping) in log.record("other \(ping.n)") }
        office.register(conformingTo: Alert.self) { alert in log.record(alert.message) }
        #expect(office.registrationCount == 3)

        token?.cancel()
        #expect(office.registrationCount == 2)
        office.post(Ping(n: 1))
        token?.cancel()
        #expect(office.registrationCount == 2)
        token = nil
        #expect(office.registrationCount == 2)
        office.post(Ping(n: 2))
        office.post(DiskFull(percent: 3))

        #expect(log.events == ["other 1", "other 2", "disk 3%"])
        office.unregister(other)
        #expect(office.registrationCount == 1)
    }

    @Test("Tokens are equal only to themselves, and do not keep their office alive")
    func tokenIdentityAndOfficeLifetime() {
        var office: PostOffice? = PostOffice()
        weak let weakOffice = office
        let id = office!.register { (_: Ping) in }
        let first = office!.token(for: id)
        let second = office!.token(for: id)
        #expect(first == first)
        #expect(first != second)
        #expect(Set([first, second, first]).count == 2)

        office = nil
        #expect(weakOffice == nil)
        first.cancel()
        withExtendedLifetime((first, second)) {}
    }

    @Test("A token for a protocol registration removes it when released")
    func tokenForProtocolRegistration() {
        let office = PostOffice()
        let log = Log()
        var token: RecipientToken? = office.token(
            for: office.register(conformingTo: Alert.self) { alert in log.record(alert.message) })
        office.post(Siren.fire)
        withExtendedLifetime(token) {}
        token = nil
        office.post(Siren.flood(level: 1))

        #expect(log.events == ["siren fire"])
        #expect(office.registrationCount == 0)
    }

    // MARK: - Tied to an owner

    @Test("Closure, method, queue, protocol and sequence registrations tied to an owner go when it deallocates")
    func tiedRegistrationsGoWithTheirOwner() async {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let queue = DispatchQueue(label: "feature.tie.queue")
        let ownerGone = Shared(false)
        var owner: Token? = Token { ownerGone.value = true }

        office.register { (ping: Ping) in log.record("outside \(ping.n)") }
        office.register(tiedTo: owner!) { (ping: Ping) in log.record("closure \(ping.n)") }
        office.register(tiedTo: owner!, screen, Screen.receivePing)
        office.register(queue: queue, tiedTo: owner!) { (ping: Ping) in log.record("queue \(ping.n)") }
        office.register(conformingTo: Alert.self, tiedTo: owner!) { alert in log.record("alert \(alert.message)") }
        let sequence = office.mail(of: Ping.self, tiedTo: owner!)
        office.register { (ping: Ping) in log.record("after \(ping.n)") }
        #expect(office.registrationCount == 7)

        let gate = block(queue)
        office.post(Ping(n: 1))
        office.post(Siren.fire)
        gate.open()
        await queueDrained(queue)
        #expect(log.events == ["outside 1", "closure 1", "screen 1", "after 1", "alert siren fire", "queue 1"])
        log.removeAll()

        owner = nil
        #expect(ownerGone.value)
        // Nothing reaches the tied registrations any more, before anything reclaims them.
        office.post(Ping(n: 2))
        office.post(Siren.flood(level: 2))
        await queueDrained(queue)
        #expect(log.events == ["outside 2", "after 2"])

        #expect(office.registrationCount == 2)
        // The sequence got the one mail posted while the owner lived, then ended with its registration.
        let received = await finish("the tied sequence to end") {
            var received: [Int] = []
            for await ping in sequence {
                received.append(ping.n)
            }
            return received
        }
        #expect(received == [1])
    }

    @Test("unregister(object) removes the registrations tied to the object, and those of its methods; not others")
    func unregisterObjectRemovesTiedRegistrations() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let owner = Token()
        office.register(tiedTo: owner) { (ping: Ping) in log.record("tied \(ping.n)") }
        office.intercept(tiedTo: owner) { (ping: Ping) -> Consumption in
            log.record("tied interceptor \(ping.n)")
            return .passOn
        }
        office.register(tiedTo: owner, screen, Screen.receivePing)
        office.register(tiedTo: screen, screen, Screen.receivePing)
        office.register { (ping: Ping) in log.record("untied \(ping.n)") }
        office.register(sender: owner) { (ping: Ping) in log.record("from owner \(ping.n)") }
        #expect(office.registrationCount == 6)

        office.unregister(owner)
        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: owner)
        #expect(log.events == ["screen 1", "untied 1", "screen 2", "untied 2", "from owner 2"])
        #expect(office.registrationCount == 3)

        // The method registration tied to its own recipient is found once, and removed once.
        office.unregister(screen)
        office.post(Ping(n: 3))
        #expect(log.events.suffix(1) == ["untied 3"])
        #expect(office.registrationCount == 2)
    }

    @Test("A closure stored in a variable is passed to the plain forms as it is, with or without parameters")
    func storedClosures() {
        let office = PostOffice()
        let log = Log()
        let queue = DispatchQueue(label: "feature.stored.queue")
        let handler: @Sendable (Ping) -> Void = { ping in log.record("stored \(ping.n)") }
        let device = Device("device")
        office.register(handler)
        office.register(priority: .high, handler)
        office.register(sender: device, handler)
        office.register(queue: queue, handler)
        office.post(Ping(n: 1), sender: device)
        queue.sync {}
        #expect(log.events == ["stored 1", "stored 1", "stored 1", "stored 1"])
    }

    @Test("A tied closure registration releases its closure when its owner deallocates and it is reclaimed")
    func tiedClosureIsReleased() {
        let office = PostOffice()
        let closureGone = Shared(false)
        let released = DispatchSemaphore(value: 0)
        var owner: Token? = Token()
        do {
            let capture = Token {
                closureGone.value = true
                released.signal()
            }
            office.register(tiedTo: owner!) { (_: Ping) in withExtendedLifetime(capture) {} }
        }
        #expect(!closureGone.value)
        owner = nil
        #expect(!closureGone.value)
        #expect(office.registrationCount == 0)
        // Released at once, or as soon as posts running on other threads (other tests) have finished.
        waitFor(released, "the tied closure's captured object to deallocate")
    }

    @Test("A tied closure that captures its owner weakly lets the owner deallocate")
    func weakCaptureOfOwner() {
        let office = PostOffice()
        let log = Log()
        var widget: Screen? = Screen("widget", log: log)
        weak let weakWidget = widget
        office.register(tiedTo: widget!) { [weak widget] (ping: Ping) in widget?.receivePing(ping) }
        office.post(Ping(n: 1))

        widget = nil
        #expect(weakWidget == nil)
        office.post(Ping(n: 2))
        #expect(log.events == ["widget 1"])
        #expect(office.registrationCount == 0)
    }

    @Test("Registrations made without tiedTo:, before or after a tied one, are not tied")
    func untiedRegistrationsAreNotTied() {
        let office = PostOffice()
        let log = Log()
        var owner: Token? = Token()
        let before = office.register { (ping: Ping) in log.record("before \(ping.n)") }
        let inside = office.register(tiedTo: owner!) { (ping: Ping) in log.record("inside \(ping.n)") }
        let after = office.register { (ping: Ping) in log.record("after \(ping.n)") }
        #expect(office.registrations.map(\.isTiedToOwner) == [false, true, false])
        #expect(office.registrations.map(\.id) == [before, inside, after])

        owner = nil
        office.post(Ping(n: 1))
        #expect(log.events == ["before 1", "after 1"])
        #expect(office.registrations.map(\.id) == [before, after])
    }

    @Test("once: true and tiedTo: combine: a registration is both one-shot and tied, and goes at whichever comes first")
    func oneShotAndTieCombine() {
        let office = PostOffice()
        let log = Log()
        let owner = Token()
        var shortLived: Token? = Token()
        let both = office.register(once: true, tiedTo: owner) { (ping: Ping) in log.record("both \(ping.n)") }
        let reversed = office.register(once: true, tiedTo: shortLived!) { (ping: Ping) in
            log.record("reversed \(ping.n)")
        }
        let oneShotOnly = office.register(once: true) { (ping: Ping) in log.record("one-shot \(ping.n)") }
        let plain = office.register { (ping: Ping) in log.record("plain \(ping.n)") }
        let infos = office.registrations
        #expect(infos.map(\.id) == [both, reversed, oneShotOnly, plain])
        #expect(infos.map(\.isOneShot) == [true, true, true, false])
        #expect(infos.map(\.isTiedToOwner) == [true, true, false, false])

        shortLived = nil
        office.post(Ping(n: 1))
        office.post(Ping(n: 2))

        #expect(log.events == ["both 1", "one-shot 1", "plain 1", "plain 2"])
        #expect(office.registrations.map(\.id) == [plain])
        withExtendedLifetime(owner) {}
    }

    // MARK: - once: and tiedTo: with the other choices, and handlers that ignore their mail

    @Test(
        "once: true with sender: is spent by the first post of that sender only, on the closure, method and protocol forms"
    )
    func onceWithSender() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let device = Device("device")
        let other = Device("other")
        office.register(sender: device, once: true) { (ping: Ping) in log.record("closure \(ping.n)") }
        office.register(sender: device, once: true) { (ping: Ping, from: Device) in
            log.record("with sender \(ping.n) from \(from.name)")
        }
        office.register(sender: device, once: true, screen, Screen.receivePing)
        office.register(sender: device, conformingTo: Alert.self, once: true) { alert in
            log.record("alert \(alert.message)")
        }
        office.register(of: Chime.self, sender: device, once: true) { _ in log.record("chime") }
        #expect(office.registrationCount == 5)

        // Posts from no sender or another one are not theirs: they stay.
        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: other)
        office.post(Siren.fire, sender: other)
        office.post(Chime())
        #expect(log.events.isEmpty)
        #expect(office.registrationCount == 5)

        office.post(Ping(n: 3), sender: device)
        office.post(Ping(n: 4), sender: device)
        office.post(Siren.flood(level: 5), sender: device)
        office.post(Siren.fire, sender: device)
        office.post(Chime(), sender: device)
        office.post(Chime(), sender: device)

        #expect(log.events == ["closure 3", "with sender 3 from device", "screen 3", "alert siren flood 5", "chime"])
        #expect(office.registrationCount == 0)
    }

    @Test("A one-shot registration for an exact sender that deallocates before it posts is gone, never delivered")
    func onceWithSenderThatGoes() {
        let office = PostOffice()
        let log = Log()
        do {
            let device = Device("gone")
            office.register(sender: device, once: true) { (ping: Ping) in log.record("exact \(ping.n)") }
            office.register(sender: device, once: true) { (ping: Ping, from: Device) in
                log.record("exact \(ping.n) from \(from.name)")
            }
            #expect(office.registrationCount == 2)
        }

        #expect(office.registrationCount == 0)
        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: Device("another"))
        #expect(log.events.isEmpty)
    }

    @Test(
        "once: true with queue: delivers exactly one post, on the queue, for the closure, method, protocol and exact-sender forms"
    )
    func onceWithQueue() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let device = Device("device")
        let marked = MarkedQueue("feature.lifetime.once-queue")
        office.register(queue: marked.queue, once: true) { (ping: Ping) in
            log.record("closure \(ping.n) on \(marked.currentLabel ?? "another queue")")
        }
        office.register(queue: marked.queue, once: true, screen, Screen.receivePing)
        office.register(queue: marked.queue, conformingTo: Alert.self, once: true) { alert in
            log.record("\(alert.message) on \(marked.currentLabel ?? "another queue")")
        }
        office.register(queue: marked.queue, sender: device, once: true) { (ping: Ping, from: Device) in
            log.record("exact \(ping.n) from \(from.name) on \(marked.currentLabel ?? "another queue")")
        }
        #expect(office.registrationCount == 4)

        let gate = block(marked.queue)
        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: device)
        office.post(Siren.fire)
        office.post(Siren.flood(level: 3))
        office.post(Ping(n: 4), sender: device)
        // Spent at their first post, before the queue runs any of their deliveries.
        #expect(office.registrationCount == 0)
        gate.open()
        drain(marked.queue)

        #expect(
            log.events == [
                "closure 1 on feature.lifetime.once-queue", "screen 1",
                "exact 2 from device on feature.lifetime.once-queue", "siren fire on feature.lifetime.once-queue",
            ])
    }

    @Test(
        "A one-shot queue registration, for any sender and for one, is delivered exactly once when 8 threads post at the same moment (100 rounds)"
    )
    func onceWithQueueUnderConcurrentPosts() {
        let rounds = 100
        let threads = 8
        let device = Device("device")
        let queue = DispatchQueue(label: "feature.lifetime.once-queue.race")
        let offices = (0..<rounds).map { _ in PostOffice() }
        let anyCounts = (0..<rounds).map { _ in Shared(0) }
        let exactCounts = (0..<rounds).map { _ in Shared(0) }
        for round in 0..<rounds {
            let (anyCount, exactCount) = (anyCounts[round], exactCounts[round])
            offices[round].register(queue: queue, once: true) { (_: Ping) in anyCount.update { $0 += 1 } }
            offices[round].register(queue: queue, sender: device, once: true) { (_: Ping) in
                exactCount.update { $0 += 1 }
            }
        }
        let barrier = ThreadBarrier(parties: threads)

        runOnThreads(threads, timeout: .seconds(60)) { index in
            for round in 0..<rounds {
                guard barrier.arriveAndWait() else { return }
                offices[round].post(Ping(n: index), sender: device)
            }
        }
        drain(queue)

        #expect(!barrier.broke)
        #expect(anyCounts.map(\.value) == Array(repeating: 1, count: rounds))
        #expect(exactCounts.map(\.value) == Array(repeating: 1, count: rounds))
        #expect(offices.map(\.registrationCount) == Array(repeating: 0, count: rounds))
    }

    @Test(
        "A method registration tied to an owner goes when the owner deallocates, though its recipient lives on, and when its recipient goes first"
    )
    func tiedMethodRegistrations() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let untied = Screen("untied", log: log)
        let device = Device("device")
        let queue = DispatchQueue(label: "feature.lifetime.tied-method")
        var owner: Token? = Token()
        office.register(tiedTo: owner!, screen, Screen.receivePing)
        office.register(queue: queue, tiedTo: owner!, screen, Screen.receivePong)
        office.register(sender: device, tiedTo: owner!, screen, Screen.receivePingFromDevice)
        office.register(untied, Screen.receivePing)
        #expect(office.registrationCount == 4)

        office.post(Ping(n: 1), sender: device)
        office.post(Pong(n: 1))
        drain(queue)
        #expect(log.events == ["screen 1", "screen 1 from device", "untied 1", "screen pong 1"])
        log.removeAll()

        owner = nil
        office.post(Ping(n: 2), sender: device)
        office.post(Pong(n: 2))
        drain(queue)
        #expect(log.events == ["untied 2"])
        #expect(office.registrationCount == 1)
        log.removeAll()

        // Tied to an owner that outlives it, the method registration still goes with its recipient.
        let longLived = Token()
        do {
            let temporary = Screen("temporary", log: log)
            office.register(tiedTo: longLived, temporary, Screen.receivePing)
            office.post(Ping(n: 3))
        }
        #expect(office.registrationCount == 1)
        office.post(Ping(n: 4))
        #expect(log.events == ["untied 3", "temporary 3", "untied 4"])
        withExtendedLifetime((screen, untied, longLived)) {}
    }

    @Test(
        "conformingTo: registrations tied to an owner, on the posting thread, a queue, the main actor and a task, go when it deallocates"
    )
    func tiedProtocolRegistrations() async throws {
        let office = PostOffice()
        let log = Log()
        let deferred = Log()
        let queue = DispatchQueue(label: "feature.lifetime.tied-protocol")
        let phone = Phone("phone")
        var owner: Token? = Token()
        office.register(conformingTo: Alert.self, tiedTo: owner!) { alert in log.record("alert \(alert.message)") }
        office.register(conformingTo: Alert.self, tiedTo: owner!) { (alert, from: Phone) in
            log.record("alert \(alert.message) from \(from.name)")
        }
        office.register(queue: queue, conformingTo: Alert.self, tiedTo: owner!) { alert in
            deferred.record("queue \(alert.message)")
        }
        office.register(on: .mainActor, conformingTo: Alert.self, tiedTo: owner!) { alert in
            deferred.record("main actor \(alert.message)\(mainActorEvidence() ? "" : " OFF MAIN")")
        }
        office.register(conformingTo: Alert.self, tiedTo: owner!) { (alert: any Alert) async in
            deferred.record("task \(alert.message)")
        }
        office.register(conformingTo: Alert.self) { alert in log.record("untied \(alert.message)") }
        #expect(office.registrationCount == 6)

        try await office.deliver(Siren.fire, sender: phone)
        #expect(log.events == ["alert siren fire", "alert siren fire from phone", "untied siren fire"])
        #expect(deferred.events.sorted() == ["main actor siren fire", "queue siren fire", "task siren fire"])
        log.removeAll()
        deferred.removeAll()

        owner = nil
        try await office.deliver(DiskFull(percent: 90), sender: phone)
        try await office.deliver(Siren.flood(level: 2))

        #expect(log.events == ["untied disk 90%", "untied siren flood 2"])
        #expect(deferred.events.isEmpty)
        #expect(office.registrationCount == 1)
    }

    @Test(
        "A registration tied to an owner created in its call, released as the call returns, is not counted and receives nothing"
    )
    func tiedToATemporary() async throws {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        office.register(tiedTo: Token()) { (ping: Ping) in log.record("closure \(ping.n)") }
        office.register(tiedTo: Token(), screen, Screen.receivePing)
        office.register(conformingTo: Alert.self, tiedTo: Token()) { alert in log.record(alert.message) }
        office.register(on: .mainActor, tiedTo: Token()) { (ping: Ping) in log.record("main actor \(ping.n)") }
        office.register(tiedTo: Token()) { (ping: Ping) async in log.record("task \(ping.n)") }
        office.register(of: SignedOut.self, once: true, tiedTo: Token()) { _ in log.record("signed out") }

        #expect(office.registrationCount == 0)
        try await office.deliver(Ping(n: 1))
        try await office.deliver(Siren.fire)
        try await office.deliver(SignedOut())
        #expect(log.events.isEmpty)
        withExtendedLifetime(screen) {}
    }

    @Test(
        "register(of: SignedOut.self) { _ in }: plain, main-actor and async handlers that ignore their mail receive each post of it once, from any sender or one"
    )
    func handlersThatIgnoreTheirMail() async throws {
        let office = PostOffice()
        let plain = Log()
        let mainActor = Log()
        let task = Log()
        let device = Device("device")
        office.register(of: SignedOut.self) { _ in plain.record("any") }
        office.register(of: SignedOut.self, sender: device) { _ in plain.record("exact") }
        office.register(on: .mainActor, of: SignedOut.self) { _ in
            mainActor.record("any\(mainActorEvidence() ? "" : " OFF MAIN")")
        }
        office.register(on: .mainActor, of: SignedOut.self, sender: device) { _ in
            mainActor.record("exact\(mainActorEvidence() ? "" : " OFF MAIN")")
        }
        office.register(of: SignedOut.self) { _ async in task.record("any") }
        office.register(of: SignedOut.self, sender: device) { _ async in task.record("exact") }
        #expect(office.registrationCount == 6)

        try await office.deliver(SignedOut())
        try await office.deliver(SignedOut(), sender: device)
        try await office.deliver(Ping(n: 1), sender: device)
        try await office.deliver(SignedOut(), sender: Device("other"))

        #expect(plain.events == ["any", "any", "exact", "any"])
        #expect(mainActor.events == ["any", "any", "exact", "any"])
        #expect(task.events.filter { $0 == "any" }.count == 3)
        #expect(task.events.filter { $0 == "exact" }.count == 1)
        #expect(office.registrationCount == 6)
    }

    @Test(
        "register(of: SignedOut.self, once: true) { _ in } and with tiedTo:, plain, main-actor and async: one delivery each, or none once the owner is gone"
    )
    func handlersThatIgnoreTheirMailWithLifetimes() async throws {
        let office = PostOffice()
        let once = Log()
        let tied = Log()
        var owner: Token? = Token()
        office.register(of: SignedOut.self, once: true) { _ in once.record("plain") }
        office.register(on: .mainActor, of: SignedOut.self, once: true) { _ in once.record("main actor") }
        office.register(of: SignedOut.self, once: true) { _ async in once.record("task") }
        office.register(of: SignedOut.self, tiedTo: owner!) { _ in tied.record("plain") }
        office.register(on: .mainActor, of: SignedOut.self, tiedTo: owner!) { _ in tied.record("main actor") }
        office.register(of: SignedOut.self, tiedTo: owner!) { _ async in tied.record("task") }
        #expect(office.registrationCount == 6)

        try await office.deliver(SignedOut())
        try await office.deliver(SignedOut())
        #expect(once.events.sorted() == ["main actor", "plain", "task"])
        #expect(tied.events.sorted() == ["main actor", "main actor", "plain", "plain", "task", "task"])
        #expect(office.registrationCount == 3)

        owner = nil
        try await office.deliver(SignedOut())
        #expect(once.events.count == 3)
        #expect(tied.events.count == 6)
        #expect(office.registrationCount == 0)
    }
}

/// Mail whose arrival is the whole news: its handlers name its type and ignore the value.
private struct SignedOut: Mail {}
