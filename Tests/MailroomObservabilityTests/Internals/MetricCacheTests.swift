#if Observability
import Mailroom
import Testing

@testable import MailroomObservability

@Suite("MetricCache: finds what it kept, through growth")
struct MetricCacheTests {
    /// Keys like the telemetry's: every metric and place for a few types, and failures by error type.
    private static let keys: [MetricKey] = {
        let mailTypes: [Any.Type] = [Ping.self, Pong.self, Tagged<Int>.self, Tagged<String>.self, Tagged<Double>.self]
        let places: [Delivery.Place?] = [nil, .postingThread, .queue, .mainActor, .task, .sequence]
        let metrics: [MailMetric] = [.posts, .deliveries, .undelivered, .deliveryWait]
        let errorTypes: [Any.Type] = [Oops.self, Failure<Int>.self, Failure<String>.self]
        var keys: [MetricKey] = []
        for mailType in mailTypes.map(ObjectIdentifier.init) {
            for metric in metrics {
                for place in places {
                    keys.append(MetricKey(metric: metric, mailType: mailType, place: place, errorType: nil))
                }
            }
            for errorType in errorTypes.map(ObjectIdentifier.init) {
                keys.append(MetricKey(metric: .failures, mailType: mailType, place: nil, errorType: errorType))
            }
        }
        return keys
    }()

    @Test("Every key kept is found with its value, other keys are not, and the count is exact")
    func keepsAndFinds() {
        #expect(Set(Self.keys).count == Self.keys.count)
        var cache = MetricCache<Int>()
        let kept = Self.keys.prefix(Self.keys.count / 2)
        for (index, key) in kept.enumerated() {
            cache[key] = index
        }
        cache[Self.keys[0]] = -1

        #expect(cache.count == kept.count)
        #expect(cache[Self.keys[0]] == -1)
        for (index, key) in kept.enumerated().dropFirst() {
            #expect(cache[key] == index)
        }
        for key in Self.keys.dropFirst(kept.count) {
            #expect(cache[key] == nil)
        }
    }
}
#endif
