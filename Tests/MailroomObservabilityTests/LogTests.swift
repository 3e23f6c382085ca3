#if Observability
import InMemoryLogging
import Logging
import Mailroom
import Testing

@testable import MailroomObservability

@Suite("Logs: failures and undelivered mail, one line per kind per interval")
struct LogTests {
    /// The line logged for a failure of `Ping` with `error`.
    private static func failureLine(
        _ error: any Error, errorType: String, recipient: RecipientId, level: Logger.Level = .info,
        suppressed: Int = 0, overflow: Bool = false
    ) -> InMemoryLogHandler.Entry {
        var metadata: Logger.Metadata = [
            "mailroom.mail_type": "\(Names.ping)",
            "mailroom.recipient": "\(recipient)",
            "mailroom.error": "\(error)",
            "mailroom.error_type": "\(errorType)",
            "mailroom.suppressed": "\(suppressed)",
        ]
        if overflow {
            metadata["mailroom.overflow"] = "true"
        }
        return InMemoryLogHandler.Entry(
            level: level, message: "Mail recipient threw", error: error, metadata: metadata)
    }

    @Test("A failure is logged once, at info, with its mail type, recipient, error and error type")
    func failureIsLogged() {
        let observed = Observed()
        let id = observed.office.register { (_: Ping) throws(Oops) in throw Oops(tag: "card declined") }

        observed.office.post(Ping(n: 1))

        #expect(
            observed.logs.entries == [
                Self.failureLine(Oops(tag: "card declined"), errorType: Names.oops, recipient: id)
            ])
    }

    @Test("A failure of a deferred delivery is logged too, inside its poster's context")
    func deferredFailureIsLogged() async {
        let observed = Observed(MailTelemetry.Configuration(failureLogLevel: .debug))
        let id = observed.office.register { (_: Ping) async throws(Oops) in throw Oops(tag: "async") }

        await observed.office.deliverIgnoringFailures(Ping(n: 1))

        #expect(
            observed.logs.entries == [
                Self.failureLine(Oops(tag: "async"), errorType: Names.oops, recipient: id, level: .debug)
            ])
    }

    @Test("Undelivered mail is logged at debug, with its mail type and, when it has one, its sender's type")
    func undeliveredMailIsLogged() {
        let observed = Observed()
        let sender = Sender()

        observed.office.post(Pong())
        observed.office.post(Ping(n: 1), sender: sender)

        #expect(
            observed.logs.entries == [
                InMemoryLogHandler.Entry(
                    level: .debug, message: "Mail reached no recipient",
                    metadata: ["mailroom.mail_type": "\(Names.pong)", "mailroom.suppressed": "0"]),
                InMemoryLogHandler.Entry(
                    level: .debug, message: "Mail reached no recipient",
                    metadata: [
                        "mailroom.mail_type": "\(Names.ping)", "mailroom.suppressed": "0",
                        "mailroom.sender_type": "MailroomObservabilityTests.Sender",
                    ]),
            ])
    }

    @Test("Lines below the logger's level are not logged, and do not count as suppressed")
    func linesBelowTheLoggersLevelAreSkipped() {
        let observed = Observed(MailTelemetry.Configuration(failureLogLevel: .trace, undeliveredLogLevel: .trace))
        var logger = observed.telemetry.logger
        logger.logLevel = .debug
        let telemetry = MailTelemetry(
            logger: logger, metricsFactory: observed.metrics, tracer: observed.tracer,
            configuration: observed.telemetry.configuration, clock: observed.clock.telemetryClock)
        let office = PostOffice(instrumentation: telemetry, unheardFailures: { _ in })
        office.register { (_: Ping) throws(Oops) in throw Oops() }

        office.post(Ping(n: 1))
        office.post(Pong())

        #expect(observed.logs.entries.isEmpty)
    }

    @Test("A flood of 1,000 failures of one kind logs one line, and the next interval's line counts the rest")
    func floodLogsOneLinePerInterval() {
        let observed = Observed()
        let id = observed.office.register { (ping: Ping) throws(Oops) in throw Oops(tag: "\(ping.n)") }

        for n in 1...1000 {
            observed.office.post(Ping(n: n))
        }
        #expect(observed.logs.entries == [Self.failureLine(Oops(tag: "1"), errorType: Names.oops, recipient: id)])

        observed.clock.advance(by: .seconds(59))
        observed.office.post(Ping(n: 1001))
        #expect(observed.logs.entries.count == 1)

        observed.clock.advance(by: .seconds(1))
        for n in 1002...1010 {
            observed.office.post(Ping(n: n))
        }
        #expect(
            observed.logs.entries == [
                Self.failureLine(Oops(tag: "1"), errorType: Names.oops, recipient: id),
                Self.failureLine(Oops(tag: "1002"), errorType: Names.oops, recipient: id, suppressed: 1000),
            ])

        observed.clock.advance(by: .seconds(60))
        observed.office.post(Ping(n: 1011))
        #expect(
            observed.logs.entries.last
                == Self.failureLine(Oops(tag: "1011"), errorType: Names.oops, recipient: id, suppressed: 8))
    }

    @Test("Each kind (mail type and error type) has its own limit")
    func kindsAreLimitedApart() {
        let observed = Observed()
        let id = observed.office.register { (ping: Ping) throws in
            if ping.n.isMultiple(of: 2) { throw Oops(tag: "\(ping.n)") }
            throw Failure<Int>()
        }
        let tagged = observed.office.register { (_: Tagged<Int>) throws(Oops) in throw Oops(tag: "tagged") }

        for n in 1...10 {
            observed.office.post(Ping(n: n))
            observed.office.post(Tagged<Int>())
        }

        var taggedLine = Self.failureLine(Oops(tag: "tagged"), errorType: Names.oops, recipient: tagged)
        taggedLine.metadata["mailroom.mail_type"] = "MailroomObservabilityTests.Tagged<Swift.Int>"
        #expect(
            observed.logs.entries == [
                Self.failureLine(Failure<Int>(), errorType: Names.failureOfInt, recipient: id),
                taggedLine,
                Self.failureLine(Oops(tag: "2"), errorType: Names.oops, recipient: id),
            ])
    }

    @Test("Kinds beyond the table's limit share one rate-limited overflow kind; expired kinds make room")
    func kindTableIsBounded() {
        let observed = Observed(MailTelemetry.Configuration(logKindLimit: 2))
        let errors: [any Error] = [
            Failure<Int>(), Failure<String>(), Failure<Double>(), Failure<Bool>(), Failure<Float>(),
            Failure<Int8>(),
        ]
        let id = observed.office.register { (ping: Ping) throws in throw errors[ping.n] }

        // Two rounds of the first five kinds: two tracked kinds and one overflow line, 3 lines in all.
        for _ in 1...2 {
            for n in 0..<5 {
                observed.office.post(Ping(n: n))
            }
        }
        let overflowLine = Self.failureLine(
            Failure<Double>(), errorType: Names.failure("Double"), recipient: id,
            overflow: true)
        #expect(
            observed.logs.entries == [
                Self.failureLine(Failure<Int>(), errorType: Names.failureOfInt, recipient: id),
                Self.failureLine(Failure<String>(), errorType: Names.failure("String"), recipient: id),
                overflowLine,
            ])

        // An interval later, the two tracked kinds have expired: new kinds take their places, and what the dropped
        // kinds held back (one line each) is counted on the overflow kind's next line, with its own 5.
        observed.clock.advance(by: .seconds(60))
        observed.office.post(Ping(n: 5))
        observed.office.post(Ping(n: 0))
        observed.office.post(Ping(n: 3))
        observed.office.post(Ping(n: 4))
        #expect(
            Array(observed.logs.entries.dropFirst(3)) == [
                Self.failureLine(Failure<Int8>(), errorType: Names.failure("Int8"), recipient: id),
                Self.failureLine(Failure<Int>(), errorType: Names.failureOfInt, recipient: id),
                Self.failureLine(
                    Failure<Bool>(), errorType: Names.failure("Bool"), recipient: id, suppressed: 7, overflow: true),
            ])
    }
}

extension Names {
    static let failureOfInt = failure("Int")

    /// The name of `Failure<Swift.tag>`.
    static func failure(_ tag: String) -> String {
        "MailroomObservabilityTests.Failure<Swift.\(tag)>"
    }
}
#endif
