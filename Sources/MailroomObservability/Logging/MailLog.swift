#if Observability
import Logging
import Mailroom

/// The log lines of one ``MailTelemetry``: one for a failure, one for undelivered mail, rate limited by kind.
///
/// A line below the logger's level costs one comparison: the rate limit is not consulted, and nothing is formatted.
final class MailLog: Sendable {
    /// What the rate limit tells apart.
    enum Kind: Hashable, Sendable {
        /// A handler of mail of one type threw an error of one type.
        case failure(mailType: ObjectIdentifier, errorType: ObjectIdentifier)
        /// Mail of one type reached no recipient.
        case undelivered(mailType: ObjectIdentifier)
    }

    /// The two rate limits, each with its own table and overflow kind.
    private struct Throttles: Sendable {
        var failures: LogThrottle<Kind>
        var undelivered: LogThrottle<Kind>
    }

    /// The keys of the lines' metadata.
    enum Key {
        static let mailType = "mailroom.mail_type"
        static let recipient = "mailroom.recipient"
        static let error = "mailroom.error"
        static let errorType = "mailroom.error_type"
        static let senderType = "mailroom.sender_type"
        static let suppressed = "mailroom.suppressed"
        static let overflow = "mailroom.overflow"
    }

    /// The lines' messages.
    enum Message {
        static let failure: Logger.Message = "Mail recipient threw"
        static let undelivered: Logger.Message = "Mail reached no recipient"
    }

    let logger: Logger
    private let failureLevel: Logger.Level
    private let undeliveredLevel: Logger.Level
    private let clock: TelemetryClock
    private let throttles: Locked<Throttles>

    init(logger: Logger, configuration: MailTelemetry.Configuration, clock: TelemetryClock) {
        self.logger = logger
        failureLevel = configuration.failureLogLevel
        undeliveredLevel = configuration.undeliveredLogLevel
        self.clock = clock
        let interval = configuration.logInterval
        let capacity = configuration.logKindLimit
        throttles = Locked(
            Throttles(
                failures: LogThrottle(interval: interval, capacity: capacity),
                undelivered: LogThrottle(interval: interval, capacity: capacity)))
    }

    /// Logs `failure`, unless a line of its kind was logged less than an interval ago.
    func failed(_ failure: DeliveryFailure) {
        guard logger.logLevel <= failureLevel else { return }
        let mailType = type(of: failure.mail)
        let errorType = type(of: failure.error)
        let kind = Kind.failure(mailType: ObjectIdentifier(mailType), errorType: ObjectIdentifier(errorType))
        let now = clock.now()
        guard case .log(let suppressed, let overflow) = throttles.withLock({ $0.failures.admit(kind, at: now) })
        else { return }
        var metadata: Logger.Metadata = [
            Key.mailType: "\(String(reflecting: mailType))",
            Key.recipient: "\(failure.recipient)",
            Key.error: "\(String(describing: failure.error))",
            Key.errorType: "\(String(reflecting: errorType))",
            Key.suppressed: "\(suppressed)",
        ]
        if overflow {
            metadata[Key.overflow] = "true"
        }
        logger.log(level: failureLevel, Message.failure, error: failure.error, metadata: metadata)
    }

    /// Logs `report`, unless a line of its kind was logged less than an interval ago.
    func undelivered(_ report: UndeliveredMail) {
        guard logger.logLevel <= undeliveredLevel else { return }
        let mailType = type(of: report.mail)
        let kind = Kind.undelivered(mailType: ObjectIdentifier(mailType))
        let now = clock.now()
        guard case .log(let suppressed, let overflow) = throttles.withLock({ $0.undelivered.admit(kind, at: now) })
        else { return }
        var metadata: Logger.Metadata = [
            Key.mailType: "\(String(reflecting: mailType))",
            Key.suppressed: "\(suppressed)",
        ]
        if let sender = report.sender {
            metadata[Key.senderType] = "\(String(reflecting: type(of: sender)))"
        }
        if overflow {
            metadata[Key.overflow] = "true"
        }
        logger.log(level: undeliveredLevel, Message.undelivered, metadata: metadata)
    }
}
#endif
