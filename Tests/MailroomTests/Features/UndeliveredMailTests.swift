import Dispatch
import Mailroom
import MailroomTesting
import Testing

@Suite("Undelivered mail")
struct UndeliveredMailTests {
    /// Registers for `UndeliveredMail` and returns the reports it receives, described.
    private static func reports(_ office: PostOffice) -> Recorder<String> {
        let reports = Recorder<String>()
        office.register { (lost: UndeliveredMail) in
            reports.record(describe(lost))
        }
        return reports
    }

    private static func describe(_ lost: UndeliveredMail) -> String {
        let value =
            switch lost.mail {
            case let ping as Ping: "Ping \(ping.n)"
            case let pong as Pong: "Pong \(pong.n)"
            case let alert as any Alert: alert.message
            default: "?"
            }
        return "\(typeName(lost.mail)): \(value) from \(senderName(lost.sender))"
    }

    @Test("A post with no registration for its type is reported once, with its mail and sender")
    func noRegistrationForTheType() {
        let office = PostOffice()
        let device = Device("device")
        let reports = Self.reports(office)
        office.register { (_: Pong) in }
        let received = Shared<[UndeliveredMail]>([])
        office.register { (lost: UndeliveredMail) in received.update { $0.append(lost) } }

        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: device)
        office.post(Siren.fire)

