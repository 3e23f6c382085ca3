import Dispatch
import Mailroom
import Testing

/// An interceptor whose methods log each mail they see and consume it; registered as closures tied to it.
private final class KeyFilter: Sendable {
    let log: Log

    init(log: Log) {
        self.log = log
    }

    func handle(_ ping: Ping) -> Consumption {
        log.record("filter \(ping.n)")
        return .consumed
    }

    func handle(_ ping: Ping, from device: Device) -> Consumption {
        log.record("filter \(ping.n) from \(device.name)")
        return .consumed
    }
}

/// An object whose methods consume `ProbeParcel`s, logging them, for the intercepting "method" forms: closures tied
/// to it that call them (there are no intercepting methods).
private final class Consumer: Sendable {
    let log: FormLog

    init(log: FormLog) {
        self.log = log
    }

    func consume(_ parcel: ProbeParcel) -> Consumption { log.consume(parcel.n) }
    func consume(_ parcel: ProbeParcel, from courier: ProbeCourier) -> Consumption {
        log.consume(parcel.n, courier.name)
    }
    func consume(_ parcel: ProbeParcel, fromOptional courier: ProbeCourier?) -> Consumption {
        log.consume(parcel.n, courier?.name ?? "nil")
    }
    func consumeIgnoring(_: ProbeParcel) -> Consumption { log.consume(nil) }
}

extension FormLog {
    /// Records a delivery to an interceptor that consumes the mail.
    fileprivate func consume(_ n: Int?, _ sender: String? = nil) -> Consumption {
        record(n, sender)
        return .consumed
    }
}

