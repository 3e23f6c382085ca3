#if Observability
// Thread-safe records of what recipients saw, and a clock that tests move by hand.

import Instrumentation
import Mailroom

@testable import MailroomObservability

/// What one recipient saw of one mail: the recipient's form, the mail's number and the request it ran in.
struct Sighting: Hashable, Sendable, CustomStringConvertible {
    let form: String
    let n: Int
    let request: String?

    var description: String { "\(form) got \(n) in \(request ?? "no request")" }
}

/// Records values from any thread, in the order they come.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Locked<[Value]>([])

    func record(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    var all: [Value] {
        values.withLock { $0 }
    }
}

extension Recorder where Value == Sighting {
    /// Records that `form` got mail number `n`, in the current `ServiceContext`'s request.
    func saw(_ form: String, _ n: Int) {
        record(Sighting(form: form, n: n, request: ServiceContext.current?.request))
    }

    /// What `form` saw, in order.
    func of(_ form: String) -> [Sighting] {
        all.filter { $0.form == form }
    }
}

/// A monotonic clock that only moves when the test moves it.
final class ManualClock: Sendable {
    private let origin = ContinuousClock.now
    private let elapsed = Locked(Duration.zero)

    func advance(by duration: Duration) {
        elapsed.withLock { $0 += duration }
    }

    var now: ContinuousClock.Instant {
        origin + elapsed.withLock { $0 }
    }

    /// The clock, as the telemetry reads it.
    var telemetryClock: TelemetryClock {
        TelemetryClock(now: { self.now })
    }
}
#endif
