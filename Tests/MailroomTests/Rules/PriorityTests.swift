import Dispatch
import Mailroom
import MailroomTestSupport
import Testing

/// A recipient whose methods log, for the method registrations of the priority tests.
private final class Bulletin: Sendable {
    let label: String
    let log: Log

    init(_ label: String, log: Log) {
        self.label = label
        self.log = log
    }

    func receive(_ notice: Notice) {
        log.record(label)
    }

    func receive(_ urgent: UrgentNotice, from device: Device) {
        log.record(label)
    }

    func pass(_ notice: Notice) -> Consumption {
        log.record(label)
        return .passOn
    }
}

@Suite("Recipients are called by priority, then registration order")
struct PriorityTests {
    @Test(
        "One post calls mail-type, superclass, sender-filtered, exact-sender, protocol, catch-all, method and intercepting registrations by priority, then registration order"
    )
    func priorityOrdersEveryKindOfRegistration() {
        let office = PostOffice()
        let log = Log()
        let phone = Phone("phone")
        let device = Device("device")
        let bulletin = Bulletin("8 method notice 5", log: log)
        let urgentBulletin = Bulletin("13 method urgent from device", log: log)

        office.register(priority: .low) { (_: Notice) in log.record("1 notice low") }
        office.register { (_: SevereNotice) in log.record("2 severe") }
        office.register(priority: .high) { (_: UrgentNotice, _: Device) in log.record("3 urgent from device high") }
        office.register(priority: 5, conformingTo: Alert.self) { _ in log.record("4 alert 5") }
        office.register(priority: .high, conformingTo: (any Mail).self) { (_: any Mail) in
            log.record("5 catch-all high")
        }
        office.register(priority: 5, sender: phone) { (_: Notice) in log.record("6 exact notice 5") }
        office.register(priority: .low) { (_: Notice, _: Device?) in log.record("7 notice from device? low") }
        office.register(priority: 5, bulletin, Bulletin.receive(_:))
        office.register(priority: .high, sender: phone) { (_: SevereNotice, _: Phone) in
            log.record("9 exact severe high")
        }
        office.register(priority: -5, conformingTo: Alert.self) { (_, _: Phone) in log.record("10 alert from phone -5")
        }
        office.register(conformingTo: (any Mail).self) { (_: any Mail, _: (any AnyObject & Sendable)?) in
            log.record("11 catch-all")
        }
        office.intercept(priority: 5) { (_: UrgentNotice) in
            log.record("12 interceptor 5")
            return .passOn
        }
        office.register(urgentBulletin, Bulletin.receive(_:from:))
        office.register { (_: SevereNotice) in log.record("14 severe") }
        office.register(of: SevereNotice.self, priority: .low, sender: phone) { _ in log.record("15 exact severe low") }
        office.register(of: Notice.self, priority: 200) { _ in log.record("16 notice 200") }

        office.post(SevereNotice("s"), sender: phone)
        #expect(
            log.events == [
                "16 notice 200",
                "3 urgent from device high", "5 catch-all high", "9 exact severe high",
                "4 alert 5", "6 exact notice 5", "8 method notice 5", "12 interceptor 5",
                "2 severe", "11 catch-all", "13 method urgent from device", "14 severe",
                "10 alert from phone -5",
                "1 notice low", "7 notice from device? low", "15 exact severe low",
            ])
        log.removeAll()

