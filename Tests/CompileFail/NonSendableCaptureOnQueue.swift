// expect-error: capture of 'counter' with non-Sendable type 'Counter' in a '@Sendable' closure
// A closure delivered on a queue (or on whatever thread posts) must not capture unprotected mutable state.
import Dispatch
import Mailroom

struct Tick: Mail {}
final class Counter { var value = 0 }

func listen(counter: Counter) {
    PostOffice.default.register(queue: DispatchQueue(label: "work")) { (_: Tick) in counter.value += 1 }
}
