import Dispatch
import Mailroom
import Testing

@Suite("Sticky mail")
struct StickyMailTests {
    @Test("A new registration replays only the last sticky mail of its type, and replay returns the count")
    func replaysTheLastStickyMail() {
        let office = PostOffice()
        let log = Log()
        office.register { (ping: Ping) in log.record("early \(ping.n)") }
        office.post(Ping(n: 1), sticky: true)
        office.post(Ping(n: 2), sticky: true)
        office.post(Ping(n: 3), sticky: false)
        office.post(Pong(n: 4))
        #expect(log.events == ["early 1", "early 2", "early 3"])
        log.removeAll()

        let late = office.register { (ping: Ping) in log.record("late \(ping.n)") }
        let pongs = office.register { (pong: Pong) in log.record("pong \(pong.n)") }
        #expect(log.events.isEmpty)
        #expect(office.replayStickyMail(to: late) == 1)
        #expect(log.events == ["late 2"])
        #expect(office.replayStickyMail(to: pongs) == 0)
        #expect(office.replayStickyMail(to: late) == 1)
        #expect(log.events == ["late 2", "late 2"])
    }

    @Test("Every post of a StickyMail type is sticky, one kept per sender")
    func stickyMailTypes() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        office.post(SessionState(user: "ada"))
        office.post(SessionState(user: "grace"))
        office.post(SessionState(user: "linus"), sender: device)
        office.post(SessionState(user: "ken"), sender: device)

