#if Observability
import CoreMetrics
import Dispatch
import Mailroom
import MetricsTestKit
import Testing

@testable import MailroomObservability

@Suite("Metrics: posts, deliveries by place, failures, undelivered mail and waits, with bounded labels")
struct MetricsTests {
    @Test("Posts, deliveries by place, failures and undelivered mail are counted exactly")
    func everyEventIsCountedExactly() async {
        let observed = Observed()
        let recipients = Recipients()
        recipients.register(with: observed.office)
        observed.office.register { (_: Tagged<Int>) throws(Oops) in throw Oops() }

        for n in 1...3 {
            await deliver(n, inRequest: nil, to: observed.office)
        }
        observed.office.post(Pong())
        observed.office.post(Pong())
        observed.office.post(Tagged<Int>())

        let ping = ("mail_type", Names.ping)
        let tagged = ("mail_type", "MailroomObservabilityTests.Tagged<Swift.Int>")
        #expect(observed.count("mailroom_posts", [ping]) == 3)
        #expect(observed.count("mailroom_posts", [("mail_type", Names.pong)]) == 2)
        #expect(observed.count("mailroom_posts", [tagged]) == 1)
        #expect(observed.count("mailroom_posts", [("mail_type", "Mailroom.DeliveryFailure")]) == 1)
        #expect(observed.metrics.counterTotal(label: "mailroom_posts") == 7)
        // The closure and the method run on the posting thread; the queue runs the queue closure and the
        // protocol one; the async closure and the actor run on tasks.
        #expect(observed.count("mailroom_deliveries", [ping, ("place", "posting_thread")]) == 6)
        #expect(observed.count("mailroom_deliveries", [ping, ("place", "queue")]) == 6)
        #expect(observed.count("mailroom_deliveries", [ping, ("place", "main_actor")]) == 3)
        #expect(observed.count("mailroom_deliveries", [ping, ("place", "task")]) == 6)
        #expect(observed.count("mailroom_deliveries", [tagged, ("place", "posting_thread")]) == 1)
        #expect(observed.metrics.counterTotal(label: "mailroom_deliveries") == 22)
        #expect(observed.count("mailroom_failures", [tagged, ("error_type", Names.oops)]) == 1)
        #expect(observed.metrics.counterTotal(label: "mailroom_failures") == 1)
        #expect(observed.count("mailroom_undelivered", [("mail_type", Names.pong)]) == 2)
        #expect(observed.metrics.counterTotal(label: "mailroom_undelivered") == 2)
    }

    @Test("The wait timer records one value per deferred delivery: the time from its post to its handler's start")
    func waitIsTimedOncePerDeferredDelivery() async {
        let observed = Observed()
        let recipients = Recipients()
        recipients.register(with: observed.office)

        recipients.queue.suspend()
        observed.office.post(Ping(n: 1))
        observed.clock.advance(by: .milliseconds(5))
        recipients.queue.resume()
        await deliver(2, inRequest: nil, to: observed.office)

        let ping = ("mail_type", Names.ping)
        #expect(observed.timed("mailroom_delivery_wait", [ping, ("place", "queue")]) == [5_000_000, 5_000_000, 0, 0])
        #expect(observed.timed("mailroom_delivery_wait", [ping, ("place", "main_actor")]).count == 2)
        #expect(observed.timed("mailroom_delivery_wait", [ping, ("place", "task")]).count == 4)
        #expect(observed.timed("mailroom_delivery_wait", [ping, ("place", "posting_thread")]).isEmpty)
        #expect(observed.metrics.timers.map(\.values.count).reduce(0, +) == 10)
    }

    @Test("A receive loop's deliveries are counted and timed at the place sequence")
    func sequenceDeliveriesAreCounted() async {
        let observed = Observed()
        let seen = Recorder<Sighting>()
        let loop = receiveLoop(observed.office, until: 2, recording: seen)

        observed.office.post(Ping(n: 1))
        observed.clock.advance(by: .milliseconds(1))
        observed.office.post(Ping(n: 2))
        _ = await loop.result

        let sequence = [("mail_type", Names.ping), ("place", "sequence")]
        #expect(observed.count("mailroom_deliveries", sequence) == 2)
        #expect(observed.timed("mailroom_delivery_wait", sequence).count == 2)
    }

