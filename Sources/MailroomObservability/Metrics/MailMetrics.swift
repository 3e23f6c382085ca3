#if Observability
import CoreMetrics
import Mailroom

/// The metric objects of one ``MailTelemetry``, made through its factory and shared by its copies.
///
/// Each lookup takes one lock and, for a type met before, one hash-table lookup. A metric object is made through
/// the factory under that lock, so the factory is asked once per label set; that happens once per label set, so it
/// does not slow the lookups that follow.
final class MailMetrics: Sendable {
    private let factory: any MetricsFactory
    private let table: Locked<MetricTable>

    init(factory: any MetricsFactory, mailTypeLabelLimit: Int, errorTypeLabelLimit: Int) {
        self.factory = factory
        table = Locked(MetricTable(mailTypeLabelLimit: mailTypeLabelLimit, errorTypeLabelLimit: errorTypeLabelLimit))
    }

    /// `mailroom_posts` for `mailType`.
    func posts(_ mailType: any Mail.Type) -> Counter {
        counter(MetricRequest(metric: .posts, mailType: mailType))
    }

    /// `mailroom_deliveries` for `delivery`'s mail type and place.
    func deliveries(_ delivery: Delivery) -> Counter {
        counter(MetricRequest(metric: .deliveries, mailType: delivery.mailType, place: delivery.place))
    }

    /// `mailroom_failures` for `mailType` and `errorType`.
    func failures(_ mailType: any Mail.Type, _ errorType: any Error.Type) -> Counter {
        counter(MetricRequest(metric: .failures, mailType: mailType, errorType: errorType))
    }

    /// `mailroom_undelivered` for `mailType`.
    func undelivered(_ mailType: any Mail.Type) -> Counter {
        counter(MetricRequest(metric: .undelivered, mailType: mailType))
    }

    /// For a deferred delivery that starts: `mailroom_deliveries` and `mailroom_delivery_wait` for its mail type
    /// and place, and the name its mail type has in their `mail_type` dimension; under one lock.
    func deferred(_ delivery: Delivery) -> (deliveries: Counter, wait: CoreMetrics.Timer, mailTypeLabel: String) {
        table.withLock {
            let deliveries = $0.counter(
                MetricRequest(metric: .deliveries, mailType: delivery.mailType, place: delivery.place),
                factory: factory)
            let wait = $0.timer(
                MetricRequest(metric: .deliveryWait, mailType: delivery.mailType, place: delivery.place),
                factory: factory)
            return (deliveries, wait, $0.mailTypeLabel(for: delivery.mailType))
        }
    }

    private func counter(_ request: MetricRequest) -> Counter {
        table.withLock { $0.counter(request, factory: factory) }
    }
}
#endif
