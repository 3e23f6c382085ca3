import Dispatch
import Mailroom
import Testing

/// What a request handler of the user's would carry: a task-local request number.
enum RequestContext {
    @TaskLocal static var number: Int?
}

/// An instrumentation written the way a user writes one: it captures the request number at the post, runs each
/// deferred delivery with it bound again, and writes down everything the office tells it.
struct RequestInstrumentation: MailInstrumentation {
    let log: Recorder<String>

    func posted(_ mailType: any Mail.Type) {
        log.record("posted \(mailType)")
    }

    func delivered(_ delivery: Delivery) {
        log.record("delivered \(delivery.mailType) \(delivery.place)")
    }

    func capture(_ delivery: Delivery) -> Int? {
        log.record("captured \(delivery.mailType) \(delivery.place) in request \(RequestContext.number ?? 0)")
        return RequestContext.number
    }

    func run(_ delivery: Delivery, in context: Int?, _ handler: () -> Void) {
        log.record("run \(delivery.mailType) \(delivery.place) in request \(context ?? 0)")
        RequestContext.$number.withValue(context, operation: handler)
    }

    func run(
        _ delivery: Delivery, in context: Int?, isolation: isolated (any Actor)?, _ handler: () async -> Void
    ) async {
        log.record("run \(delivery.mailType) \(delivery.place) in request \(context ?? 0)")
        await RequestContext.$number.withValue(context, operation: handler)
    }

    func failed(_ failure: DeliveryFailure) {
        log.record("failed \(type(of: failure.mail)) \(failure.recipient) \(failure.error)")
    }

    func undelivered(_ report: UndeliveredMail) {
        log.record("undelivered \(type(of: report.mail))")
    }
}

/// Records the request a recipient runs in.
actor RequestTaker {
    let seen: Recorder<String>

    init(_ seen: Recorder<String>) {
        self.seen = seen
    }

    func take(_ ping: Ping) {
        seen.record("actor got \(ping.n) in request \(RequestContext.number ?? 0)")
    }
}

/// Writes down which registration each delivery and failure names.
struct RecipientInstrumentation: MailInstrumentation {
    let log: Recorder<String>

    func delivered(_ delivery: Delivery) {
        log.record("delivered to \(Self.name(delivery.recipient))")
    }

    func capture(_ delivery: Delivery) {
        log.record("captured for \(Self.name(delivery.recipient))")
    }

    func failed(_ failure: DeliveryFailure) {
        log.record("\(failure.recipient) failed")
    }

    private static func name(_ recipient: RecipientId?) -> String {
        recipient.map { "\($0)" } ?? "a sequence"
    }
}

@Suite("Instrumentation: what an instrumented office reports, and the context deferred deliveries run in")
struct InstrumentationTests {
    private static func office(_ log: Recorder<String>) -> PostOffice {
        PostOffice(instrumentation: RequestInstrumentation(log: log), unheardFailures: { _ in })
    }