@Suite("An interceptor that consumes mail ends its post")
struct InterceptTests {
    @Test(
        "Mail an interceptor consumes reaches no recipient after it, on the posting thread, a queue, the main actor, a task or an actor; .passOn passes it on"
    )
    func consumedMailReachesNoRecipientAfter() async throws {
        let office = PostOffice()
        let log = Log()
        let deferred = Log()
        let queue = DispatchQueue(label: "intercept.after")
        let store = PingStore(tape: deferred)
        office.register(priority: .high) { (ping: Ping) in log.record("before \(ping.n)") }
        office.intercept { (ping: Ping) in
            log.record("interceptor \(ping.n)")
            return ping.n == 1 ? .consumed : .passOn
        }
        office.register { (ping: Ping) in log.record("after \(ping.n)") }
        office.register(conformingTo: (any Mail).self) { (mail: any Mail) in
            log.record("catch-all after \(typeName(mail))")
        }
        office.register(queue: queue) { (ping: Ping) in deferred.record("queue \(ping.n)") }
        office.register(on: .mainActor) { (ping: Ping) in deferred.record("main actor \(ping.n)") }
        office.register { (ping: Ping) async in deferred.record("async \(ping.n)") }
        office.register(store) { store, ping in store.apply(ping) }

        try await office.deliver(Ping(n: 1))
        await queueDrained(queue)
        await mainQueueDrained()
        #expect(log.events == ["before 1", "interceptor 1"])
        #expect(deferred.events.isEmpty)

        // Every deferred recipient receives its mail in post order: had Ping 1 been enqueued, it would come first.
        try await office.deliver(Ping(n: 2))
        #expect(
            log.events == ["before 1", "interceptor 1", "before 2", "interceptor 2", "after 2", "catch-all after Ping"])
        #expect(deferred.events.sorted() == ["apply 2", "async 2", "main actor 2", "queue 2"])
    }

    @Test("Deliveries enqueued before the interceptor consumed the mail still run, and deliver waits for them")
    func deliveriesEnqueuedBeforeStillRun() async {
        let office = PostOffice()
        let log = Log()
        let queue = DispatchQueue(label: "intercept.before")
        let store = PingStore(tape: log)
        office.register(queue: queue, priority: .high) { (ping: Ping) in log.record("queue \(ping.n)") }
        office.register(on: .mainActor, priority: .high) { (ping: Ping) in log.record("main actor \(ping.n)") }
        office.register(priority: .high) { (ping: Ping) async in log.record("async \(ping.n)") }
        office.register(priority: .high, store) { store, ping in store.apply(ping) }
        office.intercept { (ping: Ping) in
            log.record("interceptor \(ping.n)")
            return .consumed
        }
        office.register(queue: queue) { (ping: Ping) in log.record("queue after \(ping.n)") }

        let gate = block(queue)
        defer { gate.open() }
        let delivery = Task { () -> [String] in
            try await office.deliver(Ping(n: 1))
            return log.events
        }
        await log.waitForCount(4, "the interceptor and the deliveries that need no queue")
        gate.open()
        let seenWhenDeliverReturned = await finish("deliver(Ping 1)") { try await delivery.value }
        await queueDrained(queue)

        #expect(
            seenWhenDeliverReturned?.sorted() == ["apply 1", "async 1", "interceptor 1", "main actor 1", "queue 1"])
        #expect(log.count == 5)
    }

    @Test(
        "Consumption ends a post across the merged mail-type and exact-sender routes, whichever route the interceptor is in"
    )
    func consumptionAcrossMergedRoutes() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        let phone = Phone("phone")
        office.register(priority: .high, sender: device) { (ping: Ping) in log.record("exact high \(ping.n)") }
        office.register(priority: 10) { (ping: Ping) in log.record("type 10 \(ping.n)") }
        office.intercept(priority: 5, sender: device) { (ping: Ping) in
            log.record("exact interceptor \(ping.n)")
            return .consumed
        }
        office.register(priority: 1) { (ping: Ping) in log.record("type 1 \(ping.n)") }
        office.register(sender: device) { (ping: Ping) in log.record("exact \(ping.n)") }
        office.register(priority: 7, sender: phone) { (ping: Ping) in log.record("phone 7 \(ping.n)") }
        office.intercept(priority: 3) { (ping: Ping, sender: Phone) in
            log.record("phone interceptor \(ping.n)")
            return .consumed
        }
        office.register(priority: 2, sender: phone) { (ping: Ping) in log.record("phone 2 \(ping.n)") }
        office.register(priority: .low) { (ping: Ping, _: Device?) in log.record("type low \(ping.n)") }

        office.post(Ping(n: 1), sender: device)
        office.post(Ping(n: 2), sender: phone)
        office.post(Ping(n: 3))

        #expect(
            log.events == [
                "exact high 1", "type 10 1", "exact interceptor 1",
                "type 10 2", "phone 7 2", "phone interceptor 2",
                "type 10 3", "type 1 3", "type low 3",
            ])
    }

    @Test("Consumed mail was received: it is not reported as UndeliveredMail")
    func consumedMailIsNotUndelivered() {
        let office = PostOffice()
        let reports = Log()
        office.register { (lost: UndeliveredMail) in reports.record("\(lost.mail)") }
        office.intercept { (_: Ping) in .consumed }
        office.intercept(of: Pong.self) { _ in .consumed }
        office.register { (_: Pong) in reports.record("never: after the interceptor") }

        office.post(Ping(n: 1))
        office.post(Pong(n: 2), sender: Device("device"))
        office.post(Chime())

        #expect(reports.events == ["Chime()"], "only the mail nobody registered for")
    }

    @Test("Consumed sticky mail is still kept as posted: a registration added later receives it by replay")
    func consumedStickyMailIsKept() {
        let office = PostOffice()
        let log = Log()
        office.intercept { (ping: Ping) in
            log.record("interceptor ping \(ping.n)")
            return .consumed
        }
        office.intercept { (state: SessionState) in
            log.record("interceptor \(state.user)")
            return .consumed
        }
        office.register { (ping: Ping) in log.record("never: ping \(ping.n) after the interceptor") }

        office.post(Ping(n: 1), sticky: true)
        office.post(SessionState(user: "ada"))

        let late = office.register { (ping: Ping) in log.record("late ping \(ping.n)") }
        let lateState = office.register { (state: SessionState) in log.record("late \(state.user)") }
        #expect(office.replayStickyMail(to: late) == 1)
        #expect(office.replayStickyMail(to: lateState) == 1)
        #expect(log.events == ["interceptor ping 1", "interceptor ada", "late ping 1", "late ada"])
    }

    @Test(
        "An interceptor that throws has not consumed the mail: the recipients after it are served, and the failure reported"
    )
    func throwingInterceptorDoesNotConsume() async {
        let office = PostOffice()
        let log = Log()
        office.register { (failure: DeliveryFailure) in log.record("report: \(failure.error)") }
        let interceptor = office.intercept { (ping: Ping) throws(Oops) -> Consumption in
            log.record("interceptor \(ping.n)")
            throw Oops(tag: "interceptor")
        }
        office.register { (ping: Ping) in log.record("after \(ping.n)") }

        let thrown = await thrownFailures(delivering: Ping(n: 1), on: office)

        #expect(log.events == ["interceptor 1", "report: Oops(tag: \"interceptor\")", "after 1"])
        #expect(thrown?.map(\.recipient) == [interceptor])
    }

    @Test("A nested post that an interceptor consumes ends only the nested post; the outer post goes on")
    func nestedConsumptionEndsOnlyTheNestedPost() {
        let office = PostOffice()
        let log = Log()
        office.register(priority: .high) { [unowned office] (ping: Ping) in
            log.record("first \(ping.n)")
            if ping.n == 1 {
                office.post(Ping(n: 2))
                office.post(Pong(n: 3))
            }
        }
        office.intercept { (ping: Ping) in
            log.record("interceptor \(ping.n)")
            return ping.n == 2 ? .consumed : .passOn
        }
        office.intercept { (pong: Pong) in
            log.record("pong interceptor \(pong.n)")
            return .consumed
        }
        office.register { (pong: Pong) in log.record("never: pong \(pong.n) after its interceptor") }
        office.register { (ping: Ping) in log.record("after \(ping.n)") }

        office.post(Ping(n: 1))

        #expect(
            log.events == [
                "first 1", "first 2", "interceptor 2", "pong interceptor 3", "interceptor 1", "after 1",
            ])
    }

    @Test("An interceptor that posts before consuming ends its own post only: the nested post is delivered in full")
    func interceptorsNestedPostIsDelivered() {
        let office = PostOffice()
        let log = Log()
        office.intercept { [unowned office] (ping: Ping) in
            log.record("interceptor \(ping.n)")
            if ping.n == 1 {
                office.post(Ping(n: 2))
            }
            return ping.n == 1 ? .consumed : .passOn
        }
        office.register { (ping: Ping) in log.record("after \(ping.n)") }

        office.post(Ping(n: 1))

        #expect(log.events == ["interceptor 1", "interceptor 2", "after 2"])
    }

    @Test(
        "An interceptor tied to an object that it captures weakly ends with the object: once it is gone it is skipped, and the post goes on"
    )
    func tiedInterceptorWithAGoneObject() {
        let office = PostOffice()
        let log = Log()
        let device = Device("device")
        do {
            let filter = KeyFilter(log: log)
            office.intercept(priority: .high, tiedTo: filter) { [weak filter] (ping: Ping) -> Consumption in
                filter?.handle(ping) ?? .passOn
            }
            office.intercept(priority: .high, tiedTo: filter) {
                [weak filter] (ping: Ping, device: Device) -> Consumption in
                filter?.handle(ping, from: device) ?? .passOn
            }
            office.register { (ping: Ping) in log.record("after \(ping.n)") }
            withExtendedLifetime(filter) {
                office.post(Ping(n: 1))
                office.post(Ping(n: 2), sender: device)
            }
        }

        office.post(Ping(n: 3))
        office.post(Ping(n: 4), sender: device)

        #expect(log.events == ["filter 1", "filter 2", "after 3", "after 4"])
        #expect(office.registrationCount == 1)
    }

    /// Every intercepting form, closure and closure tied to an object, with a handler that consumes: five posts (see
    /// `FivePosts`).
    @Test(
        "Every intercept form consumes exactly the posts its filter accepts",
        arguments: RegisterForm.allCases.filter { [.interceptingClosure, .interceptingMethod].contains($0.kind) })
    func everyInterceptFormConsumesWhatItsFilterAccepts(form: RegisterForm) async throws {
        let office = PostOffice()
        let posts = FivePosts()
        let log = FormLog()
        let consumer = Consumer(log: log)
        let before = Shared<[Int]>([])
        let after = Shared<[Int]>([])
        office.register(priority: .high) { (parcel: ProbeParcel) in before.update { $0.append(parcel.n) } }
        Self.registerConsuming(form, on: office, exact: posts.exact, consumer: consumer)
        office.register { (parcel: ProbeParcel) in after.update { $0.append(parcel.n) } }

        for n in FivePosts.numbers {
            #expect(await posts.deliver(n, on: office) == nil)
        }

        let received = FivePosts.numbers.map { FivePosts.received(by: form.filter, post: $0) }
        #expect(log.entries == received.compactMap { $0.map { FormDelivery(n: $0.n, sender: $0.sender, onMain: nil) } })
        #expect(before.value == [1, 2, 3, 4, 5])
        #expect(after.value == FivePosts.numbers.filter { received[$0 - 1] == nil })
        withExtendedLifetime(consumer) {}
    }

    /// Registers `form`, an intercepting form, with a handler (or a closure tied to `consumer` that calls its method)
    /// that logs and consumes each mail.
    private static func registerConsuming(
        _ form: RegisterForm, on office: PostOffice, exact: ProbeCourier, consumer: Consumer
    ) {
        let log = consumer.log
        switch form {
        case .interceptingClosureAny:
            office.intercept { (parcel: ProbeParcel) in log.consume(parcel.n) }
        case .interceptingClosureSenderClass:
            office.intercept { (parcel: ProbeParcel, courier: ProbeCourier) in log.consume(parcel.n, courier.name) }
        case .interceptingClosureSenderClassOrNone:
            office.intercept { (parcel: ProbeParcel, courier: ProbeCourier?) in
                log.consume(parcel.n, courier?.name ?? "nil")
            }
        case .interceptingClosureExact:
            office.intercept(sender: exact) { (parcel: ProbeParcel) in log.consume(parcel.n) }
        case .interceptingClosureExactWithSender:
            office.intercept(sender: exact) { (parcel: ProbeParcel, courier: ProbeCourier) in
                log.consume(parcel.n, courier.name)
            }
        case .interceptingClosureNoContents:
            office.intercept(of: ProbeParcel.self) { _ in log.consume(nil) }
        case .interceptingClosureExactNoContents:
            office.intercept(of: ProbeParcel.self, sender: exact) { _ in log.consume(nil) }
        case .interceptingMethodAny:
            office.intercept(tiedTo: consumer) { [weak consumer] (parcel: ProbeParcel) -> Consumption in
                consumer?.consume(parcel) ?? .passOn
            }
        case .interceptingMethodSenderClass:
            office.intercept(tiedTo: consumer) {
                [weak consumer] (parcel: ProbeParcel, courier: ProbeCourier) -> Consumption in
                consumer?.consume(parcel, from: courier) ?? .passOn
            }
        case .interceptingMethodSenderClassOrNone:
            office.intercept(tiedTo: consumer) {
                [weak consumer] (parcel: ProbeParcel, courier: ProbeCourier?) -> Consumption in
                consumer?.consume(parcel, fromOptional: courier) ?? .passOn
            }
        case .interceptingMethodExact:
            office.intercept(sender: exact, tiedTo: consumer) {
                [weak consumer] (parcel: ProbeParcel) -> Consumption in consumer?.consume(parcel) ?? .passOn
            }
        case .interceptingMethodExactWithSender:
            office.intercept(sender: exact, tiedTo: consumer) {
                [weak consumer] (parcel: ProbeParcel, courier: ProbeCourier) -> Consumption in
                consumer?.consume(parcel, from: courier) ?? .passOn
            }
        case .interceptingMethodNoContents:
            office.intercept(tiedTo: consumer) { [weak consumer] (parcel: ProbeParcel) -> Consumption in
                consumer?.consumeIgnoring(parcel) ?? .passOn
            }
        case .interceptingMethodExactNoContents:
            office.intercept(sender: exact, tiedTo: consumer) {
                [weak consumer] (parcel: ProbeParcel) -> Consumption in consumer?.consumeIgnoring(parcel) ?? .passOn
            }
        default:
            Issue.record("\(form) is not an intercepting form")
        }
    }
}