        office.post(SevereNotice("s"))
        #expect(
            log.events == [
                "16 notice 200", "5 catch-all high", "4 alert 5", "8 method notice 5", "12 interceptor 5", "2 severe",
                "11 catch-all", "14 severe", "1 notice low", "7 notice from device? low",
            ])
        log.removeAll()

        office.post(UrgentNotice("u"), sender: device)
        #expect(
            log.events == [
                "16 notice 200", "3 urgent from device high", "5 catch-all high", "4 alert 5", "8 method notice 5",
                "12 interceptor 5", "11 catch-all", "13 method urgent from device", "1 notice low",
                "7 notice from device? low",
            ])
        withExtendedLifetime((bulletin, urgentBulletin)) {}
    }

    @Test("At equal priority, registration order decides, across the mail-type and exact-sender routes")
    func equalPriorityKeepsRegistrationOrder() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        office.register(priority: 1) { (_: Ping) in log.record("a 1") }
        office.register(priority: 2, sender: device) { (_: Ping) in log.record("b 2 exact") }
        office.register(priority: 1, sender: device) { (_: Ping) in log.record("c 1 exact") }
        office.register(priority: 2) { (_: Ping, _: Device) in log.record("d 2") }
        office.register(priority: 1) { (_: Ping, _: Device?) in log.record("e 1") }
        office.register(priority: 2, sender: device) { (_: Ping) in log.record("f 2 exact") }
        office.register(priority: 1, conformingTo: (any Mail).self) { (_: any Mail) in log.record("g 1 catch-all") }

        office.post(Ping(n: 1), sender: device)

        #expect(log.events == ["b 2 exact", "d 2", "f 2 exact", "a 1", "c 1 exact", "e 1", "g 1 catch-all"])
    }

    @Test("A registration added after the route exists takes its place by priority on the next post")
    func laterRegistrationTakesItsPlaceByPriority() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        office.register { (ping: Ping) in log.record("a \(ping.n)") }
        office.register(sender: device) { (ping: Ping) in log.record("b exact \(ping.n)") }
        office.register(priority: .low) { (ping: Ping) in log.record("c low \(ping.n)") }
        office.post(Ping(n: 1), sender: device)
        #expect(log.events == ["a 1", "b exact 1", "c low 1"])
        log.removeAll()

        office.register(priority: .high) { (ping: Ping) in log.record("d high \(ping.n)") }
        office.register(priority: .high, sender: device) { (ping: Ping) in log.record("e exact high \(ping.n)") }
        office.register(priority: 1) { (ping: Ping, _: Device?) in log.record("f 1 \(ping.n)") }
        office.register(priority: -1, sender: device) { (ping: Ping) in log.record("g exact -1 \(ping.n)") }
        office.register { (ping: Ping) in log.record("h \(ping.n)") }
        office.post(Ping(n: 2), sender: device)
        office.post(Ping(n: 3))

        #expect(
            log.events == [
                "d high 2", "e exact high 2", "f 1 2", "a 2", "b exact 2", "h 2", "g exact -1 2", "c low 2",
                "d high 3", "f 1 3", "a 3", "h 3", "c low 3",
            ])
    }

    @Test("A registration added during a post is not called by that post, whatever its priority; it is by the next")
    func registrationAddedDuringAPostWaitsForTheNext() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        office.register { [unowned office] (ping: Ping) in
            log.record("a \(ping.n)")
            guard ping.n == 1 else { return }
            office.register(priority: .high) { (ping: Ping) in log.record("added high \(ping.n)") }
            office.register(priority: Priority(Int16.max), sender: device) { (ping: Ping) in
                log.record("added exact max \(ping.n)")
            }
            office.register(priority: .low) { (ping: Ping) in log.record("added low \(ping.n)") }
        }
        office.register { (ping: Ping) in log.record("b \(ping.n)") }

        office.post(Ping(n: 1), sender: device)
        office.post(Ping(n: 2), sender: device)

        #expect(log.events == ["a 1", "b 1", "added exact max 2", "added high 2", "a 2", "b 2", "added low 2"])
    }

    @Test("Unregistering keeps the others in their order, and a later registration takes its place among them")
    func unregisteringKeepsTheOrder() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        let priorities: [Priority] = [0, 100, -100, 100, 0, 5, -100, 5]
        let ids = priorities.enumerated().map { index, priority in
            index.isMultiple(of: 3)
                ? office.register(priority: priority, sender: device) { (_: Ping) in log.record("\(index)") }
                : office.register(priority: priority) { (_: Ping) in log.record("\(index)") }
        }
        office.post(Ping(n: 1), sender: device)
        #expect(log.events == ["1", "3", "5", "7", "0", "4", "2", "6"])
        log.removeAll()

        for index in [1, 4, 6] {
            office.unregister(ids[index])
        }
        office.register(priority: 5) { (_: Ping) in log.record("8") }
        office.post(Ping(n: 2), sender: device)

        #expect(log.events == ["3", "5", "7", "8", "0", "2"])
    }

    @Test("Priority(Int16.max) goes before every other priority and Priority(Int16.min) after, in registration order")
    func extremePriorities() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        office.register { (_: Ping) in log.record("normal") }
        office.register(priority: Priority(Int16.min)) { (_: Ping) in log.record("min 1") }
        office.register(priority: .high) { (_: Ping) in log.record("high") }
        office.register(priority: Priority(Int16.max)) { (_: Ping) in log.record("max 1") }
        office.register(priority: Priority(Int16.max), sender: device) { (_: Ping) in log.record("exact max") }
        office.register(priority: .low) { (_: Ping) in log.record("low") }
        office.register(priority: Priority(Int16.max)) { (_: Ping) in log.record("max 2") }
        office.register(priority: Priority(Int16.min)) { (_: Ping) in log.record("min 2") }
        office.register(priority: Priority(Int16.max - 1)) { (_: Ping) in log.record("max - 1") }
        office.register(priority: Priority(Int16.min + 1)) { (_: Ping) in log.record("min + 1") }
        office.register(priority: Priority(Int16.min), sender: device) { (_: Ping) in log.record("exact min") }

        office.post(Ping(n: 1), sender: device)

        #expect(
            log.events == [
                "max 1", "exact max", "max 2", "max - 1", "high", "normal", "low", "min + 1", "min 1", "min 2",
                "exact min",
            ])
    }

    @Test("Priorities compare by value: .high is 100, .normal 0, .low -100, and an integer literal is a priority")
    func priorityValues() {
        let literal: Priority = 7
        #expect(literal.value == 7)
        #expect([Priority.high, .normal, .low].map(\.value) == [100, 0, -100])
        #expect(Priority(Int16.min) < .low && .low < .normal && .normal < literal && literal < .high)
        #expect(Priority.high < Priority(Int16.max))
        #expect(Priority(3) == 3)
    }

    @Test("Deliveries on one serial queue are enqueued, so run, in priority then registration order")
    func queueDeliveriesRunInRankOrder() async throws {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        let queue = DispatchQueue(label: "priority.serial")
        office.register(queue: queue, priority: .low) { (_: Ping) in log.record("low") }
        office.register(queue: queue) { (_: Ping) in log.record("normal 1") }
        office.register(queue: queue, priority: .high) { (_: Ping) in log.record("high") }
        office.register(queue: queue, priority: 5) { (_: Ping, _: Device) in log.record("5 from device") }
        office.register(queue: queue, priority: .high, sender: device) { (_: Ping) in log.record("exact high") }
        office.register(queue: queue, priority: 50, conformingTo: (any Mail).self) { (_: any Mail) in
            log.record("catch-all 50")
        }
        office.register(queue: queue) { (_: Ping) in log.record("normal 2") }

        try await office.deliver(Ping(n: 1), sender: device)

        #expect(log.events == ["high", "exact high", "catch-all 50", "5 from device", "normal 1", "normal 2", "low"])
    }

    @Test("Main-actor deliveries of a post made off the main actor are enqueued in priority then registration order")
    func mainActorDeliveriesRunInRankOrder() async throws {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        office.register(on: .mainActor, priority: .low) { (_: Ping) in log.record("low") }
        office.register(on: .mainActor) { (_: Ping) in log.record("normal 1") }
        office.register(on: .mainActor, priority: .high) { (_: Ping) in log.record("high") }
        office.register(on: .mainActor, priority: .high, sender: device) { (_: Ping) in log.record("exact high") }
        office.register(on: .mainActor, priority: 7, conformingTo: (any Mail).self) { (_: any Mail) in
            log.record("catch-all 7")
        }
        office.register(on: .mainActor, priority: 7) { (_: Ping, _: Device?) in log.record("7 from device?") }
        office.register(on: .mainActor) { (_: Ping) in log.record("normal 2") }

        await onBackgroundThread("posting off the main actor") { office.post(Ping(n: 1), sender: device) }
        await mainQueueDrained()

        #expect(
            log.events == ["high", "exact high", "catch-all 7", "7 from device?", "normal 1", "normal 2", "low"])
    }

    @Test("registrations lists the registrations in the order posts call them: by priority, then registration order")
    func registrationsAreListedInRankOrder() {
        let office = PostOffice()
        let device = Device("device")
        let queue = DispatchQueue(label: "priority.introspection")
        let a = office.register { (_: Ping) in }
        let b = office.register(priority: .high) { (_: Pong) in }
        let c = office.register(queue: queue, priority: .low) { (_: Ping) in }
        let d = office.register(priority: 5, conformingTo: (any Mail).self) { (_: any Mail) in }
        let e = office.register(sender: device) { (_: Ping) in }
        let f = office.intercept(priority: Priority(Int16.max)) { (_: Pong) in .passOn }
        let g = office.register(priority: .high, conformingTo: Alert.self) { _ in }
        let h = office.register(on: .mainActor, priority: Priority(Int16.min)) { (_: Ping) in }

        #expect(office.registrations.map(\.id) == [f, b, g, d, a, e, c, h])
        office.unregister(g)
        #expect(office.registrations.map(\.id) == [f, b, d, a, e, c, h])
    }

    @Test("Interceptors take their place by priority like every other recipient, in every route")
    func interceptorsTakeTheirPlaceByPriority() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        let bulletin = Bulletin("method interceptor high", log: log)
        office.intercept(priority: .low) { (_: Notice) in
            log.record("interceptor low")
            return .passOn
        }
        office.register { (_: Notice) in log.record("normal") }
        office.intercept(priority: .high, sender: device) { (_: Notice) in
            log.record("exact interceptor high")
            return .passOn
        }
        office.intercept(of: Notice.self, priority: 5) { _ in
            log.record("interceptor 5")
            return .passOn
        }
        // An interceptor tied to the bulletin, calling its method (there are no intercepting methods).
        office.intercept(priority: .high, tiedTo: bulletin) { [weak bulletin] (notice: Notice) -> Consumption in
            bulletin?.pass(notice) ?? .passOn
        }

        office.post(Notice("n"), sender: device)

        #expect(
            log.events == [
                "exact interceptor high", "method interceptor high", "interceptor 5", "normal", "interceptor low",
            ])
        withExtendedLifetime(bulletin) {}
    }

    // MARK: - Seeded scenarios

    @Test(
        "Registrations of every kind, made in a seeded random order with random priorities, are called in the sorted order, before and after routes exist and after unregistering",
        arguments: 1...24 as ClosedRange<UInt64>
    )
    func shuffledRegistrationsAreCalledInSortedOrder(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let office = PostOffice()
        let phone = Phone("phone")
        let device = Device("device")
        let queue = DispatchQueue(label: "priority.seeded")
        let now = Log()
        let queued = Log()
        var registrations: [SeededRegistration] = []
        var bulletins: [Bulletin] = []

        func register(_ count: Int) {
            for _ in 0..<count {
                let shape = random.pick(SeededShape.allCases)
                let priority = random.pick(Self.seededPriorities)
                let label = "\(registrations.count)"
                let bulletin = Bulletin(label, log: shape.isQueued ? queued : now)
                bulletins.append(bulletin)
                let id = shape.register(
                    on: office, priority: priority, label: label, phone: phone, queue: queue,
                    log: shape.isQueued ? queued : now, bulletin: bulletin)
                registrations.append(
                    SeededRegistration(shape: shape, priority: priority, order: registrations.count, id: id))
            }
        }

        func checkEveryPost(_ phase: String) async throws {
            for mail in SeededMail.allCases {
                for sender in SeededSender.allCases {
                    now.removeAll()
                    queued.removeAll()
                    let posted: Notice = mail.make()
                    switch sender {
                    case .none: try await office.deliver(posted)
                    case .device: try await office.deliver(posted, sender: device)
                    case .phone: try await office.deliver(posted, sender: phone)
                    }
                    let expected = registrations.filter { $0.isAlive && $0.shape.accepts(mail, from: sender) }
                        .sorted { $0.goesBefore($1) }
                    let context: Comment = "seed \(seed), \(phase), \(mail) from \(sender)"
                    #expect(now.events == expected.filter { !$0.shape.isQueued }.map(\.label), context)
                    #expect(queued.events == expected.filter(\.shape.isQueued).map(\.label), context)
                }
            }
            let listed = registrations.filter(\.isAlive).sorted { $0.goesBefore($1) }.map(\.id)
            #expect(office.registrations.map(\.id) == listed, "seed \(seed), \(phase)")
        }

        register(12)
        try await checkEveryPost("before any route")
        register(12)
        try await checkEveryPost("after the routes exist")
        for index in registrations.indices where random.chance(30) {
            office.unregister(registrations[index].id)
            registrations[index].isAlive = false
        }
        register(4)
        try await checkEveryPost("after unregistering")
        withExtendedLifetime(bulletins) {}
    }

    private static let seededPriorities: [Priority] = [
        Priority(Int16.min), .low, -1, .normal, .normal, .normal, 1, 3, .high, Priority(Int16.max),
    ]
}

