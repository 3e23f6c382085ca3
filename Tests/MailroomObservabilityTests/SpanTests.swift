#if Observability
import InMemoryTracing
import Mailroom
import Testing
import Tracing

@testable import MailroomObservability

@Suite("Spans: each deferred delivery in a consumer span of its own, in its poster's trace")
struct SpanTests {
    private static let spansOn = MailTelemetry.Configuration(spansForDeferredDeliveries: true)

    @Test("With spans on, each deferred delivery runs in one consumer span, a child of the posting span linked to it")
    func deferredDeliveriesRunInSpansOfTheirOwn() async throws {
        let observed = Observed(Self.spansOn)
        let recipients = Recipients()
        recipients.register(with: observed.office)
        let loop = receiveLoop(observed.office, until: 1, recording: recipients.seen)

        await observed.tracer.withSpan("request") { _ in
            await observed.office.deliverIgnoringFailures(Ping(n: 1))
        }
        _ = await loop.result

        let spans = observed.tracer.finishedSpans
        let request = try #require(spans.first { $0.operationName == "request" })
        let deliveries = spans.filter { $0.operationName != "request" }
        // Queue, main actor, async closure, actor, protocol on a queue, receive: not the closure and the method.
        #expect(deliveries.count == 6)
        #expect(
            deliveries.map { $0.attributes.get(DeliverySpan.Attribute.place) }.sorted { "\($0!)" < "\($1!)" } == [
                "main_actor", "queue", "queue", "sequence", "task", "task",
            ])
        for span in deliveries {
            #expect(span.operationName == Names.ping)
            #expect(span.kind == .consumer)
            #expect(span.traceID == request.traceID)
            #expect(span.parentSpanID == request.spanID)
            #expect(span.links.count == 1)
            #expect(span.links.first?.context.inMemorySpanContext == request.spanContext)
            #expect(span.attributes.get(DeliverySpan.Attribute.mailType) == .string(Names.ping))
            #expect(span.errors.isEmpty)
            #expect(span.status == nil)
        }
        // Each span names its recipient, but a sequence's, whose loop is no registration of its own.
        let named = deliveries.compactMap { $0.attributes.get(DeliverySpan.Attribute.recipient) }
        #expect(named.count == 5)
        #expect(Set(named.map { "\($0)" }).count == 5)
    }

    @Test("A recipient's own spans are children of its delivery's span")
    func recipientSpansAreChildrenOfTheDeliverySpan() async throws {
        let observed = Observed(Self.spansOn)
        let tracer = observed.tracer
        observed.office.register { (_: Ping) async in
            tracer.withSpan("work") { _ in }
        }

        await observed.tracer.withSpan("request") { _ in
            await observed.office.deliverIgnoringFailures(Ping(n: 1))
        }

        let spans = observed.tracer.finishedSpans
        let request = try #require(spans.first { $0.operationName == "request" })
        let delivery = try #require(spans.first { $0.operationName == Names.ping })
        let work = try #require(spans.first { $0.operationName == "work" })
        #expect(delivery.parentSpanID == request.spanID)
        #expect(work.parentSpanID == delivery.spanID)
        #expect(spans.count == 3)
    }

    @Test("Synchronous deliveries get no span")
    func synchronousDeliveriesGetNoSpan() async {
        let observed = Observed(Self.spansOn)
        let taker = PingTaker(Recorder())
        observed.office.register { (_: Ping) in }
        observed.office.register(taker, PingTaker.receive(_:))

        await observed.tracer.withSpan("request") { _ in
            await observed.office.deliverIgnoringFailures(Ping(n: 1))
        }

        #expect(observed.tracer.finishedSpans.map(\.operationName) == ["request"])
    }

    @Test("With spans off, no delivery gets a span")
    func spansAreOffByDefault() async {
        let observed = Observed()
        let recipients = Recipients()
        recipients.register(with: observed.office)

        await observed.tracer.withSpan("request") { _ in
            await observed.office.deliverIgnoringFailures(Ping(n: 1))
        }

        #expect(observed.tracer.finishedSpans.map(\.operationName) == ["request"])
        #expect(recipients.seen.all.count == Form.registered.count)
    }

    @Test("A deferred delivery posted outside any trace runs in a root span, with no link")
    func deliveryWithoutPosterContextGetsARootSpan() async throws {
        let observed = Observed(Self.spansOn)
        observed.office.register(queue: Recipients().queue) { (_: Ping) in }

        await observed.office.deliverIgnoringFailures(Ping(n: 1))

        let span = try #require(observed.tracer.finishedSpans.first)
        #expect(observed.tracer.finishedSpans.count == 1)
        #expect(span.parentSpanID == nil)
        #expect(span.links.isEmpty)
    }

    @Test("A deferred handler that throws records the error on its span, with the error status")
    func failingHandlerRecordsItsErrorOnItsSpan() async throws {
        let observed = Observed(Self.spansOn)
        let queue = Recipients().queue
        let failing = observed.office.register(queue: queue) { (ping: Ping) throws(Oops) in
            throw Oops(tag: "\(ping.n)")
        }
        observed.office.register { (_: Ping) async throws(Oops) in throw Oops(tag: "async") }
        observed.office.register(queue: queue) { (_: Ping) in }

        await observed.tracer.withSpan("request") { _ in
            await observed.office.deliverIgnoringFailures(Ping(n: 7))
        }

        let deliveries = observed.tracer.finishedSpans.filter { $0.operationName == Names.ping }
        #expect(deliveries.count == 3)
        let failed = deliveries.filter { !$0.errors.isEmpty }
        #expect(failed.count == 2)
        for span in failed {
            #expect(span.errors.count == 1)
            #expect(span.status == SpanStatus(code: .error))
        }
        let onQueue = try #require(failed.first { $0.attributes.get(DeliverySpan.Attribute.place) == "queue" })
        #expect(onQueue.errors.first?.error as? Oops == Oops(tag: "7"))
        #expect(onQueue.errors.first?.attributes == [DeliverySpan.Attribute.recipient: "\(failing)"])
        let onTask = try #require(failed.first { $0.attributes.get(DeliverySpan.Attribute.place) == "task" })
        #expect(onTask.errors.first?.error as? Oops == Oops(tag: "async"))
        #expect(deliveries.filter { $0.errors.isEmpty }.allSatisfy { $0.status == nil })
    }

    @Test("A failure of another recipient, of mail a deferred handler posts, is an error event on its span only")
    func nestedFailureIsAnEventOnly() async throws {
        let observed = Observed(Self.spansOn)
        let office = observed.office
        office.register { (_: Pong) throws(Oops) in throw Oops(tag: "nested") }
        office.register(queue: Recipients().queue) { (_: Ping) in office.post(Pong()) }

        await observed.office.deliverIgnoringFailures(Ping(n: 1))

        let span = try #require(observed.tracer.finishedSpans.first)
        #expect(observed.tracer.finishedSpans.count == 1)
        #expect(span.errors.map { $0.error as? Oops } == [Oops(tag: "nested")])
        #expect(span.status == nil)
    }

    @Test("A failure of mail of the same type posted by a deferred handler is not the handler's: no error status")
    func nestedFailureOfTheSameTypeIsNotTheHandlers() async throws {
        let observed = Observed(Self.spansOn)
        let office = observed.office
        office.register { (ping: Ping) throws(Oops) in
            if ping.n == 2 { throw Oops(tag: "nested") }
        }
        office.register(queue: Recipients().queue) { (ping: Ping) in
            if ping.n == 1 { office.post(Ping(n: 2)) }
        }

        await observed.office.deliverIgnoringFailures(Ping(n: 1))

        let spans = observed.tracer.finishedSpans.filter { $0.attributes.get(DeliverySpan.Attribute.place) == "queue" }
        let forwarding = try #require(spans.first { !$0.errors.isEmpty })
        #expect(forwarding.errors.map { $0.error as? Oops } == [Oops(tag: "nested")])
        #expect(forwarding.status == nil)
    }
}
#endif
