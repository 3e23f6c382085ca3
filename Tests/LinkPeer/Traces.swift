#if Postgres && Observability
import Foundation
import InMemoryTracing
import Logging
import Mailroom
import MailroomObservability
import MailroomPostgres
import MetricsTestKit
import NIOConcurrencyHelpers
import PostgresNIO
import Tracing

/// A process of the trace-context tests, on the tables of the prefix in LINKPEER_PREFIX, with an `InMemoryTracer`
/// whose trace and span ids start with ROLE and the process's id. The tracer's default ids (`trace-1`, `span-1`)
/// are the same in every process, so that a context that never travelled could pass for one that did; these
/// cannot.
///
///   LinkPeer --trace poster ORIGIN
///   LinkPeer --trace receiver ORIGIN [--link-spans]
///
/// Each prints `ready` once its link listens (or `refused` and why, and exits with 3), and ends its link and exits
/// with 0 when it reads `finish`. See ``postTraced(as:to:tracer:)`` and ``receiveTraced(as:from:linkSpans:tracer:)``
/// for the rest.
func carryTraces(_ arguments: [String], socket: String) async throws -> Int32 {
    guard arguments.count >= 2, ["poster", "receiver"].contains(arguments[0]) else {
        say("usage: LinkPeer --trace poster|receiver ORIGIN [--link-spans]")
        return 2
    }
    let (role, origin) = (arguments[0], arguments[1])
    let tracer = InMemoryTracer(idGenerator: .prefixed("\(role)-\(getpid())"))
    let database = PostgresClient.Configuration(
        unixSocketPath: socket, username: "postgres", password: nil, database: "postgres")
    if role == "poster" {
        return try await postTraced(as: origin, to: database, tracer: tracer)
    }
    return try await receiveTraced(
        as: origin, from: database, linkSpans: arguments.contains("--link-spans"), tracer: tracer)
}