/// A registration of the seeded scenarios, made `order`-th.
private struct SeededRegistration {
    let shape: SeededShape
    let priority: Priority
    let order: Int
    let id: RecipientId
    var isAlive = true

    var label: String { "\(order)" }

    /// Whether a post calls it before `other`: by priority, then registration order.
    func goesBefore(_ other: SeededRegistration) -> Bool {
        priority != other.priority ? priority > other.priority : order < other.order
    }
}

/// The mail of the seeded scenarios: `Notice`, its subclass `UrgentNotice` (an `Alert`), and `SevereNotice` below it.
private enum SeededMail: CaseIterable, CustomStringConvertible {
    case notice, urgent, severe

    func make() -> Notice {
        switch self {
        case .notice: Notice("notice")
        case .urgent: UrgentNotice("urgent")
        case .severe: SevereNotice("severe")
        }
    }

    var description: String {
        switch self {
        case .notice: "Notice"
        case .urgent: "UrgentNotice"
        case .severe: "SevereNotice"
        }
    }
}

/// The senders of the seeded scenarios' posts: none, a `Device`, and the `Phone` the exact-sender forms name.
private enum SeededSender: CaseIterable {
    case none, device, phone
}

/// How a registration of the seeded scenarios registers, and which posts it accepts.
private enum SeededShape: CaseIterable {
    case notice, urgent, severe, noticeNoContents, alert, catchAll
    case urgentFromDevice, noticeFromOptionalPhone, alertFromDevice
    case exactNotice, exactSevereWithSender, exactAlert
    case interceptUrgent, interceptExact
    case noticeMethod, urgentMethodFromDevice
    case queueNotice, queueExactSevere, queueCatchAll

