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
        let sequence = office.tie(to: owner!) {
            office.register { (ping: Ping) in log.record("closure \(ping.n)") }
            office.register(screen, Screen.receivePing)
            office.register(queue: queue) { (ping: Ping) in log.record("queue \(ping.n)") }
            office.register(conformingTo: Alert.self) { alert in log.record("alert \(alert.message)") }
            return office.mail(of: Ping.self)
        }
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
            office.tie(to: owner!) {
                office.register { (_: Ping) in withExtendedLifetime(capture) {} }
            }
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
        office.tie(to: widget!) {
            office.register { [weak widget] (ping: Ping) in widget?.receivePing(ping) }
        }
        office.post(Ping(n: 1))

        widget = nil
        #expect(weakWidget == nil)
        office.post(Ping(n: 2))
        #expect(log.events == ["widget 1"])
        #expect(office.registrationCount == 0)
    }

    @Test("Registrations made outside tie(to:), before or after it, are not tied")
    func outsideRegistrationsAreNotTied() {
        let office = PostOffice()
        let log = Log()
        var owner: Token? = Token()
        let before = office.register { (ping: Ping) in log.record("before \(ping.n)") }
        let inside = office.tie(to: owner!) { office.register { (ping: Ping) in log.record("inside \(ping.n)") } }
        let after = office.register { (ping: Ping) in log.record("after \(ping.n)") }
        #expect(office.registrations.map(\.isTiedToOwner) == [false, true, false])
        #expect(office.registrations.map(\.id) == [before, inside, after])

        owner = nil
        office.post(Ping(n: 1))
        #expect(log.events == ["before 1", "after 1"])
        #expect(office.registrations.map(\.id) == [before, after])
    }

    @Test("Nested oneShot and tie(to:) combine: a registration is both one-shot and tied, in either nesting")
    func oneShotAndTieCombine() {
        let office = PostOffice()
        let log = Log()
        let owner = Token()
        var shortLived: Token? = Token()
        let both = office.oneShot {
            office.tie(to: owner) { office.register { (ping: Ping) in log.record("both \(ping.n)") } }
        }
        let reversed = office.tie(to: shortLived!) {
            office.oneShot { office.register { (ping: Ping) in log.record("reversed \(ping.n)") } }
        }
        let oneShotOnly = office.oneShot {
            office.tie(to: owner) {}
            return office.register { (ping: Ping) in log.record("one-shot \(ping.n)") }
        }
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
}