    @Test("A post is reported once, before its synchronous recipients, each reported before its handler runs")
    func postAndSynchronousDeliveriesAreReportedInOrder() {
        let log = Recorder<String>()
        let office = Self.office(log)
        office.register { (ping: Ping) in log.record("closure got \(ping.n)") }
        office.intercept { (ping: Ping) -> Consumption in
            log.record("interceptor got \(ping.n)")
            return .passOn
        }

        office.post(Ping(n: 1))

        #expect(
            log.events == [
                "posted Ping", "delivered Ping postingThread", "closure got 1", "delivered Ping postingThread",
                "interceptor got 1",
            ])
    }

    @Test("A post that reaches nobody is reported as undelivered, whether or not anything receives UndeliveredMail")
    func undeliveredMailIsReported() {
        let log = Recorder<String>()
        let office = Self.office(log)

        office.post(Pong(n: 1))
        #expect(log.events == ["posted Pong", "undelivered Pong"])

        log.removeAll()
        office.register { (lost: UndeliveredMail) in log.record("report of \(type(of: lost.mail))") }
        office.post(Pong(n: 2))
        #expect(
            log.events == [
                "posted Pong", "undelivered Pong", "posted UndeliveredMail", "delivered UndeliveredMail postingThread",
                "report of Pong",
            ])
    }

    @Test("A failure is reported with its recipient on the thread where the handler threw, before it is posted")
    func failureIsReportedBeforeItsPost() {
        let log = Recorder<String>()
        let office = Self.office(log)
        let id = office.register { (ping: Ping) throws(Oops) in throw Oops(tag: "\(ping.n)") }

        office.post(Ping(n: 7))

        #expect(
            log.events == [
                "posted Ping", "delivered Ping postingThread", "failed Ping \(id) Oops(tag: \"7\")",
                "posted DeliveryFailure",
            ])
    }

    @Test("Queue, main-actor and protocol recipients run in the request of their own post, captured as it was made")
    func queuedDeliveriesRunInTheirPostsContext() async {
        let log = Recorder<String>()
        let seen = Recorder<String>()
        let office = Self.office(log)
        let queue = DispatchQueue(label: "instrumented")
        office.register(queue: queue) { (ping: Ping) in
            seen.record("queue got \(ping.n) in request \(RequestContext.number ?? 0)")
        }
        office.register(on: .mainActor) { (ping: Ping) in
            seen.record("main actor got \(ping.n) in request \(RequestContext.number ?? 0)")
        }
        office.register(queue: queue, conformingTo: Alert.self) { (alert: any Alert) in
            seen.record("protocol got \(alert.message) in request \(RequestContext.number ?? 0)")
        }

        await onBackgroundThread("posts in two requests and outside any") {
            for n in 1...3 {
                let request = n == 3 ? nil : n
                RequestContext.$number.withValue(request) {
                    office.post(Ping(n: n))
                    office.post(DiskFull(percent: n))
                }
            }
        }
        await seen.waitForCount(9, "deliveries")

        #expect(RequestContext.number == nil)
        for n in 1...3 {
            let request = n == 3 ? 0 : n
            for recipient in ["queue", "main actor"] {
                #expect(seen.events.contains("\(recipient) got \(n) in request \(request)"))
            }
            #expect(seen.events.contains("protocol got disk \(n)% in request \(request)"))
        }
        #expect(seen.events.filter { $0.hasPrefix("queue") || $0.hasPrefix("protocol") }.count == 6)
        #expect(log.events.filter { $0.hasPrefix("captured") }.count == 9)
        #expect(log.events.filter { $0.hasPrefix("run") }.count == 9)
        #expect(log.events.filter { $0.hasPrefix("delivered") }.isEmpty)
        #expect(log.events.contains("captured Ping mainActor in request 2"))
        #expect(log.events.contains("run Ping queue in request 1"))
        #expect(log.events.contains("run DiskFull queue in request 2"))
        #expect(log.events.filter { $0.hasPrefix("undelivered") }.isEmpty)
    }

    @Test("Async closures and actors run in the request of their own post, in post order")
    func asyncDeliveriesRunInTheirPostsContext() async {
        let log = Recorder<String>()
        let seen = Recorder<String>()
        let office = Self.office(log)
        office.register { (ping: Ping) async in
            seen.record("async got \(ping.n) in request \(RequestContext.number ?? 0)")
        }
        let taker = RequestTaker(seen)
        office.register(taker) { (taker: isolated RequestTaker, ping: Ping) in taker.take(ping) }

        for n in 1...20 {
            RequestContext.$number.withValue(100 + n) { office.post(Ping(n: n)) }
        }
        await seen.waitForCount(40, "deliveries")

        let events = seen.events
        #expect(events.filter { $0.hasPrefix("async") } == (1...20).map { "async got \($0) in request \(100 + $0)" })
        #expect(events.filter { $0.hasPrefix("actor") } == (1...20).map { "actor got \($0) in request \(100 + $0)" })
        #expect(log.events.filter { $0 == "run Ping task in request 105" }.count == 2)
    }

    @Test("A delivery dropped before it runs is captured and never run")
    func droppedDeliveryIsNeverRun() async {
        let log = Recorder<String>()
        let office = Self.office(log)
        let queue = DispatchQueue(label: "suspended")
        let id = office.register(queue: queue) { (_: Ping) in log.record("handler ran") }

        queue.suspend()
        office.post(Ping(n: 1))
        office.unregister(id)
        queue.resume()
        await queueDrained(queue)

        #expect(log.events == ["posted Ping", "captured Ping queue in request 0"])
    }

    @Test("receive runs its body in each mail's request; a for-await loop takes the mail in it, its body does not")
    func sequencesCarryTheirPostsContext() async {
        let log = Recorder<String>()
        let office = Self.office(log)
        let sequence = office.mail(of: Ping.self)
        let loop = Task {
            var seen: [String] = []
            await sequence.receive { ping in
                seen.append("\(ping.n) in request \(RequestContext.number ?? 0)")
            }
            return seen
        }
        let awaited = office.mail(of: Ping.self)
        for n in 1...3 {
            RequestContext.$number.withValue(n * 10) { office.post(Ping(n: n)) }
        }
        loop.cancel()
        var awaitedRequests: [Int] = []
        for await _ in awaited {
            awaitedRequests.append(RequestContext.number ?? 0)
            if awaitedRequests.count == 3 { break }
        }

        #expect(await loop.value == ["1 in request 10", "2 in request 20", "3 in request 30"])
        #expect(awaitedRequests == [0, 0, 0])
        let captured = log.events.filter { $0.hasPrefix("captured") }
        #expect(
            captured == [10, 20, 30].flatMap { Array(repeating: "captured Ping sequence in request \($0)", count: 2) })
        let runs = log.events.filter { $0.hasPrefix("run") }
        #expect(runs.filter { $0.contains(" sequence ") } == [10, 20, 30].map { "run Ping sequence in request \($0)" })
        #expect(
            runs.filter { $0.contains(" forAwaitLoop ") }
                == [10, 20, 30].map { "run Ping forAwaitLoop in request \($0)" })
        #expect(runs.count == 6)
        #expect(log.events.filter { $0.hasPrefix("delivered") }.isEmpty)
    }

    @Test("receive throws what its body throws, and its registration ends")
    func receiveRethrows() async {
        let office = PostOffice()
        let sequence = office.mail(of: Ping.self)
        for n in 1...3 {
            office.post(Ping(n: n))
        }
        var seen: [Int] = []
        await #expect(throws: Oops(tag: "2")) {
            try await sequence.receive { (ping: Ping) throws(Oops) in
                seen.append(ping.n)
                if ping.n == 2 { throw Oops(tag: "2") }
            }
        }
        #expect(seen == [1, 2])
        #expect(office.registrationCount == 0)

        var again: [Int] = []
        await sequence.receive { again.append($0.n) }
        #expect(again.isEmpty)
    }

    @Test("Each delivery names the registration it is for, as the failure of its handler does; a sequence's none")
    func deliveriesNameTheirRegistration() async {
        let log = Recorder<String>()
        let office = PostOffice(instrumentation: RecipientInstrumentation(log: log), unheardFailures: { _ in })
        let queue = DispatchQueue(label: "named")
        let now = office.register { (_: Ping) in }
        let later = office.register(queue: queue) { (_: Ping) throws(Oops) in throw Oops(tag: "later") }
        let sequence = office.mail(of: Ping.self)

        queue.suspend()
        office.post(Ping(n: 1))
        queue.resume()
        await queueDrained(queue)

        #expect(
            log.events == [
                "delivered to \(now)", "captured for \(later)", "captured for a sequence", "\(later) failed",
            ])
        withExtendedLifetime(sequence) {}
    }
}
