// Bad input at run time: duplicate registrations, ids that mean nothing to an office, posts nobody listens to,
// posts from a deinit, and releasing an office while its deliveries are queued.

import Dispatch
import Foundation
import Mailroom
import Testing

/// A method recipient whose deinit posts `Ping(n: 99)` and `Pong(n: 99)` to its office.
private final class Farewell: Sendable {
    let name: String
    let log: Log
    weak let office: PostOffice?
    /// Cleared by `receiveAndLetGo`: when it holds the last strong reference, the recipient deinitializes.
    let holder: Shared<Farewell?>?

    init(_ name: String, log: Log, office: PostOffice, holder: Shared<Farewell?>? = nil) {
        self.name = name
        self.log = log
        self.office = office
        self.holder = holder
    }

    func receive(_ ping: Ping) {
        log.record("\(name) got \(ping.n)")
    }

    /// Receives, then drops what may be the last strong reference to itself.
    func receiveAndLetGo(_ ping: Ping) {
        log.record("\(name) got \(ping.n)")
        let last = holder?.update { held -> Farewell? in
            defer { held = nil }
            return held
        }
        withExtendedLifetime(last) {}
    }

    deinit {
        log.record("\(name) deinit")
        office?.post(Ping(n: 99))
        office?.post(Pong(n: 99))
        log.record("\(name) deinit end")
    }
}

/// Takes the value out of `shared`, so that it is released outside its lock, when the caller drops it.
private func take<Value>(_ shared: Shared<Value?>) -> Value? {
    shared.update { value -> Value? in
        defer { value = nil }
        return value
    }
}

@Suite("Bad input at run time")
struct BadInputTests {
    // MARK: Duplicates

    @Test(
        "Registering the same closure twice, in every form, gives two ids and two deliveries per post; unregistering one leaves one"
    )
    func sameClosureTwice() {
        let office = PostOffice()
        let device = Device("device")
        let log = Log()
        let plain: @Sendable (Ping) -> Void = { log.record("plain \($0.n)") }
        let typed: @Sendable (Ping, Device) -> Void = { log.record("typed \($0.n) \($1.name)") }
        let optional: @Sendable (Ping, Device?) -> Void = { log.record("optional \($0.n) \($1?.name ?? "nil")") }
        let bare: @Sendable (Ping) -> Void = { _ in log.record("bare") }
        let exact: @Sendable (Ping) -> Void = { log.record("exact \($0.n)") }
        var ids: [RecipientId] = []
        for _ in 0..<2 {
            // A function value (not a trailing closure) for an `(M)` form names its mail type: the form's defaulted
            // `_ mailType` comes before its handler, and an unlabeled argument fills it first.
            ids.append(office.register(of: Ping.self, plain))
            ids.append(office.register(typed))
            ids.append(office.register(optional))
            ids.append(office.register(of: Ping.self, bare))
            ids.append(office.register(of: Ping.self, sender: device, exact))
        }

        #expect(Set(ids).count == 10)
        #expect(office.registrationCount == 10)
        office.post(Ping(n: 1), sender: device)
        #expect(
            log.events == [
                "plain 1", "typed 1 device", "optional 1 device", "bare", "exact 1",
                "plain 1", "typed 1 device", "optional 1 device", "bare", "exact 1",
            ])
        log.removeAll()