        #expect(reports.events == ["Ping: Ping 1 from nil", "Ping: Ping 2 from device", "Siren: siren fire from nil"])
        let lost = received.value
        #expect(lost.count == 3)
        #expect(lost.map { type(of: $0.mail) == Ping.self } == [true, true, false])
        #expect(lost.map { ($0.mail as? Ping)?.n } == [1, 2, nil])
        #expect(lost.map { $0.sender === device } == [false, true, false])
        #expect(lost[2].mail as? Siren == .fire)
    }

    @Test("A post reaching only method registrations whose recipients have deallocated is reported")
    func onlyDeadMethodRecipients() {
        let office = PostOffice()
        let log = Log()
        let reports = Self.reports(office)
        do {
            let screen = Screen("gone", log: log)
            office.register(screen, Screen.receivePing)
            office.register(screen, Screen.receivePingFromOptionalDevice)
        }

        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: Device("device"))

        #expect(log.events.isEmpty)
        #expect(reports.events == ["Ping: Ping 1 from nil", "Ping: Ping 2 from device"])
    }

    @Test("A post reaching only a queued method registration whose recipient has deallocated is reported")
    func onlyDeadQueuedMethodRecipient() {
        let office = PostOffice()
        let log = Log()
        let queue = DispatchQueue(label: "feature.undelivered.queue")
        let reports = Self.reports(office)
        do {
            let screen = Screen("gone", log: log)
            office.register(queue: queue, screen, Screen.receivePing)
        }

        office.post(Ping(n: 1))
        drain(queue)

        // Fails at a6b015f: a queued delivery counts as received when it is enqueued; the recipient is only
        // found gone inside the queued block, after the post decided nobody needs to hear of it.
        #expect(log.events.isEmpty)
        #expect(reports.events == ["Ping: Ping 1 from nil"])
    }

    @Test("A post from a sender that only exact-sender registrations for another sender listen to is reported")
    func exactSenderRegistrationsForAnotherSender() {
        let office = PostOffice()
        let log = Log()
        let mine = Device("mine")
        let other = Device("other")
        let reports = Self.reports(office)
        office.register(sender: mine) { (ping: Ping) in log.record("exact \(ping.n)") }
        office.register(sender: mine, conformingTo: Alert.self) { alert in log.record("exact \(alert.message)") }
        office.register { (ping: Ping, _: Stranger) in log.record("stranger \(ping.n)") }

        office.post(Ping(n: 1), sender: other)
        office.post(Ping(n: 2), sender: mine)
        office.post(DiskFull(percent: 3), sender: other)
        office.post(Ping(n: 4))

        #expect(log.events == ["exact 2"])
        #expect(
            reports.events == ["Ping: Ping 1 from other", "DiskFull: disk 3% from other", "Ping: Ping 4 from nil"])
    }

    @Test("A post that reaches some registration is not reported")
    func deliveredPostsAreNotReported() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        let reports = Self.reports(office)
        let queue = DispatchQueue(label: "feature.undelivered.delivered")
        office.register { (ping: Ping) in log.record("ping \(ping.n)") }
        office.register(queue: queue) { (pong: Pong) in log.record("pong \(pong.n)") }
        office.register(conformingTo: Alert.self) { alert in log.record(alert.message) }
        office.register(sender: device) { (_: Traffic) in log.record("traffic") }

        let gate = block(queue)
        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: device)
        office.post(Pong(n: 3))
        office.post(BatteryLow(level: 4))
        office.post(Traffic.green, sender: device)
        gate.open()
        drain(queue)

        #expect(log.events == ["ping 1", "ping 2", "battery 4%", "traffic", "pong 3"])
        #expect(reports.events.isEmpty)
    }

    @Test("Catch-all registrations are wiretaps: mail only they saw is still reported, and they see no reports")
    func catchAllIsAWiretap() {
        let office = PostOffice()
        let log = Log()
        office.register(conformingTo: (any Mail).self) { (mail: any Mail) in log.record("all \(typeName(mail))") }
        let reports = Self.reports(office)
        office.register { (pong: Pong) in log.record("pong \(pong.n)") }
        let device = Device("device")

        office.post(Ping(n: 1))
        office.post(Siren.fire, sender: device)
        office.post(Pong(n: 2))

        #expect(log.events == ["all Ping", "all Siren", "all Pong", "pong 2"])
        #expect(reports.events == ["Ping: Ping 1 from nil", "Siren: siren fire from device"])
    }

    @Test("A MailRecorder does not change what is reported, and records the reports only when asked to")
    func recorderDoesNotHideUndeliveredMail() {
        let office = PostOffice()
        let everything = MailRecorder(office)
        let pings = MailRecorder(office, recording: [Ping.self])
        #expect(office.registrations.count == 2)
        let reportsOnly = MailRecorder(office, recording: [UndeliveredMail.self])

        office.post(Ping(n: 1))
        office.post(Pong(n: 2))

        #expect(everything.entries.map { typeName($0.mail) } == ["Ping", "Pong"])
        #expect(pings.mail(of: Ping.self) == [Ping(n: 1)])
        let reported = reportsOnly.mail(of: UndeliveredMail.self).map { typeName($0.mail) }
        #expect(reported == ["Ping", "Pong"])
    }

    @Test("Without an UndeliveredMail registration nothing is reported, and nothing is kept for a later one")
    func nothingReportedWithoutRegistration() {
        let office = PostOffice()
        let log = Log()
        office.register { (pong: Pong) in log.record("pong \(pong.n)") }
        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: Device("device"))
        do {
            let screen = Screen("gone", log: log)
            office.register(screen, Screen.receivePing)
        }
        office.post(Ping(n: 3))

        let id = office.register { (lost: UndeliveredMail) in log.record("lost \(typeName(lost.mail))") }
        office.unregister(id)
        office.post(Ping(n: 4))

        let reports = Self.reports(office)
        office.post(Pong(n: 5))
        #expect(reports.events.isEmpty)
        office.post(Ping(n: 6))
        #expect(reports.events == ["Ping: Ping 6 from nil"])
        #expect(log.events == ["pong 5"])
    }

    @Test("An UndeliveredMail that reaches nobody is not reported again")
    func noRecursion() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        // Registrations for UndeliveredMail that the reports (posted without a sender) never reach.
        office.register { (lost: UndeliveredMail, sender: Device) in
            log.record("with sender \(typeName(lost.mail)) from \(sender.name)")
        }
        office.register(sender: device) { (lost: UndeliveredMail) in log.record("exact \(typeName(lost.mail))") }
        do {
            let screen = Screen("gone", log: log)
            office.register(screen, Screen.refresh(on: UndeliveredMail.self))
        }

        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: device)
        office.post(UndeliveredMail(mail: Pong(n: 3), sender: nil))
        office.post(UndeliveredMail(mail: Pong(n: 4), sender: device), sender: Stranger("stranger"))

        #expect(log.events.isEmpty)
        office.post(UndeliveredMail(mail: Pong(n: 5), sender: nil), sender: device)
        #expect(log.events == ["with sender Pong from device", "exact Pong"])
    }
}
