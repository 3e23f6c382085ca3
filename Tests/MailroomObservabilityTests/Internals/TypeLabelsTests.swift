#if Observability
import Testing

@testable import MailroomObservability

@Suite("TypeLabels: the first types keep their names, later ones are other")
struct TypeLabelsTests {
    @Test("The first limit types are named by their module-qualified names, the later ones other")
    func firstTypesAreNamed() {
        var labels = TypeLabels(limit: 2)

        #expect(labels.label(for: Tagged<Int>.self).value == "MailroomObservabilityTests.Tagged<Swift.Int>")
        #expect(labels.label(for: Ping.self).value == "MailroomObservabilityTests.Ping")
        #expect(labels.label(for: Pong.self).value == "other")
        #expect(labels.label(for: Pong.self).isOther)
        #expect(labels.label(for: Tagged<Int>.self).value == "MailroomObservabilityTests.Tagged<Swift.Int>")
        #expect(labels.label(for: Ping.self).key == ObjectIdentifier(Ping.self))
        #expect(!labels.label(for: Ping.self).isOther)
    }

    @Test("A limit of 0 names no type")
    func zeroLimit() {
        var labels = TypeLabels(limit: 0)

        #expect(labels.label(for: Ping.self).value == "other")
        #expect(labels.label(for: Ping.self).key == TypeLabels.otherKey)
    }

    @Test("Durations are recorded in whole nanoseconds, negative ones as 0, huge ones capped")
    func durationsInNanoseconds() {
        #expect(Duration.milliseconds(5).wholeNanoseconds == 5_000_000)
        #expect((Duration.seconds(2) + .nanoseconds(7)).wholeNanoseconds == 2_000_000_007)
        #expect(Duration.nanoseconds(-3).wholeNanoseconds == 0)
        #expect(Duration.seconds(Int64.max).wholeNanoseconds == .max)
    }
}
#endif