        for id in ids.prefix(5) {
            office.unregister(id)
        }
        office.post(Ping(n: 2), sender: device)
        #expect(log.events == ["plain 2", "typed 2 device", "optional 2 device", "bare", "exact 2"])
        #expect(office.registrationCount == 5)
    }

    @Test("Registering the same closure twice on a queue delivers each post twice, in order")
    func sameClosureTwiceOnQueue() {
        let office = PostOffice()
        let queue = DispatchQueue(label: "mailroom.tests.reliability.same-closure")
        let received = Recorder<Int>()
        let handler: @Sendable (Ping) -> Void = { received.record($0.n) }
        let first = office.register(of: Ping.self, queue: queue, handler)
        let second = office.register(of: Ping.self, queue: queue, handler)

        office.post(Ping(n: 1))
        office.post(Ping(n: 2))
        drain(queue)

        #expect(first != second)
        #expect(received.events == [1, 1, 2, 2])
    }

    @Test(
        "Registering the same method of the same recipient twice gives two ids and two deliveries per post; unregister(object) removes both"
    )
    func sameMethodTwice() {
        let office = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let device = Device("device")
        let first = office.register(screen, Screen.receivePing)
        let second = office.register(screen, Screen.receivePing)
        let exactFirst = office.register(sender: device, screen, Screen.receivePingFromDevice)
        let exactSecond = office.register(sender: device, screen, Screen.receivePingFromDevice)

        #expect(Set([first, second, exactFirst, exactSecond]).count == 4)
        office.post(Ping(n: 1), sender: device)
        #expect(log.events == ["screen 1", "screen 1", "screen 1 from device", "screen 1 from device"])
        log.removeAll()

        office.unregister(first)
        office.unregister(exactSecond)
        office.post(Ping(n: 2), sender: device)
        #expect(log.events == ["screen 2", "screen 2 from device"])
        log.removeAll()

        office.unregister(screen)
        office.post(Ping(n: 3), sender: device)
        #expect(log.events == [])
        #expect(office.registrationCount == 0)
    }

    // MARK: Ids that mean nothing here

    @Test(
        "Unregistering an unknown id, an already removed id or another office's id changes nothing: every other registration keeps receiving exactly"
    )
    func meaninglessIdsChangeNothing() {
        let office = PostOffice()
        let otherOffice = PostOffice()
        let log = Log()
        let screen = Screen("screen", log: log)
        let device = Device("device")
        office.register { (ping: Ping) in log.record("closure \(ping.n)") }
        office.register(screen, Screen.receivePing)
        office.register(sender: device) { (ping: Ping) in log.record("exact \(ping.n)") }
        let queue = DispatchQueue(label: "mailroom.tests.reliability.meaningless-ids")
        let queued = Recorder<Int>()
        office.register(queue: queue) { (ping: Ping) in queued.record(ping.n) }
        let removed = office.register { (ping: Ping) in log.record("removed \(ping.n)") }
        office.unregister(removed)
        let otherId = otherOffice.register { (ping: Ping) in log.record("other office \(ping.n)") }
        // An id no office knows: its office is gone.
        let unknown: RecipientId = {
            let gone = PostOffice()
            return gone.register { (_: Ping) in }
        }()
        #expect(office.registrationCount == 4)

        for _ in 0..<2 {
            office.unregister(removed)
            office.unregister(otherId)
            office.unregister(unknown)
            otherOffice.unregister(removed)
            otherOffice.unregister(unknown)
        }

        #expect(office.registrationCount == 4)
        #expect(otherOffice.registrationCount == 1)
        office.post(Ping(n: 1), sender: device)
        otherOffice.post(Ping(n: 2))
        drain(queue)
        #expect(log.events == ["closure 1", "screen 1", "exact 1", "other office 2"])
        #expect(queued.events == [1])
    }

    @Test("Unregistering a meaningless id from inside a handler during a post changes nothing for that post")
    func meaninglessIdsDuringPost() {
        let office = PostOffice()
        let otherOffice = PostOffice()
        let log = Log()
        let otherId = otherOffice.register { (_: Ping) in }
        let removed = office.register { (_: Ping) in }
        office.unregister(removed)
        office.register { [weak office] (ping: Ping) in
            log.record("first \(ping.n)")
            office?.unregister(otherId)
            office?.unregister(removed)
        }
        office.register { (ping: Ping) in log.record("second \(ping.n)") }

        office.post(Ping(n: 1))
        office.post(Ping(n: 2))

        #expect(log.events == ["first 1", "second 1", "first 2", "second 2"])
        #expect(otherOffice.registrationCount == 1)
    }

    // MARK: Nobody listening

    @Test("Posting to an office with no registrations, in every form, with and without a sender, does nothing")
    func postingToAnEmptyOffice() {
        let office = PostOffice()
        let device = Device("device")
        let phone = Phone("phone")
        for _ in 0..<2 {
            office.post(Ping(n: 1))
            office.post(Ping(n: 1), sender: device)
            office.post(Ping(n: 1), sender: phone)
            office.post(Ping(n: 1), sender: phone as Device)
            office.post(Ping(n: 1), sender: Stranger("stranger"))
            office.post(Ping(n: 1), sender: Device?.none)
            office.post(Chime())
            office.post(Traffic.red(reason: "none"), sender: device)
            office.post(Crate("crate"))
            office.post(Crate("crate") as Letter, sender: device)
            office.post(Envelope(content: [1, 2]))
            office.post(ScopeA.Ping())
        }
        #expect(office.registrationCount == 0)

        // Routes were built for those posts while nobody listened; a registration made now still gets mail.
        let log = Log()
        office.register { (ping: Ping, sender: Device) in log.record("\(ping.n) from \(sender.name)") }
        office.post(Ping(n: 2), sender: phone)
        #expect(log.events == ["2 from phone"])
    }

    @Test(
        "Posting to an office whose registrations are for other types, other senders, unregistered or dead delivers nothing"
    )
    func postingWhereNobodyMatches() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        let other = Device("other")
        office.register { (pong: Pong) in log.record("pong \(pong.n)") }
        office.register { (ping: Ping, stranger: Stranger) in log.record("from stranger \(ping.n)") }
        office.register(sender: other) { (ping: Ping) in log.record("from other \(ping.n)") }
        office.register { (crate: Crate) in log.record("crate \(crate.tag)") }
        let removed = office.register { (ping: Ping) in log.record("removed \(ping.n)") }
        var screen: Screen? = Screen("screen", log: log)
        office.register(screen!, Screen.receivePing)
        office.post(Ping(n: 0))
        #expect(log.events == ["removed 0", "screen 0"])
        log.removeAll()

        office.unregister(removed)
        screen = nil
        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: device)
        office.post(Parcel("parcel"), sender: device)
        office.post(Letter("letter"))

        #expect(log.events == [])
        #expect(office.registrationCount == 4)
    }

    // MARK: Posting from a deinit

    @Test(
        "A method recipient whose deinit posts to the same office, released outside any post: the post reaches the others, not the dying recipient"
    )
    func deinitPostsAfterLastReferenceDropped() {
        let office = PostOffice()
        let log = Log()
        office.register { (ping: Ping) in log.record("before \(ping.n)") }
        var farewell: Farewell? = Farewell("farewell", log: log, office: office)
        office.register(farewell!, Farewell.receive)
        office.register { (ping: Ping) in log.record("after \(ping.n)") }
        office.register { (pong: Pong) in log.record("pong \(pong.n)") }
        office.post(Ping(n: 1))
        #expect(log.events == ["before 1", "farewell got 1", "after 1"])
        log.removeAll()

        farewell = nil

        #expect(log.events == ["farewell deinit", "before 99", "after 99", "pong 99", "farewell deinit end"])
        #expect(office.registrationCount == 3)
        log.removeAll()
        office.post(Ping(n: 2))
        #expect(log.events == ["before 2", "after 2"])
    }

    @Test(
        "A method recipient whose last reference is dropped by another handler during a post: its deinit's posts are delivered, nested, and it is not called afterwards"
    )
    func deinitPostsWhenDroppedByAnotherHandler() {
        let office = PostOffice()
        let log = Log()
        let holder = Shared<Farewell?>(nil)
        office.register { (ping: Ping) in
            log.record("dropper \(ping.n)")
            if ping.n == 1 { withExtendedLifetime(take(holder)) {} }
        }
        holder.value = Farewell("farewell", log: log, office: office)
        office.register(holder.value!, Farewell.receive)
        office.register { (ping: Ping) in log.record("after \(ping.n)") }
        office.register { (pong: Pong) in log.record("pong \(pong.n)") }

        office.post(Ping(n: 1))

        #expect(
            log.events == [
                "dropper 1", "farewell deinit", "dropper 99", "after 99", "pong 99", "farewell deinit end", "after 1",
            ])
        #expect(office.registrationCount == 3)
    }

    @Test(
        "A method recipient that drops its own last reference while it is called: it deinitializes after its call, inside the post, and its deinit's posts are delivered"
    )
    func deinitPostsWhenRecipientDropsItselfDuringItsCall() {
        let office = PostOffice()
        let log = Log()
        let holder = Shared<Farewell?>(nil)
        office.register { (ping: Ping) in log.record("before \(ping.n)") }
        holder.value = Farewell("farewell", log: log, office: office, holder: holder)
        office.register(holder.value!, Farewell.receiveAndLetGo)
        office.register { (ping: Ping) in log.record("after \(ping.n)") }
        office.register { (pong: Pong) in log.record("pong \(pong.n)") }

        office.post(Ping(n: 1))

        #expect(
            log.events == [
                "before 1", "farewell got 1", "farewell deinit", "before 99", "after 99", "pong 99",
                "farewell deinit end", "after 1",
            ])
        #expect(office.registrationCount == 3)
    }

    @Test("A queued method recipient whose deinit posts to the same office, released while its deliveries wait")
    func deinitPostsWhileQueuedDeliveriesWait() {
        let office = PostOffice()
        let log = Log()
        let queue = DispatchQueue(label: "mailroom.tests.reliability.deinit-queued")
        var farewell: Farewell? = Farewell("farewell", log: log, office: office)
        office.register(queue: queue, farewell!, Farewell.receive)
        office.register { (ping: Ping) in log.record("sync \(ping.n)") }
        let gate = block(queue)
        office.post(Ping(n: 1))
        office.post(Ping(n: 2))

        farewell = nil
        gate.open()
        drain(queue)

        #expect(log.events == ["sync 1", "sync 2", "farewell deinit", "sync 99", "farewell deinit end"])
        #expect(office.registrationCount == 1)
    }

    // MARK: Releasing an office

    @Test(
        "Releasing the last reference to an office drops its queued deliveries that have not started, for every form, and frees the closures' captures"
    )
    func releasingAnOfficeDropsQueuedDeliveries() {
        let queue = DispatchQueue(label: "mailroom.tests.reliability.released-office")
        let log = FormLog()
        let device = Device("device")
        let recipients = FormRecipients<Ping, Device>(log: log)
        let freed = DispatchSemaphore(value: 0)
        weak var weakOffice: PostOffice?
        weak var weakToken: Token?
        let gate = block(queue)
        do {
            let office = PostOffice()
            weakOffice = office
            let token = Token { freed.signal() }
            weakToken = token
            for form in RegisterForm.allCases where form.kind == .closure || form.kind == .method {
                form.register(
                    on: office, Ping.self, sender: device, queue: queue, recipients: recipients, log: log,
                    keep: token)
            }
            for n in 1...3 {
                office.post(Ping(n: n), sender: device)
            }
            #expect(office.registrationCount == 14)
        }

        #expect(weakOffice == nil, "something still holds the office")
        gate.open()
        drain(queue)

        #expect(log.entries == [])
        waitFor(freed, "the released office's closures to free their captured token")
        #expect(weakToken == nil)
    }

    @Test("Releasing an office frees what its closures captured, for every closure form")
    func releasingAnOfficeFreesCaptures() {
        let device = Device("device")
        let freed = DispatchSemaphore(value: 0)
        let log = FormLog()
        let closureForms = RegisterForm.allCases.filter { $0.kind == .closure }
        weak var weakOffice: PostOffice?
        do {
            let office = PostOffice()
            weakOffice = office
            for form in closureForms {
                let token = Token { freed.signal() }
                form.register(
                    on: office, Ping.self, sender: device, queue: nil, recipients: FormRecipients(log: log), log: log,
                    keep: token)
            }
            office.post(Ping(n: 1), sender: device)
            #expect(log.entries.count == closureForms.count)
        }

        #expect(weakOffice == nil, "something still holds the office")
        for form in closureForms {
            waitFor(freed, "a token captured by a closure of the released office (form \(form.rawValue))")
        }
    }
}