    @Test("Mail types beyond the label limit are counted as other")
    func mailTypesBeyondTheLimitAreOther() {
        let observed = Observed(MailTelemetry.Configuration(mailTypeLabelLimit: 2))

        observed.office.post(Tagged<Int>())
        observed.office.post(Tagged<String>())
        observed.office.post(Tagged<Double>())
        observed.office.post(Tagged<Bool>())
        observed.office.post(Tagged<Double>())
        observed.office.post(Tagged<Int>())

        #expect(observed.count("mailroom_posts", [("mail_type", "MailroomObservabilityTests.Tagged<Swift.Int>")]) == 2)
        #expect(
            observed.count("mailroom_posts", [("mail_type", "MailroomObservabilityTests.Tagged<Swift.String>")]) == 1)
        #expect(observed.count("mailroom_posts", [("mail_type", "other")]) == 3)
        #expect(observed.metrics.counters(label: "mailroom_posts").count == 3)
        #expect(observed.count("mailroom_undelivered", [("mail_type", "other")]) == 3)
    }

    @Test("Error types beyond the label limit are counted as other")
    func errorTypesBeyondTheLimitAreOther() {
        let observed = Observed(MailTelemetry.Configuration(errorTypeLabelLimit: 1))
        let errors: [any Error] = [Oops(), Failure<Int>(), Failure<String>(), Oops()]
        observed.office.register { (ping: Ping) throws in throw errors[ping.n] }

        for n in errors.indices {
            observed.office.post(Ping(n: n))
        }

        let ping = ("mail_type", Names.ping)
        #expect(observed.count("mailroom_failures", [ping, ("error_type", Names.oops)]) == 2)
        #expect(observed.count("mailroom_failures", [ping, ("error_type", "other")]) == 2)
        #expect(observed.metrics.counters(label: "mailroom_failures").count == 2)
    }

    @Test("Posts from many threads at once are all counted, and their failures rate limited together")
    func concurrentPostsAreCountedExactly() async {
        let observed = Observed()
        observed.office.register { (ping: Ping) throws(Oops) in
            if ping.n.isMultiple(of: 10) { throw Oops() }
        }
        let office = observed.office

        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                DispatchQueue.concurrentPerform(iterations: 4) { thread in
                    for n in 0..<1000 {
                        office.post(Ping(n: n))
                        if thread == 0 { office.post(Tagged<Int>()) }
                        if thread == 1 { office.post(Tagged<String>()) }
                    }
                }
                done.resume()
            }
        }

        let ping = ("mail_type", Names.ping)
        #expect(observed.count("mailroom_posts", [ping]) == 4000)
        #expect(observed.count("mailroom_deliveries", [ping, ("place", "posting_thread")]) == 4000)
        #expect(observed.count("mailroom_failures", [ping, ("error_type", Names.oops)]) == 400)
        for tag in ["Int", "String"] {
            let tagged = ("mail_type", "MailroomObservabilityTests.Tagged<Swift.\(tag)>")
            #expect(observed.count("mailroom_undelivered", [tagged]) == 1000)
        }
        #expect(observed.logs.entries.count == 3)
    }

    @Test("The factory is asked once per label set, however many posts")
    func metricObjectsAreMadeOncePerLabelSet() async {
        let factory = CountingFactory()
        let telemetry = MailTelemetry(
            logger: Observed().telemetry.logger, metricsFactory: factory, tracer: Observed().tracer,
            configuration: MailTelemetry.Configuration(mailTypeLabelLimit: 1))
        let office = PostOffice(instrumentation: telemetry, unheardFailures: { _ in })
        office.register { (_: Ping) in }
        office.register(queue: DispatchQueue(label: "counted")) { (_: Ping) in }

        for n in 1...100 {
            await office.deliverIgnoringFailures(Ping(n: n))
            office.post(Tagged<Int>())
            office.post(Tagged<String>())
        }

        // Ping's posts and deliveries on the posting thread and on the queue; the others' posts, as other.
        #expect(factory.counters == ["mailroom_posts": 2, "mailroom_deliveries": 2, "mailroom_undelivered": 1])
        #expect(factory.timers == ["mailroom_delivery_wait": 1])
        #expect(factory.testMetrics.counterTotal(label: "mailroom_posts") == 300)
    }
}

/// A metrics factory that counts the metric objects it is asked for, by label.
final class CountingFactory: MetricsFactory {
    let testMetrics = TestMetrics()
    private let made = Locked<(counters: [String: Int], timers: [String: Int])>(([:], [:]))

    var counters: [String: Int] { made.withLock { $0.counters } }
    var timers: [String: Int] { made.withLock { $0.timers } }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        made.withLock { $0.counters[label, default: 0] += 1 }
        return testMetrics.makeCounter(label: label, dimensions: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        made.withLock { $0.timers[label, default: 0] += 1 }
        return testMetrics.makeTimer(label: label, dimensions: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        testMetrics.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
    }

    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}
#endif
