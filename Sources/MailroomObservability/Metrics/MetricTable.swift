#if Observability
import CoreMetrics
import Mailroom

/// What one metric object counts, in two words, so that the lookup on every post hashes little: the identity of
/// the mail type, and either the metric and place (a small number) or, for failures, the identity of the error type
/// (a pointer, never that small).
struct MetricKey: Hashable, Sendable {
    let mailType: ObjectIdentifier
    let detail: UInt

    init(metric: MailMetric, mailType: ObjectIdentifier, place: Delivery.Place?, errorType: ObjectIdentifier?) {
        self.mailType = mailType
        if let errorType {
            detail = UInt(bitPattern: errorType)
        } else {
            detail = UInt(metric.code) << 3 | UInt(place?.code ?? 7)
        }
    }
}

/// A metric object asked for: the metric, and the types and place it counts.
struct MetricRequest {
    let metric: MailMetric
    let mailType: Any.Type
    var place: Delivery.Place?
    var errorType: Any.Type?

    /// The key of the types themselves, which a lookup tries first.
    var key: MetricKey {
        MetricKey(
            metric: metric, mailType: ObjectIdentifier(mailType), place: place,
            errorType: errorType.map(ObjectIdentifier.init))
    }
}

/// The metric objects made so far, one per label set, found by the identities of the types they count.
///
/// A type met before is one lookup in a ``MetricCache``, without formatting its name. Memory is bounded by the
/// label limits: a metric object for each label set (at most `mailTypeLabelLimit + 1` mail-type values, times 5
/// places or `errorTypeLabelLimit + 1` error-type values), and one more key for each named type whose identity
/// differs from its label's key. Types beyond a limit are not keyed by their identity: each of their lookups misses
/// once, then finds the `"other"` metric.
struct MetricTable: Sendable {
    private var mailTypes: TypeLabels
    private var errorTypes: TypeLabels
    private var counters = MetricCache<Counter>()
    private var timers = MetricCache<CoreMetrics.Timer>()

    init(mailTypeLabelLimit: Int, errorTypeLabelLimit: Int) {
        mailTypes = TypeLabels(limit: mailTypeLabelLimit)
        errorTypes = TypeLabels(limit: errorTypeLabelLimit)
    }

    /// The counter for `request`, made through `factory` the first time its label set is asked for.
    mutating func counter(_ request: MetricRequest, factory: any MetricsFactory) -> Counter {
        if let counter = counters[request.key] {
            return counter
        }
        let found = labelSet(of: request)
        let counter =
            counters[found.key]
            ?? Counter(label: request.metric.label, dimensions: found.dimensions, factory: factory)
        counters[found.key] = counter
        if let alias = found.alias {
            counters[alias] = counter
        }
        return counter
    }

    /// The timer for `request`, made through `factory` the first time its label set is asked for.
    mutating func timer(_ request: MetricRequest, factory: any MetricsFactory) -> CoreMetrics.Timer {
        if let timer = timers[request.key] {
            return timer
        }
        let found = labelSet(of: request)
        let timer =
            timers[found.key]
            ?? CoreMetrics.Timer(label: request.metric.label, dimensions: found.dimensions, factory: factory)
        timers[found.key] = timer
        if let alias = found.alias {
            timers[alias] = timer
        }
        return timer
    }

    /// The value of the `mail_type` dimension for `mailType`.
    mutating func mailTypeLabel(for mailType: Any.Type) -> String {
        mailTypes.label(for: mailType).value
    }

    /// The dimensions of `request`'s metric, the key of its label set, and the key of its types' identities
    /// when they are named and that key differs (an alias, so that their next lookup is one step).
    private mutating func labelSet(
        of request: MetricRequest
    ) -> (key: MetricKey, alias: MetricKey?, dimensions: [(String, String)]) {
        let mail = mailTypes.label(for: request.mailType)
        let error = request.errorType.map { errorTypes.label(for: $0) }
        var dimensions = [(MetricDimension.mailType, mail.value)]
        if let place = request.place {
            dimensions.append((MetricDimension.place, place.label))
        }
        if let error {
            dimensions.append((MetricDimension.errorType, error.value))
        }
        let key = MetricKey(metric: request.metric, mailType: mail.key, place: request.place, errorType: error?.key)
        let isNamed = !mail.isOther && error?.isOther != true
        let requested = request.key
        return (key, isNamed && requested != key ? requested : nil, dimensions)
    }
}
#endif
