import Dispatch
import Mailroom
import Testing

@Suite("Protocol and catch-all recipients")
struct ProtocolRecipientTests {
    @Test("A protocol registration receives every conforming struct, enum and subclass, and nothing else")
    func receivesEveryConformingType() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        office.register(conformingTo: Alert.self) { alert in log.record(alert.message) }

        office.post(DiskFull(percent: 91))
        office.post(Ping(n: 1))
        office.post(BatteryLow(level: 5), sender: device)
        office.post(Siren.fire)
        office.post(Notice("plain"))
        office.post(Siren.flood(level: 3), sender: device)
        office.post(UrgentNotice("leak"))
        office.post(SevereNotice("smoke"))
        let urgentAsNotice: Notice = UrgentNotice("typed as Notice")
        office.post(urgentAsNotice)
        office.post(Pong(n: 2), sender: device)
        office.post(Traffic.green)
        office.post(Letter("letter"))

        #expect(
            log.events == [
                "disk 91%", "battery 5%", "siren fire", "siren flood 3", "UrgentNotice leak", "SevereNotice smoke",
                "UrgentNotice typed as Notice",
            ])
    }

    @Test("One post reaches protocol, catch-all and concrete-type registrations in registration order")
    func registrationOrderAcrossKinds() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        let screen = Screen("screen", log: log)
        office.register { (_: DiskFull) in log.record("type 1") }
        office.register(conformingTo: Alert.self) { _ in log.record("alert 2") }
        office.register(conformingTo: (any Mail).self) { (_: any Mail) in log.record("all 3") }
        office.register(sender: device) { (_: DiskFull) in log.record("exact type 4") }
        office.register(sender: device, conformingTo: Alert.self) { _ in log.record("exact alert 5") }
        office.register(conformingTo: Alert.self) { (_, sender: Device?) in
            log.record("alert from \(sender?.name ?? "nil") 6")
        }
        office.register { (_: DiskFull, _: Device) in log.record("type from device 7") }
        office.register(conformingTo: (any Mail).self) { (_: any Mail, sender: (any AnyObject & Sendable)?) in
            log.record("all from \(senderName(sender)) 8")
        }
        office.register(screen, Screen.refresh(on: Ping.self))
        office.register { (_: DiskFull) in log.record("type 10") }

        office.post(DiskFull(percent: 1), sender: device)
        #expect(
            log.events == [
                "type 1", "alert 2", "all 3", "exact type 4", "exact alert 5", "alert from device 6",
                "type from device 7", "all from device 8", "type 10",
            ])
        log.removeAll()

        office.post(DiskFull(percent: 2))
        #expect(log.events == ["type 1", "alert 2", "all 3", "alert from nil 6", "all from nil 8", "type 10"])
        log.removeAll()

        office.post(Ping(n: 3), sender: device)
        #expect(log.events == ["all 3", "all from device 8", "screen refresh"])
    }

    @Test("A subclass that adds the conformance reaches protocol and superclass recipients in registration order")
    func classHierarchyOrder() {
        let office = PostOffice()
        let log = Log()
        office.register { (notice: Notice) in log.record("notice \(notice.text)") }
        office.register(conformingTo: Alert.self) { alert in log.record("alert \(alert.message)") }
        office.register { (notice: UrgentNotice) in log.record("urgent \(notice.text)") }
        office.register(conformingTo: (any Mail).self) { (_: any Mail) in log.record("all") }

        office.post(Notice("a"))
        office.post(UrgentNotice("b"))
        office.post(SevereNotice("c"))

        #expect(
            log.events == [
                "notice a", "all",
                "notice b", "alert UrgentNotice b", "urgent b", "all",
                "notice c", "alert SevereNotice c", "urgent c", "all",
            ])
    }

    @Test("The (P, S?) form receives conforming mail with no sender or a sender of S, and not other senders")
    func optionalSenderForm() {
        let office = PostOffice()
        let log = Log()
        office.register(conformingTo: Alert.self) { (alert, device: Device?) in
            log.record("\(alert.message) from \(device?.name ?? "nil")")
        }

        office.post(DiskFull(percent: 1))
        office.post(DiskFull(percent: 2), sender: Device("device"))
        office.post(Siren.fire, sender: Phone("phone"))
        office.post(BatteryLow(level: 3), sender: Stranger("stranger"))
        office.post(Ping(n: 4), sender: Device("device"))

        #expect(log.events == ["disk 1% from nil", "disk 2% from device", "siren fire from phone"])
    }

    @Test("register(sender:conformingTo:) receives only conforming mail posted by exactly that sender")
    func exactSenderForm() {
        let office = PostOffice()
        let log = Log()
        let mine = Device("mine")
        let other = Device("other")
        office.register(sender: mine, conformingTo: Alert.self) { alert in log.record(alert.message) }

        office.post(DiskFull(percent: 1), sender: mine)
        office.post(DiskFull(percent: 2), sender: other)
        office.post(DiskFull(percent: 3))
        office.post(Ping(n: 4), sender: mine)
        office.post(UrgentNotice("n"), sender: mine)
        office.post(Siren.fire, sender: Phone("phone"))

        #expect(log.events == ["disk 1%", "UrgentNotice n"])
    }

    @Test("The catch-all forms see every post of every type, with its sender")
    func catchAllSeesEverything() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        office.register(conformingTo: (any Mail).self) { (mail: any Mail) in log.record("all \(typeName(mail))") }
        office.register(conformingTo: (any Mail).self) { (mail: any Mail, sender: (any AnyObject & Sendable)?) in
            log.record("with sender \(typeName(mail)) \(senderName(sender))")
        }

        office.post(Ping(n: 1))
        office.post(Pong(n: 2), sender: device)
        office.post(Traffic.red(reason: "r"))
        office.post(Crate("c"), sender: Stranger("stranger"))
        office.post(Siren.fire)
        office.post(Envelope(content: 1))
        office.post(Envelope(content: "s"), sender: Phone("phone"))

        #expect(
            log.events == [
                "all Ping", "with sender Ping nil",
                "all Pong", "with sender Pong device",
                "all Traffic", "with sender Traffic nil",
                "all Crate", "with sender Crate stranger",
                "all Siren", "with sender Siren nil",
                "all Envelope<Int>", "with sender Envelope<Int> nil",
                "all Envelope<String>", "with sender Envelope<String> phone",
            ])
    }

    @Test("A protocol registration made after its kinds of post were routed still receives later posts")
    func registrationAfterRoutesWereBuilt() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        let phone = Phone("phone")
        office.register { (disk: DiskFull) in log.record("type \(disk.percent)") }
        office.register(sender: device) { (battery: BatteryLow) in log.record("exact battery \(battery.level)") }
        // Build every kind of route: no sender, a sender class, an exact sender.
        func postAll(_ round: Int) {
            office.post(DiskFull(percent: round))
            office.post(DiskFull(percent: round), sender: device)
            office.post(BatteryLow(level: round), sender: device)
            office.post(Siren.fire, sender: phone)
            office.post(UrgentNotice("\(round)"))
            office.post(Ping(n: round))
        }
        postAll(1)
        #expect(log.events == ["type 1", "type 1", "exact battery 1"])
        log.removeAll()

        office.register(conformingTo: Alert.self) { alert in log.record("any \(alert.message)") }
        office.register(conformingTo: Alert.self) { (alert, sender: Device?) in
            log.record("kind \(alert.message) \(sender?.name ?? "nil")")
        }
        office.register(sender: device, conformingTo: Alert.self) { alert in log.record("exact \(alert.message)") }
        office.register(conformingTo: (any Mail).self) { (mail: any Mail) in log.record("all \(typeName(mail))") }
        postAll(2)

        #expect(
            log.events == [
                "type 2", "any disk 2%", "kind disk 2% nil", "all DiskFull",
                "type 2", "any disk 2%", "kind disk 2% device", "exact disk 2%", "all DiskFull",
                "exact battery 2", "any battery 2%", "kind battery 2% device", "exact battery 2%", "all BatteryLow",
                "any siren fire", "kind siren fire phone", "all Siren",
                "any UrgentNotice 2", "kind UrgentNotice 2 nil", "all UrgentNotice",
                "all Ping",
            ])
    }

    @Test("A protocol registration made during a post is not called by that post, but is by the next")
    func registrationDuringPost() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        office.register { [unowned office] (disk: DiskFull) in
            log.record("h1 \(disk.percent)")
            if disk.percent == 1 {
                office.register(conformingTo: Alert.self) { alert in log.record("late \(alert.message)") }
                office.register(sender: device, conformingTo: Alert.self) { _ in log.record("late exact") }
                office.register(conformingTo: (any Mail).self) { (mail: any Mail) in
                    log.record("late all \(typeName(mail))")
                }
            }
        }
        office.register { (disk: DiskFull) in log.record("h2 \(disk.percent)") }

        office.post(DiskFull(percent: 1), sender: device)
        #expect(log.events == ["h1 1", "h2 1"])
        #expect(office.registrationCount == 5)
        log.removeAll()

        office.post(DiskFull(percent: 2), sender: device)
        #expect(log.events == ["h1 2", "h2 2", "late disk 2%", "late exact", "late all DiskFull"])
    }

    @Test("Registrations removed during a post that also added a protocol registration are not called later in it")
    func removalAfterRoutesWereDroppedDuringPost() {
        let office = PostOffice()
        let log = Log()
        let victims = Shared<[RecipientId]>([])
        office.register { [unowned office] (disk: DiskFull) in
            log.record("h1 \(disk.percent)")
            guard disk.percent == 1 else { return }
            // Adding a protocol registration drops the routes this post walks; a nested post rebuilds them.
            office.register(conformingTo: Beacon.self) { _ in log.record("beacon") }
            office.post(DiskFull(percent: 99))
            for victim in victims.value {
                office.unregister(victim)
            }
        }
        victims.value = [
            office.register { (disk: DiskFull) in log.record("h2 \(disk.percent)") },
            office.register(conformingTo: Alert.self) { alert in log.record("p3 \(alert.message)") },
            office.register(conformingTo: (any Mail).self) { (mail: any Mail) in log.record("all4 \(typeName(mail))") },
        ]
        office.register { (disk: DiskFull) in log.record("h5 \(disk.percent)") }

        office.post(DiskFull(percent: 1))

        #expect(log.events == ["h1 1", "h1 99", "h2 99", "p3 disk 99%", "all4 DiskFull", "h5 99", "h5 1"])
        #expect(office.registrationCount == 3)
    }

    @Test("Unregistering protocol registrations stops them, also from inside a handler during a post")
    func unregisterStopsProtocolRegistrations() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        let victims = Shared<[RecipientId]>([])
        office.register { [unowned office] (disk: DiskFull) in
            log.record("h1 \(disk.percent)")
            if disk.percent == 1 {
                for victim in victims.value {
                    office.unregister(victim)
                }
            }
        }
        victims.value = [
            office.register(conformingTo: Alert.self) { _ in log.record("any") },
            office.register(conformingTo: Alert.self) { (_, _: Device?) in log.record("kind") },
            office.register(sender: device, conformingTo: Alert.self) { _ in log.record("exact") },
            office.register(conformingTo: (any Mail).self) { (_: any Mail) in log.record("all") },
            office.register(conformingTo: (any Mail).self) { (_: any Mail, _: (any AnyObject & Sendable)?) in
                log.record("all with sender")
            },
        ]
        let outside = office.register(conformingTo: Alert.self) { alert in log.record("outside \(alert.message)") }
        office.register { (disk: DiskFull) in log.record("h7 \(disk.percent)") }

        office.post(DiskFull(percent: 0), sender: device)
        #expect(
            log.events == ["h1 0", "any", "kind", "exact", "all", "all with sender", "outside disk 0%", "h7 0"])
        log.removeAll()

        office.post(DiskFull(percent: 1), sender: device)
        #expect(log.events == ["h1 1", "outside disk 1%", "h7 1"])
        #expect(office.registrationCount == 3)
        log.removeAll()

        office.unregister(outside)
        office.post(DiskFull(percent: 2), sender: device)
        office.post(Siren.fire, sender: device)
        office.post(BatteryLow(level: 3))
        #expect(log.events == ["h1 2", "h7 2"])
        #expect(office.registrationCount == 2)
    }

    @Test("Protocol and catch-all registrations with a queue receive their mail on it, never inline, in post order")
    func queueDelivery() {
        let office = PostOffice()
        let log = Log()
        let marked = MarkedQueue("feature.protocol.queue")
        let device = Device("device")
        office.register(queue: marked.queue, conformingTo: Alert.self) { alert in
            log.record("any \(alert.message) on \(marked.currentLabel ?? "another queue")")
        }
        office.register(queue: marked.queue, conformingTo: Alert.self) { (alert, sender: Device?) in
            log.record("kind \(alert.message) \(sender?.name ?? "nil") on \(marked.currentLabel ?? "another queue")")
        }
        office.register(queue: marked.queue, sender: device, conformingTo: Alert.self) { alert in
            log.record("exact \(alert.message) on \(marked.currentLabel ?? "another queue")")
        }
        office.register(queue: marked.queue, conformingTo: (any Mail).self) { (mail: any Mail) in
            log.record("all \(typeName(mail)) on \(marked.currentLabel ?? "another queue")")
        }

        let gate = block(marked.queue)
        office.post(DiskFull(percent: 1), sender: device)
        office.post(Ping(n: 2))
        office.post(Siren.fire)
        #expect(log.events.isEmpty)
        gate.open()
        drain(marked.queue)

        let on = "on feature.protocol.queue"
        #expect(
            log.events == [
                "any disk 1% \(on)", "kind disk 1% device \(on)", "exact disk 1% \(on)", "all DiskFull \(on)",
                "all Ping \(on)",
                "any siren fire \(on)", "kind siren fire nil \(on)", "all Siren \(on)",
            ])
    }

    @Test("A queued protocol delivery that has not started when its registration is removed is dropped")
    func queuedProtocolDeliveryDroppedOnUnregister() {
        let office = PostOffice()
        let log = Log()
        let queue = DispatchQueue(label: "feature.protocol.unregister")
        let dropped = office.register(queue: queue, conformingTo: Alert.self) { alert in
            log.record("dropped \(alert.message)")
        }
        office.register(queue: queue, conformingTo: Alert.self) { alert in log.record("kept \(alert.message)") }

        let gate = block(queue)
        office.post(DiskFull(percent: 1))
        office.post(Siren.fire)
        office.unregister(dropped)
        gate.open()
        drain(queue)

        #expect(log.events == ["kept disk 1%", "kept siren fire"])
    }

    @Test("Posts of types that no protocol or catch-all registration accepts are delivered as before, exactly")
    func unrelatedPostsUnaffected() {
        let office = PostOffice()
        let pings = Shared(0)
        let alerts = Shared(0)
        let beacons = Shared(0)
        let pongs = Shared(0)
        office.register { (_: Ping) in pings.update { $0 += 1 } }
        office.register(conformingTo: Alert.self) { _ in alerts.update { $0 += 1 } }
        office.register(conformingTo: Beacon.self) { _ in beacons.update { $0 += 1 } }
        office.register { (_: Pong, _: Device) in pongs.update { $0 += 1 } }

        for n in 0..<5 {
            office.post(Ping(n: n))
            office.post(Ping(n: n), sender: Device("device"))
            office.post(Pong(n: n), sender: Phone("phone"))
            office.post(Pong(n: n))
        }
        office.post(DiskFull(percent: 1))

        #expect(pings.value == 10)
        #expect(pongs.value == 5)
        #expect(alerts.value == 1)
        #expect(beacons.value == 0)
        #expect(office.registrationCount == 4)
    }
}
