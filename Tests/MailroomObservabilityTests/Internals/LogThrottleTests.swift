#if Observability
import Testing

@testable import MailroomObservability

@Suite("LogThrottle: one line per kind per interval, in a bounded table")
struct LogThrottleTests {
    private let start = ContinuousClock.now

    private func at(_ seconds: Int) -> ContinuousClock.Instant {
        start + .seconds(seconds)
    }

    @Test("A kind's first line is logged, the next ones within the interval are held back and counted on the next")
    func oneLinePerInterval() {
        var throttle = LogThrottle<String>(interval: .seconds(10), capacity: 5)

        #expect(throttle.admit("a", at: at(0)) == .log(suppressed: 0, overflow: false))
        #expect(throttle.admit("a", at: at(1)) == .suppress)
        #expect(throttle.admit("a", at: at(9)) == .suppress)
        #expect(throttle.admit("a", at: at(10)) == .log(suppressed: 2, overflow: false))
        #expect(throttle.admit("a", at: at(19)) == .suppress)
        #expect(throttle.admit("a", at: at(40)) == .log(suppressed: 1, overflow: false))
        #expect(throttle.admit("a", at: at(50)) == .log(suppressed: 0, overflow: false))
    }

    @Test("Kinds are limited apart")
    func kindsAreApart() {
        var throttle = LogThrottle<String>(interval: .seconds(10), capacity: 5)

        #expect(throttle.admit("a", at: at(0)) == .log(suppressed: 0, overflow: false))
        #expect(throttle.admit("b", at: at(1)) == .log(suppressed: 0, overflow: false))
        #expect(throttle.admit("a", at: at(2)) == .suppress)
        #expect(throttle.admit("b", at: at(3)) == .suppress)
        #expect(throttle.trackedKinds == 2)
    }

    @Test("Kinds beyond the capacity share one overflow kind, itself limited to one line per interval")
    func kindsBeyondTheCapacityShareTheOverflowKind() {
        var throttle = LogThrottle<Int>(interval: .seconds(10), capacity: 3)

        var verdicts: [LogThrottle<Int>.Verdict] = []
        for kind in 0..<1000 {
            verdicts.append(throttle.admit(kind, at: at(0)))
        }

        #expect(verdicts.prefix(3).allSatisfy { $0 == .log(suppressed: 0, overflow: false) })
        #expect(verdicts[3] == .log(suppressed: 0, overflow: true))
        #expect(verdicts.dropFirst(4).allSatisfy { $0 == .suppress })
        #expect(throttle.trackedKinds == 3)
        #expect(throttle.admit(5000, at: at(5)) == .suppress)
        #expect(throttle.admit(0, at: at(5)) == .suppress)
    }

    @Test("A new kind that finds the table full drops the expired kinds, at most once per interval")
    func expiredKindsMakeRoom() {
        var throttle = LogThrottle<Int>(interval: .seconds(10), capacity: 2)
        #expect(throttle.admit(1, at: at(0)) == .log(suppressed: 0, overflow: false))
        #expect(throttle.admit(2, at: at(5)) == .log(suppressed: 0, overflow: false))
        #expect(throttle.admit(1, at: at(6)) == .suppress)
        // Full, and nothing has expired at 7: kind 3 goes to the overflow kind. The table was swept at 7.
        #expect(throttle.admit(3, at: at(7)) == .log(suppressed: 0, overflow: true))
        #expect(throttle.admit(4, at: at(8)) == .suppress)
        // Kind 1 has expired at 12, but the table is not swept again before 17.
        #expect(throttle.admit(5, at: at(12)) == .suppress)

        // At 17 both tracked kinds have expired: they are dropped, kind 1's held-back line carried to the overflow.
        #expect(throttle.admit(6, at: at(17)) == .log(suppressed: 0, overflow: false))
        #expect(throttle.admit(7, at: at(18)) == .log(suppressed: 0, overflow: false))
        #expect(throttle.trackedKinds == 2)
        // The overflow kind's interval has passed: its line counts its own 2 and the carried 1.
        #expect(throttle.admit(8, at: at(18)) == .log(suppressed: 3, overflow: true))
        #expect(throttle.admit(2, at: at(19)) == .suppress)

        // At 27, kind 6 has expired and kind 7 has not.
        #expect(throttle.admit(9, at: at(27)) == .log(suppressed: 0, overflow: false))
        #expect(throttle.admit(7, at: at(27)) == .suppress)
        #expect(throttle.trackedKinds == 2)
    }

    @Test("A capacity of 0 sends every kind to the overflow kind")
    func zeroCapacity() {
        var throttle = LogThrottle<Int>(interval: .seconds(10), capacity: 0)

        #expect(throttle.admit(1, at: at(0)) == .log(suppressed: 0, overflow: true))
        #expect(throttle.admit(2, at: at(1)) == .suppress)
        #expect(throttle.admit(3, at: at(10)) == .log(suppressed: 1, overflow: true))
        #expect(throttle.trackedKinds == 0)
    }
}
#endif
