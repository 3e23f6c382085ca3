import Foundation
import PostgresNIO

extension PostgresLink {
    /// How a link connects, names itself, keeps mail and recovers.
    public struct Configuration: Sendable {
        /// The database to connect to. The link opens two connections with it: one sends, one listens.
        public var connection: PostgresConnection.Configuration

        /// This process's name as the origin of its mail, which must differ from every other linked process's.
        /// Default: the host name, the process id and 8 random hexadecimal digits, such as `api-3/4242/9f1c02ab`.
        public var origin: String

        /// How long mail stays in the outbox: a process disconnected for longer misses (and reports) what was
        /// pruned meanwhile. The link prunes every tenth of it (at most once a second). Default: one hour.
        public var retention: Duration = .seconds(3600)

        /// The largest mail, in bytes of JSON, sent or decoded. Default: 1 MiB.
        public var maximumMailSize = 1 << 20

        /// The wait before the first reconnection after a failure; each further failure doubles it, up to
        /// ``maximumReconnectDelay``. Default: 20 ms.
        public var minimumReconnectDelay: Duration = .milliseconds(20)

        /// The longest wait between reconnections. Default: 1 s.
        public var maximumReconnectDelay: Duration = .seconds(1)

        /// How often the listening connection is checked: one that does not answer within this time is closed and
        /// opened again, so that a server that vanished without closing the connection is noticed. Default: 5 s.
        public var heartbeat: Duration = .seconds(5)

        /// The longest the link waits for the database to answer (a query, a transaction, a `LISTEN`'s catching
        /// up) before it closes the connection and opens another. Default: 10 s.
        public var queryTimeout: Duration = .seconds(10)

        /// A configuration for `connection`, with the defaults above.
        public init(connection: PostgresConnection.Configuration, origin: String? = nil) {
            self.connection = connection
            self.origin = origin ?? Self.defaultOrigin()
        }

        static func defaultOrigin() -> String {
            let random = String(UInt32.random(in: .min ... .max), radix: 16)
            let suffix = String(repeating: "0", count: 8 - random.count) + random
            return "\(ProcessInfo.processInfo.hostName)/\(ProcessInfo.processInfo.processIdentifier)/\(suffix)"
        }

        /// The wait after `failures` failures in a row.
        func reconnectDelay(afterFailures failures: Int) -> Duration {
            let doubled = minimumReconnectDelay * (1 << min(max(failures - 1, 0), 20))
            return min(doubled, maximumReconnectDelay)
        }
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
