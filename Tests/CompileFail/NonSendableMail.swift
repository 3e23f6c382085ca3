// expect-error: has non-Sendable type 'Counter'
// Mail crosses threads, so it must be `Sendable`.
import Mailroom

final class Counter { var value = 0 }

struct Tick: Mail {
    let counter: Counter
}
