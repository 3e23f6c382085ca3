#if Postgres
import Foundation

extension PostgresLink {
    /// How a link names itself and its tables, keeps mail, and waits for the database.
    ///
    /// Where to connect is not part of it: a link is given a `PostgresClient`, or the `PostgresClient.Configuration`
    /// of one it makes and runs itself.
    public struct Configuration: Sendable {
        /// This process's name as the origin of its mail: other processes see it as ``RemoteOrigin/name``. Two live
        /// links may not share one: the second is refused (``PostgresLinkError/Code/originInUse``). Default: the
        /// host name, the process id and 8 random hexadecimal digits, such as `api-3/4242/9f1c02ab`.
        public var origin: String

        /// The schema of the link's tables, or `nil` for the first schema of the connection's `search_path`.
        /// Default: `nil`.
        public var schema: String?

        /// The start of the names of the link's tables and function (`mailroom_outbox`, `mailroom_channels`,
        /// `mailroom_cursors`, `mailroom_dead_letters`, `mailroom_write`): links that share the prefix (and schema)
        /// share their mail and their subscriptions. Default: `mailroom_`.
        public var tablePrefix = "mailroom_"

        /// How long mail stays in the outbox: a process disconnected for longer misses (and reports) what was
        /// pruned meanwhile. The link prunes every tenth of it (at most once a second). Default: one hour.
        public var retention: Duration = .seconds(3600)

        /// The largest mail, in bytes of JSON, sent or decoded. Default: 1 MiB.
        public var maximumMailSize = 1 << 20

        /// The most mail waiting to be written (``PostgresLink/unsent``), for example while the database is
        /// down. A post that finds the queue full is not sent: it is a `DeliveryFailure` on the poster's office,
        /// with the code ``PostgresLinkError/Code/queueFull``, and the mail already queued is kept. Default:
        /// 100,000.
        public var maximumUnsent = 100_000

        /// How long ``PostgresLink/run()`` waits for its first connection before it throws
        /// ``PostgresLinkError/Code/unreachable``. Once it has connected, it waits for the database as long as it
        /// runs. Default: 10 s.
        public var firstConnectionTimeout: Duration = .seconds(10)

        /// How often the listening connection is checked: one that does not answer within this time is closed and
        /// another is leased, so that a server that vanished without closing the connection is noticed. Default:
        /// 5 s.
        public var heartbeat: Duration = .seconds(5)

        /// The longest the link waits for an answer to one of its statements before it closes the connection and
        /// leases another. Default: 10 s.
        public var queryTimeout: Duration = .seconds(10)

        /// The shortest time between two lines that say why the listening connection was lost: the first loss
        /// is logged at once, later ones at most once per interval, with how many were not logged. Default: 60 s.
        public var reconnectLogInterval: Duration = .seconds(60)

        #if Observability
        /// The link's metrics, and what carries its posters' trace contexts and makes its spans; see
        /// ``PostgresLink/Telemetry``. Default: `Telemetry()`, made with the configuration: the bootstrapped
        /// metrics factory and tracer, if they were bootstrapped by then.
        public var telemetry = Telemetry()
        #endif

        /// A configuration with the defaults above, and `origin` if given.
        public init(origin: String? = nil) {
            self.origin = origin ?? Self.defaultOrigin()
        }

        static func defaultOrigin() -> String {
            let random = String(UInt32.random(in: .min ... .max), radix: 16)
            let suffix = String(repeating: "0", count: 8 - random.count) + random
            return "\(ProcessInfo.processInfo.hostName)/\(ProcessInfo.processInfo.processIdentifier)/\(suffix)"
        }

        /// Why the configuration cannot be used, or `nil` when it can.
        func problem() -> PostgresLinkError? {
            if origin.isEmpty || origin.contains("\n") || origin.contains("\0") {
                return PostgresLinkError(
                    .invalidConfiguration, origin: origin, detail: "the origin is empty or contains a newline or a NUL")
            }
            if let reason = Tables.problem(prefix: tablePrefix, schema: schema) {
                return PostgresLinkError(.invalidConfiguration, origin: origin, detail: reason)
            }
            return nil
        }
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds, as metrics record it; 0 for a negative duration.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (nanoseconds, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow || carry ? .max : nanoseconds
    }
}
#endif
