#if Observability
import Instrumentation
import Mailroom
import Testing

@testable import MailroomObservability

@Suite("Context: every recipient runs in its own poster's ServiceContext")
struct ContextTests {
    @Test(
        "Each form of recipient runs in the context of its own post, and in none when its poster had none",
        arguments: [false, true])
    func everyFormRunsInItsPostersContext(spans: Bool) async throws {
        let observed = Observed(MailTelemetry.Configuration(spansForDeferredDeliveries: spans))
        let recipients = Recipients()
        recipients.register(with: observed.office)
        // The loop's task has a context of its own, which its deliveries must not see.
        let loop = ServiceContext.withValue(.ofRequest("loop")) {
            receiveLoop(observed.office, until: 4, recording: recipients.seen)
        }

        // Three posts without waiting, so that the deferred ones queue up behind each other; the last one waits
        // for every recipient, which take their mail in order.
        post(1, inRequest: "request-1", to: observed.office)
        post(2, inRequest: "request-2", to: observed.office)
        post(3, inRequest: nil, to: observed.office)
        await deliver(4, inRequest: "request-4", to: observed.office)
        _ = await loop.result

        let expected: [String?] = ["request-1", "request-2", nil, "request-4"]
        for form in Form.registered + [Form.receive] {
            let seen = recipients.seen.of(form)
            #expect(seen.map(\.n) == [1, 2, 3, 4], "\(form)")
            #expect(seen.map(\.request) == expected, "\(form)")
        }
        #expect(ServiceContext.current == nil)
    }

    @Test("A for-await loop takes each mail in its poster's context, but runs its body in the loop's own")
    func forAwaitBodiesRunInTheLoopsContext() async {
        let observed = Observed(MailTelemetry.Configuration(spansForDeferredDeliveries: true))
        let sequence = observed.office.mail(of: Ping.self)
        post(1, inRequest: "request-1", to: observed.office)
        post(2, inRequest: "request-2", to: observed.office)

        var requests: [String?] = []
        await ServiceContext.withValue(.ofRequest("loop")) {
            for await _ in sequence {
                requests.append(ServiceContext.current?.request)
                if requests.count == 2 { break }
            }
        }

        #expect(requests == ["loop", "loop"])
        // The takes are counted at a place of their own, and make no span: no handler runs in them.
        #expect(observed.tracer.finishedSpans.isEmpty)
        #expect(observed.count("mailroom_deliveries", [("mail_type", Names.ping), ("place", "for_await_loop")]) == 2)
        #expect(observed.count("mailroom_deliveries", [("mail_type", Names.ping), ("place", "sequence")]) == 0)
    }
}

/// The names the telemetry gives the tests' types.
enum Names {
    static let ping = "MailroomObservabilityTests.Ping"
    static let pong = "MailroomObservabilityTests.Pong"
    static let oops = "MailroomObservabilityTests.Oops"
}
#endif