/// Reads `post MAIL` commands, posts the mail MAIL for each, waits until it is written, and prints `posted` and a
/// JSON object: the mail, and the trace and span ids of the span it was posted in, if any; then `span` and that
/// span (``FinishedSpan``). The mail:
/// - `plain`: a `Note` posted on the office, in a span;
/// - `transactional`: a `Note` written by `post(_:in:)` in a transaction of a client of this process, in a span;
/// - `large`: a `Blob` over 8000 bytes, which its notification cannot carry (it carries the mail's number), in a span;
/// - `caught-up`: a `Note` posted on the office, in a span (the test posts it while the receiver does not listen);
/// - `untraced`: a `Note` posted outside any span;
/// - `hold`: a `Tick`, outside any span, which holds up the receiver's listening (see
///   ``receiveTraced(as:from:linkSpans:tracer:)``).
///
/// A `Note`'s text is the name of its mail.
private func postTraced(
    as origin: String, to database: PostgresClient.Configuration, tracer: InMemoryTracer
) async throws -> Int32 {
    let logger = peerLogger(origin)
    // The transactional post needs a client of this process: the link shares it.
    let client = PostgresClient(configuration: database, backgroundLogger: logger)
    let office = PostOffice()
    var configuration = tracedConfiguration(origin)
    configuration.telemetry = PostgresLink.Telemetry(tracer: tracer)
    let link = try PostgresLink(
        office: office, carrying: [Note.self, Blob.self, Tick.self], client: client, configuration: configuration,
        logger: logger)
    return try await whileRunning(link, client: client) {
        var index = 0
        for await command in commands() {
            guard command != "finish" else { break }
            guard command.hasPrefix("post ") else {
                say("unknown command \(command)")
                return 2
            }
            let mail = String(command.dropFirst("post ".count))
            index += 1
            let note = Note(origin: origin, index: index, text: mail)
            let span: InMemorySpanContext?
            switch mail {
            case "plain", "caught-up":
                span = tracer.withSpan(mail) { span in
                    office.post(note)
                    return span.spanContext
                }
            case "transactional":
                span = try await tracer.withSpan(mail) { span in
                    try await client.withTransaction(logger: logger) { try await link.post(note, in: $0) }
                    return span.spanContext
                }
            case "large":
                span = tracer.withSpan(mail) { span in
                    office.post(Blob(origin: origin, index: index, data: String(repeating: "b", count: 9000)))
                    return span.spanContext
                }
            case "untraced":
                office.post(note)
                span = nil
            case "hold":
                office.post(Tick(origin: origin, index: index))
                span = nil
            default:
                say("unknown mail \(mail)")
                return 2
            }
            // Committed before the test hears of it: the test posts the caught-up mail while the receiver does not
            // listen, and it must be in the outbox before the receiver listens again.
            let deadline = ContinuousClock.now + .seconds(30)
            while link.unsent > 0 {
                guard ContinuousClock.now < deadline else {
                    say("unsent \(link.unsent)")
                    return 1
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            say("posted \(json(Posted(mail: mail, traceID: span?.traceID, spanID: span?.spanID)))")
            // The poster's span, for Scripts/trace-picture.py: it ended when its post returned.
            for span in tracer.popFinishedSpans() { say("span \(json(FinishedSpan(span, mail: mail)))") }
        }
        return 0
    }
}

/// Receives `Note` in an `async` closure and `Blob` on a queue, deferred deliveries that the office's
/// `MailTelemetry` runs in spans of their own; with `linkSpans`, the link also posts each mail it receives in a
/// span of its own (`spansForReceivedMail`). Prints `span` and a JSON object for each span the tracer finishes
/// (``FinishedSpan``).
///
/// A `Tick` is received synchronously, on the listening connection's task: the receiver prints `holding` and does
/// not return until it reads `release`. Meanwhile its link cannot listen again, even once its connection has been
/// ended: mail committed then can only reach it through the outbox, read after its next `LISTEN`.
///
/// On `finish`, prints `counted` and a JSON object of what the link counted on the channel `peer_mail`: the mail
/// received, and those of them read from the outbox (``Counted``).
private func receiveTraced(
    as origin: String, from database: PostgresClient.Configuration, linkSpans: Bool, tracer: InMemoryTracer
) async throws -> Int32 {
    let logger = peerLogger(origin)
    let office = PostOffice(
        instrumentation: MailTelemetry(
            logger: logger, tracer: tracer, configuration: .init(spansForDeferredDeliveries: true)))
    // Each delivery's span, by id, is told apart by the mail its handler ran for.
    let mailOfSpans = NIOLockedValueBox<[String: String]>([:])
    let record: @Sendable (String) -> Void = { mail in
        guard let span = ServiceContext.current?.inMemorySpanContext else { return }
        mailOfSpans.withLockedValue { $0[span.spanID] = mail }
    }
    office.register { (note: Note) async in record(note.text) }
    office.register(queue: DispatchQueue(label: "blobs")) { (_: Blob) in record("large") }
    let release = DispatchSemaphore(value: 0)
    office.register { (_: Tick) in
        say("holding")
        release.wait()
    }

    let metrics = TestMetrics()
    var configuration = tracedConfiguration(origin)
    configuration.telemetry = PostgresLink.Telemetry(
        metricsFactory: metrics, tracer: tracer, spansForReceivedMail: linkSpans)
    let link = try PostgresLink(
        office: office, carrying: [Note.self, Blob.self, Tick.self], database: database,
        configuration: configuration, logger: logger)
    return try await whileRunning(link) {
        let printFinishedSpans: @Sendable () -> Void = {
            for span in tracer.popFinishedSpans() {
                say("span \(json(FinishedSpan(span, mail: mailOfSpans.withLockedValue { $0[span.spanID] })))")
            }
        }
        // Spans finish on the office's tasks and queues, whenever their handlers return: looked for until the end.
        let printing = Task {
            while !Task.isCancelled {
                printFinishedSpans()
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        for await command in commands() {
            guard command != "finish" else { break }
            guard command == "release" else {
                say("unknown command \(command)")
                return 2
            }
            release.signal()
        }
        // A `Tick` held when standard input ends would keep the link from ending.
        release.signal()
        printing.cancel()
        await printing.value
        printFinishedSpans()
        let count = { (label: String) in
            (try? metrics.expectCounter(label, [("channel", Note.linkedChannel)]).totalValue) ?? 0
        }
        let counted = Counted(received: count("mailroom_link_received"), caughtUp: count("mailroom_link_caught_up"))
        say("counted \(json(counted))")
        return 0
    }
}

/// The poster's `posted` line: a mail, and the span it was posted in, if any.
private struct Posted: Encodable {
    let mail: String
    let traceID: String?
    let spanID: String?
}

/// The receiver's `span` line: a span its tracer finished.
private struct FinishedSpan: Encodable {
    struct Reference: Encodable {
        let traceID: String
        let spanID: String
    }

    let name: String
    let kind: String
    let traceID: String
    let spanID: String
    let parentSpanID: String?
    /// The spans it links to.
    let links: [Reference]
    /// Each attribute as its type and value, such as `int64 3` and `string peer_mail`.
    let attributes: [String: String]
    /// For a delivery's span, the mail its handler ran for; for a poster's span, the mail posted in it.
    let mail: String?
    /// When it started and ended, in nanoseconds since the epoch (for Scripts/trace-picture.py).
    let start: UInt64
    let end: UInt64

    init(_ span: FinishedInMemorySpan, mail: String?) {
        name = span.operationName
        kind = "\(span.kind)"
        traceID = span.traceID
        spanID = span.spanID
        parentSpanID = span.parentSpanID
        links = span.links.compactMap(\.context.inMemorySpanContext).map {
            Reference(traceID: $0.traceID, spanID: $0.spanID)
        }
        // SpanAttributes is no Sequence: `forEach` is its only way through.
        var attributes: [String: String] = [:]
        func add(_ name: String, _ value: SpanAttribute) {
            switch value {
            case .string(let string): attributes[name] = "string \(string)"
            case .int64(let int): attributes[name] = "int64 \(int)"
            default: attributes[name] = "other \(value)"
            }
        }
        span.attributes.forEach(add)
        self.attributes = attributes
        self.mail = mail
        start = span.startInstant.nanosecondsSinceEpoch
        end = span.endInstant.nanosecondsSinceEpoch
    }
}

/// The receiver's `counted` line: its link's counters of the channel `peer_mail`.
private struct Counted: Encodable {
    /// `mailroom_link_received`: the mail it posted on its office.
    let received: Int64
    /// `mailroom_link_caught_up`: those of them it read from the outbox, not from their notification.
    let caughtUp: Int64
}

extension InMemoryTracer.IDGenerator {
    /// Counting ids that start with `prefix`, such as `poster-41-trace-1` and `poster-41-span-2`.
    fileprivate static func prefixed(_ prefix: String) -> Self {
        let (traces, spans) = (NIOLockedValueBox(0), NIOLockedValueBox(0))
        let next: @Sendable (NIOLockedValueBox<Int>) -> Int = { counter in
            counter.withLockedValue { count in
                count += 1
                return count
            }
        }
        return Self(nextTraceID: { "\(prefix)-trace-\(next(traces))" }, nextSpanID: { "\(prefix)-span-\(next(spans))" })
    }
}

/// The lines of standard input, read on a thread of their own: a blocking read on the concurrency pool would hold
/// one of its few threads (one per core) for the life of the process, and the receiver's held `Tick` holds another.
private func commands() -> AsyncStream<String> {
    AsyncStream { continuation in
        Thread.detachNewThread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
    }
}

/// A link's configuration for `origin` on the tables of LINKPEER_PREFIX, with a short heartbeat, as the other modes'.
private func tracedConfiguration(_ origin: String) -> PostgresLink.Configuration {
    var configuration = PostgresLink.Configuration(origin: origin)
    configuration.heartbeat = .seconds(1)
    configuration.tablePrefix = ProcessInfo.processInfo.environment["LINKPEER_PREFIX"] ?? "mailroom_"
    return configuration
}

/// A logger to standard error at `error` (or the level in LINKPEER_LOG), so that standard output holds only the
/// lines the test reads.
private func peerLogger(_ origin: String) -> Logger {
    var logger = Logger(label: "LinkPeer.\(origin)")
    logger.logLevel =
        ProcessInfo.processInfo.environment["LINKPEER_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .error
    return logger
}

/// `value` as one line of JSON, keys sorted, so that the test can find a line by a key and its value.
private func json(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
}
#endif
