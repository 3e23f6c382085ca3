import Dispatch
import Mailroom
import Testing

@Suite("Re-entrancy: handlers may post, register and unregister on the same office")
struct ReentrancyTests {
    @Test("A handler that posts nested mail sees it delivered in full before the outer post continues")
    func nestedPostsAreDeliveredInOrder() {
        let office = PostOffice()
        let log = Log()
        office.register { [unowned office] (ping: Ping) in
            log.record("h1 ping \(ping.n)")
            if ping.n == 1 {
                office.post(Pong(n: 1))
                office.post(Ping(n: 2))
            }
        }
        office.register { (pong: Pong) in log.record("h2 pong \(pong.n)") }
        office.register { (ping: Ping) in log.record("h3 ping \(ping.n)") }

        office.post(Ping(n: 1))

        #expect(log.events == ["h1 ping 1", "h2 pong 1", "h1 ping 2", "h3 ping 2", "h3 ping 1"])
    }

    @Test("Nested posts with exact senders inside a post with an exact sender are delivered in order")
    func nestedPostsWithExactSenders() {
        let office = PostOffice()
        let log = Log()
        let outer = Device("outer")
        let inner = Device("inner")
        office.register(sender: outer) { [unowned office] (ping: Ping) in
            log.record("outer exact \(ping.n)")
            office.post(Ping(n: ping.n + 1), sender: inner)
        }
        office.register { (ping: Ping, sender: Device) in log.record("typed \(ping.n) from \(sender.name)") }
        office.register(sender: inner) { (ping: Ping) in log.record("inner exact \(ping.n)") }

        office.post(Ping(n: 1), sender: outer)

        #expect(
            log.events == [
                "outer exact 1", "typed 2 from inner", "inner exact 2", "typed 1 from outer",
            ])
    }

    @Test("A registration made during a post is not called by that post, but is by the next")
    func registrationDuringPostWaitsForNextPost() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        office.register { [unowned office] (ping: Ping) in
            log.record("h1 \(ping.n)")
            if ping.n == 1 {
                office.register { (ping: Ping) in log.record("late any \(ping.n)") }
                office.register(sender: device) { (ping: Ping) in log.record("late exact \(ping.n)") }
                office.register { (ping: Ping, _: Device) in log.record("late typed \(ping.n)") }
            }
        }
        office.register { (ping: Ping) in log.record("h2 \(ping.n)") }

        office.post(Ping(n: 1), sender: device)
        #expect(log.events == ["h1 1", "h2 1"])
        #expect(office.registrationCount == 5)
        log.removeAll()

        office.post(Ping(n: 2), sender: device)
        #expect(log.events == ["h1 2", "h2 2", "late any 2", "late exact 2", "late typed 2"])
    }

    @Test("A registration unregistered by an earlier handler of the same post is not called later in that post")
    func unregisteredDuringPostIsNotCalledLater() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        let screen = Screen("screen", log: log)
        let victims = Shared<[RecipientId]>([])
        office.register { [unowned office] (ping: Ping) in
            log.record("h1 \(ping.n)")
            if ping.n == 1 {
                for id in victims.value {
                    office.unregister(id)
                }
                office.unregister(screen)
            }
        }
        office.register { (ping: Ping) in log.record("h2 \(ping.n)") }
        let typed = office.register { (ping: Ping, _: Device) in log.record("victim typed \(ping.n)") }
        let exact = office.register(sender: device) { (ping: Ping) in log.record("victim exact \(ping.n)") }
        office.register(screen, Screen.receivePing)
        office.register { (ping: Ping) in log.record("h3 \(ping.n)") }
        victims.value = [typed, exact]

        office.post(Ping(n: 1), sender: device)
        office.post(Ping(n: 2), sender: device)

        #expect(log.events == ["h1 1", "h2 1", "h3 1", "h1 2", "h2 2", "h3 2"])
        #expect(office.registrationCount == 3)
    }

    @Test(
        "A handler that removes a sender's last exact registration and adds a new one mid-post: the old one is skipped, the new one waits for the next post"
    )
    func replacingTheOnlyExactRegistrationDuringPost() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        let oldExact = Shared<RecipientId?>(nil)
        office.register { [unowned office] (ping: Ping) in
            log.record("h0 \(ping.n)")
            if ping.n == 1, let id = oldExact.value {
                office.unregister(id)
                office.register(sender: device) { (ping: Ping) in log.record("new exact \(ping.n)") }
            }
        }
        oldExact.value = office.register(sender: device) { (ping: Ping) in log.record("old exact \(ping.n)") }
        office.register { (ping: Ping) in log.record("h2 \(ping.n)") }

        office.post(Ping(n: 0), sender: device)
        office.post(Ping(n: 1), sender: device)
        office.post(Ping(n: 2), sender: device)

        #expect(log.events == ["h0 0", "old exact 0", "h2 0", "h0 1", "h2 1", "h0 2", "h2 2", "new exact 2"])
        #expect(office.registrationCount == 3)
    }

    @Test("A handler that unregisters itself is not called again")
    func handlerUnregisteringItself() {
        let office = PostOffice()
        let log = Log()
        let ownId = Shared<RecipientId?>(nil)
        ownId.value = office.register { [unowned office] (ping: Ping) in
            log.record("once \(ping.n)")
            if let id = ownId.value {
                office.unregister(id)
            }
        }
        office.register { (ping: Ping) in log.record("always \(ping.n)") }

        office.post(Ping(n: 1))
        office.post(Ping(n: 2))
        office.post(Ping(n: 3))

        #expect(log.events == ["once 1", "always 1", "always 2", "always 3"])
        #expect(office.registrationCount == 1)
    }

    @Test(
        "A handler that registers enough to outgrow the route, then one that unregisters a later one: the removed one is skipped"
    )
    func unregisterAfterRouteOutgrownDuringPost() {
        let office = PostOffice()
        let log = Log()
        let victim = Shared<RecipientId?>(nil)
        office.register { [unowned office] (ping: Ping) in
            log.record("grower \(ping.n)")
            if ping.n == 2 {
                for index in 0..<12 {
                    office.register { (ping: Ping) in log.record("added\(index) \(ping.n)") }
                }
            }
        }
        office.register { [unowned office] (ping: Ping) in
            log.record("remover \(ping.n)")
            if ping.n == 2, let id = victim.value {
                office.unregister(id)
            }
        }
        victim.value = office.register { (ping: Ping) in log.record("victim \(ping.n)") }
        office.register { (ping: Ping) in log.record("last \(ping.n)") }
        office.post(Ping(n: 1))
        log.removeAll()

        office.post(Ping(n: 2))
        #expect(log.events == ["grower 2", "remover 2", "last 2"])
        log.removeAll()

        office.post(Ping(n: 3))
        #expect(log.events == ["grower 3", "remover 3", "last 3"] + (0..<12).map { "added\($0) 3" })
    }

    @Test(
        "A handler that unregisters most later registrations and registers new ones: only the survivors are called, the new ones next time"
    )
    func massUnregisterDuringPost() {
        let office = PostOffice()
        let log = Log()
        let later = Shared<[RecipientId]>([])
        office.register { [unowned office] (ping: Ping) in
            log.record("first \(ping.n)")
            guard ping.n == 1 else { return }
            for (index, id) in later.value.enumerated() where index >= 9 {
                office.unregister(id)
            }
            for index in 0..<3 {
                office.register { (ping: Ping) in log.record("new\(index) \(ping.n)") }
            }
        }
        let ids = (0..<39).map { index in
            office.register { (ping: Ping) in log.record("later\(index) \(ping.n)") }
        }
        later.value = ids

        office.post(Ping(n: 1))
        office.post(Ping(n: 2))

        #expect(
            log.events == ["first 1"] + (0..<9).map { "later\($0) 1" }
                + ["first 2"] + (0..<9).map { "later\($0) 2" } + (0..<3).map { "new\($0) 2" })
        #expect(office.registrationCount == 13)
    }

    @Test("Handlers may read registrationCount and unregister objects during a post without deadlock")
    func inspectingAndUnregisteringObjectsDuringPost() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        office.register { [unowned office] (ping: Ping) in
            log.record("count \(office.registrationCount)")
            office.unregister(screen)
            log.record("count after \(office.registrationCount)")
        }
        office.register(screen, Screen.receivePing)
        office.register(screen, Screen.receivePingFromOptionalDevice)

        office.post(Ping(n: 1))

        #expect(log.events == ["count 3", "count after 1"])
    }

    @Test("A queued handler may post and register on the office it is delivered by")
    func queuedHandlerPostsAndRegisters() {
        let office = PostOffice()
        let queue = DispatchQueue(label: "mailroom.tests.queued-reentrancy")
        let log = Log()
        office.register(queue: queue) { [unowned office] (ping: Ping) in
            log.record("queued ping \(ping.n)")
            office.register { (pong: Pong) in log.record("registered from queue got pong \(pong.n)") }
            office.post(Pong(n: ping.n))
        }

        office.post(Ping(n: 7))
        drain(queue)

        #expect(log.events == ["queued ping 7", "registered from queue got pong 7"])
        #expect(office.registrationCount == 2)
    }

    @Test("A closure's captured object whose deinit calls back into the office is released without deadlock")
    func deinitCallingBackIntoTheOffice() {
        let office = PostOffice()
        let log = Log()
        let other = office.register { (ping: Ping) in log.record("other \(ping.n)") }
        let released = DispatchSemaphore(value: 0)
        let token = Token {
            office.unregister(other)
            office.register { (ping: Ping) in log.record("from deinit \(ping.n)") }
            released.signal()
        }
        let id = office.register { [token] (_: Ping) in _ = token }
        _ = consume token

        office.unregister(id)

        guard waitFor(released, "the captured object's deinit") else { return }
        #expect(office.registrationCount == 1)
        office.post(Ping(n: 1))
        #expect(log.events == ["from deinit 1"])
    }
}