        let id = office.register { (state: SessionState, sender: Device?) in
            log.record("\(state.user) from \(sender?.name ?? "nil")")
        }
        #expect(office.replayStickyMail(to: id) == 2)
        #expect(log.events == ["grace from nil", "ken from device"])
    }

    @Test("Sticky mail is kept per sender; each registration replays what its sender filter accepts, oldest first")
    func perSenderStickiness() {
        let office = PostOffice()
        let log = Log()
        let first = Device("first")
        let second = Phone("second")
        office.post(Ping(n: 1), sender: first, sticky: true)
        office.post(Ping(n: 2), sender: second, sticky: true)
        office.post(Ping(n: 3), sticky: true)
        office.post(Ping(n: 4), sender: first, sticky: true)
        office.post(Ping(n: 5), sender: Stranger("stranger"), sticky: false)

        let exactFirst = office.register(sender: first) { (ping: Ping) in log.record("exact first \(ping.n)") }
        let exactSecond = office.register(sender: second) { (ping: Ping) in log.record("exact second \(ping.n)") }
        let optional = office.register { (ping: Ping, sender: Device?) in
            log.record("optional \(ping.n) from \(sender?.name ?? "nil")")
        }
        let required = office.register { (ping: Ping, sender: Device) in
            log.record("required \(ping.n) from \(sender.name)")
        }
        let phones = office.register { (ping: Ping, sender: Phone) in log.record("phone \(ping.n) from \(sender.name)")
        }
        let any = office.register { (ping: Ping) in log.record("any \(ping.n)") }
        let strangers = office.register { (ping: Ping, _: Stranger) in log.record("stranger \(ping.n)") }

        #expect(office.replayStickyMail(to: exactFirst) == 1)
        #expect(office.replayStickyMail(to: exactSecond) == 1)
        #expect(office.replayStickyMail(to: optional) == 3)
        #expect(office.replayStickyMail(to: required) == 2)
        #expect(office.replayStickyMail(to: phones) == 1)
        #expect(office.replayStickyMail(to: any) == 3)
        #expect(office.replayStickyMail(to: strangers) == 0)
        #expect(
            log.events == [
                "exact first 4",
                "exact second 2",
                "optional 2 from second", "optional 3 from nil", "optional 4 from first",
                "required 2 from second", "required 4 from first",
                "phone 2 from second",
                "any 2", "any 3", "any 4",
            ])
    }

    @Test("clearStickyMail forgets a type's sticky mail from every sender, or from one")
    func clearStickyMail() {
        let office = PostOffice()
        let log = Log()
        let first = Device("first")
        let second = Device("second")
        office.post(Ping(n: 1), sender: first, sticky: true)
        office.post(Ping(n: 2), sender: second, sticky: true)
        office.post(Ping(n: 3), sticky: true)
        office.post(Pong(n: 4), sender: first, sticky: true)
        let pings = office.register { (ping: Ping, sender: Device?) in
            log.record("ping \(ping.n) from \(sender?.name ?? "nil")")
        }
        let pongs = office.register { (pong: Pong) in log.record("pong \(pong.n)") }

        office.clearStickyMail(Ping.self, sender: first)
        #expect(office.replayStickyMail(to: pings) == 2)
        #expect(office.replayStickyMail(to: pongs) == 1)
        #expect(log.events == ["ping 2 from second", "ping 3 from nil", "pong 4"])
        log.removeAll()

        office.clearStickyMail(Ping.self)
        #expect(office.replayStickyMail(to: pings) == 0)
        #expect(office.replayStickyMail(to: pongs) == 1)
        office.clearStickyMail(Pong.self, sender: second)
        #expect(office.replayStickyMail(to: pongs) == 1)
        office.clearStickyMail(Pong.self, sender: first)
        #expect(office.replayStickyMail(to: pongs) == 0)
        #expect(log.events == ["pong 4", "pong 4"])
    }

    @Test("Replay to a protocol or catch-all registration replays the conforming sticky mail, oldest first")
    func replayToProtocolRegistration() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        office.post(DiskFull(percent: 90), sticky: true)
        office.post(Ping(n: 1), sticky: true)
        office.post(Siren.fire, sender: device, sticky: true)
        office.post(UrgentNotice("n"), sticky: true)
        office.post(Notice("plain"), sticky: true)
        office.post(DiskFull(percent: 95), sticky: true)
        office.post(BatteryLow(level: 1), sticky: false)

        let alerts = office.register(conformingTo: Alert.self) { alert in log.record("alert \(alert.message)") }
        let exact = office.register(sender: device, conformingTo: Alert.self) { alert in
            log.record("exact \(alert.message)")
        }
        let all = office.register(conformingTo: (any Mail).self) {
            (mail: any Mail, sender: (any AnyObject & Sendable)?) in
            log.record("all \(typeName(mail)) from \(senderName(sender))")
        }
        let beacons = office.register(conformingTo: Beacon.self) { _ in log.record("beacon") }

        #expect(office.replayStickyMail(to: alerts) == 3)
        #expect(office.replayStickyMail(to: exact) == 1)
        #expect(office.replayStickyMail(to: all) == 5)
        #expect(office.replayStickyMail(to: beacons) == 0)
        #expect(
            log.events == [
                "alert siren fire", "alert UrgentNotice n", "alert disk 95%",
                "exact siren fire",
                "all Ping from nil", "all Siren from device", "all UrgentNotice from nil", "all Notice from nil",
                "all DiskFull from nil",
            ])
    }

    @Test("A queue registration receives the replay on its queue")
    func replayOnQueue() {
        let office = PostOffice()
        let log = Log()
        let marked = MarkedQueue("feature.sticky.queue")
        office.post(Ping(n: 1), sticky: true)
        office.post(DiskFull(percent: 2), sticky: true)
        let pings = office.register(queue: marked.queue) { (ping: Ping) in
            log.record("ping \(ping.n) on \(marked.currentLabel ?? "another queue")")
        }
        let alerts = office.register(queue: marked.queue, conformingTo: Alert.self) { alert in
            log.record("\(alert.message) on \(marked.currentLabel ?? "another queue")")
        }

        let gate = block(marked.queue)
        #expect(office.replayStickyMail(to: pings) == 1)
        #expect(office.replayStickyMail(to: alerts) == 1)
        #expect(log.events.isEmpty)
        gate.open()
        drain(marked.queue)

        #expect(log.events == ["ping 1 on feature.sticky.queue", "disk 2% on feature.sticky.queue"])
    }

    @Test("Sticky mail whose sender has deallocated is not replayed")
    func senderGone() {
        let office = PostOffice()
        let log = Log()
        let kept = Device("kept")
        do {
            let gone = Device("gone")
            office.post(Ping(n: 1), sender: gone, sticky: true)
            office.post(SessionState(user: "gone"), sender: gone)
        }
        office.post(Ping(n: 2), sender: kept, sticky: true)
        let pings = office.register { (ping: Ping, sender: Device?) in
            log.record("ping \(ping.n) from \(sender?.name ?? "nil")")
        }
        let sessions = office.register { (state: SessionState) in log.record("session \(state.user)") }

        #expect(office.replayStickyMail(to: pings) == 1)
        #expect(office.replayStickyMail(to: sessions) == 0)
        #expect(office.replayStickyMail(to: pings) == 1)
        #expect(log.events == ["ping 2 from kept", "ping 2 from kept"])
    }

    @Test("Replay to an unknown, removed or another office's id returns 0 and delivers nothing")
    func replayToUnknownId() {
        let office = PostOffice()
        let other = PostOffice()
        let log = Log()
        office.post(Ping(n: 1), sticky: true)
        let removed = office.register { (ping: Ping) in log.record("removed \(ping.n)") }
        office.unregister(removed)
        let elsewhere = other.register { (ping: Ping) in log.record("elsewhere \(ping.n)") }

        #expect(office.replayStickyMail(to: removed) == 0)
        #expect(office.replayStickyMail(to: elsewhere) == 0)
        #expect(log.events.isEmpty)
    }

    @Test("Replay reaches only the registration it names, not the others of the type")
    func replayReachesOnlyItsRegistration() {
        let office = PostOffice()
        let log = Log()
        office.post(Ping(n: 1), sticky: true)
        office.register { (ping: Ping) in log.record("first \(ping.n)") }
        let second = office.register { (ping: Ping) in log.record("second \(ping.n)") }
        office.register(conformingTo: (any Mail).self) { (mail: any Mail) in log.record("all \(typeName(mail))") }
        let reports = Recorder<String>()
        office.register { (lost: UndeliveredMail) in reports.record(typeName(lost.mail)) }

        #expect(office.replayStickyMail(to: second) == 1)
        #expect(log.events == ["second 1"])
        #expect(reports.events.isEmpty)
    }

    @Test("Mail posted between a registration and its replay reaches it once, live, and is not replayed")
    func replaySkipsMailTheRegistrationReceivedLive() {
        let office = PostOffice()
        let log = Log()
        office.post(Ping(n: 1), sticky: true)
        let id = office.register { (ping: Ping) in log.record("ping \(ping.n)") }
        #expect(office.replayStickyMail(to: id) == 1)
        office.post(Ping(n: 2), sticky: true)
        office.post(SessionState(user: "ada"))
        let sessions = office.register { (state: SessionState) in log.record("session \(state.user)") }
        office.post(SessionState(user: "grace"))

        #expect(office.replayStickyMail(to: id) == 0)
        #expect(office.replayStickyMail(to: sessions) == 0)
        #expect(log.events == ["ping 1", "ping 2", "session grace"])
    }

    @Test("StickyMail is kept whichever way it is posted: as some Mail, awaited, or as VerifiedMail with its sender")
    func stickyMailIsKeptByItsType() async throws {
        let office = PostOffice()
        let log = Log()
        let flow = CheckoutFlow("flow")
        func postGenerically(_ mail: some Mail) { office.post(mail) }
        postGenerically(SessionState(user: "ada"))
        try await office.deliver(Progress(step: 1), sender: flow)
        office.post(Progress(step: 2), sender: flow, sticky: false)

        let sessions = office.register { (state: SessionState) in log.record("session \(state.user)") }
        let steps = office.register { (progress: Progress, flow: CheckoutFlow) in
            log.record("step \(progress.step) from \(flow.name)")
        }
        #expect(office.replayStickyMail(to: sessions) == 1)
        #expect(office.replayStickyMail(to: steps) == 1)
        #expect(log.events == ["session ada", "step 2 from flow"])
    }

    @Test("Clearing a class's sticky mail clears its subclasses' too, and not its superclass's")
    func clearingCoversSubclasses() {
        let office = PostOffice()
        let log = Log()
        office.post(Notice("plain"), sticky: true)
        office.post(UrgentNotice("urgent"), sticky: true)
        office.post(SevereNotice("severe"), sticky: true)
        office.clearStickyMail(UrgentNotice.self)

        let id = office.register { (notice: Notice) in log.record("\(type(of: notice)) \(notice.text)") }
        #expect(office.replayStickyMail(to: id) == 1)
        #expect(log.events == ["Notice plain"])
    }
}

/// Mail that is both verified and sticky: the last step of each checkout flow is kept.
private struct Progress: VerifiedMail, StickyMail {
    typealias RequiredSender = CheckoutFlow
    let step: Int
}