    var isQueued: Bool { [.queueNotice, .queueExactSevere, .queueCatchAll].contains(self) }

    func accepts(_ mail: SeededMail, from sender: SeededSender) -> Bool {
        switch self {
        case .notice, .catchAll, .noticeMethod, .queueNotice, .queueCatchAll, .noticeNoContents: true
        case .urgent, .alert, .interceptUrgent: mail != .notice
        case .severe: mail == .severe
        case .urgentFromDevice, .alertFromDevice, .urgentMethodFromDevice: mail != .notice && sender != .none
        case .noticeFromOptionalPhone: sender != .device
        case .exactNotice, .interceptExact: sender == .phone
        case .exactAlert: mail != .notice && sender == .phone
        case .exactSevereWithSender, .queueExactSevere: mail == .severe && sender == .phone
        }
    }

    func register(
        on office: PostOffice, priority: Priority, label: String, phone: Phone, queue: DispatchQueue, log: Log,
        bulletin: Bulletin
    ) -> RecipientId {
        switch self {
        case .notice: office.register(priority: priority) { (_: Notice) in log.record(label) }
        case .urgent: office.register(priority: priority) { (_: UrgentNotice) in log.record(label) }
        case .severe: office.register(priority: priority) { (_: SevereNotice) in log.record(label) }
        case .alert: office.register(priority: priority, conformingTo: Alert.self) { _ in log.record(label) }
        case .catchAll:
            office.register(priority: priority, conformingTo: (any Mail).self) { (_: any Mail) in log.record(label) }
        case .urgentFromDevice:
            office.register(priority: priority) { (_: UrgentNotice, _: Device) in log.record(label) }
        case .noticeFromOptionalPhone:
            office.register(priority: priority) { (_: Notice, _: Phone?) in log.record(label) }
        case .exactNotice: office.register(priority: priority, sender: phone) { (_: Notice) in log.record(label) }
        case .exactSevereWithSender:
            office.register(priority: priority, sender: phone) { (_: SevereNotice, _: Phone) in log.record(label) }
        case .alertFromDevice:
            office.register(priority: priority, conformingTo: Alert.self) { (_, _: Device) in log.record(label) }
        case .exactAlert:
            office.register(priority: priority, sender: phone, conformingTo: Alert.self) { _ in log.record(label) }
        case .interceptUrgent:
            office.intercept(priority: priority) { (_: UrgentNotice) in
                log.record(label)
                return .passOn
            }
        case .interceptExact:
            office.intercept(of: Notice.self, priority: priority, sender: phone) { _ in
                log.record(label)
                return .passOn
            }
        case .noticeMethod: office.register(priority: priority, bulletin, Bulletin.receive(_:))
        case .urgentMethodFromDevice: office.register(priority: priority, bulletin, Bulletin.receive(_:from:))
        case .noticeNoContents: office.register(of: Notice.self, priority: priority) { _ in log.record(label) }
        case .queueNotice: office.register(queue: queue, priority: priority) { (_: Notice) in log.record(label) }
        case .queueExactSevere:
            office.register(queue: queue, priority: priority, sender: phone) { (_: SevereNotice) in log.record(label) }
        case .queueCatchAll:
            office.register(queue: queue, priority: priority, conformingTo: (any Mail).self) { (_: any Mail) in
                log.record(label)
            }
        }
    }
}
