#if Observability
import Mailroom

/// The metrics ``MailTelemetry`` reports: their labels, and the dimensions each one has.
enum MailMetric: Hashable, Sendable {
    /// `mailroom_posts`, a counter by `mail_type`.
    case posts
    /// `mailroom_deliveries`, a counter by `mail_type` and `place`.
    case deliveries
    /// `mailroom_failures`, a counter by `mail_type` and `error_type`.
    case failures
    /// `mailroom_undelivered`, a counter by `mail_type`.
    case undelivered
    /// `mailroom_delivery_wait`, a timer (nanoseconds) by `mail_type` and `place`.
    case deliveryWait

    /// A number of its own, below 32, for ``MetricKey``.
    var code: UInt8 {
        switch self {
        case .posts: 1
        case .deliveries: 2
        case .failures: 3
        case .undelivered: 4
        case .deliveryWait: 5
        }
    }

    var label: String {
        switch self {
        case .posts: "mailroom_posts"
        case .deliveries: "mailroom_deliveries"
        case .failures: "mailroom_failures"
        case .undelivered: "mailroom_undelivered"
        case .deliveryWait: "mailroom_delivery_wait"
        }
    }
}

/// The names of the metrics' dimensions.
enum MetricDimension {
    static let mailType = "mail_type"
    static let place = "place"
    static let errorType = "error_type"
}

extension Delivery.Place {
    /// A number of its own, below 7, for ``MetricKey``.
    var code: UInt8 {
        switch self {
        case .postingThread: 0
        case .queue: 1
        case .mainActor: 2
        case .task: 3
        case .sequence: 4
        case .forAwaitLoop: 5
        }
    }

    /// The value of the `place` dimension and of the `mailroom.delivery.place` span attribute: one of six.
    var label: String {
        switch self {
        case .postingThread: "posting_thread"
        case .queue: "queue"
        case .mainActor: "main_actor"
        case .task: "task"
        case .sequence: "sequence"
        case .forAwaitLoop: "for_await_loop"
        }
    }
}
#endif
