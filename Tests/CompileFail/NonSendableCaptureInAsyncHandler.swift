// expect-error: capture of 'counter' with non-Sendable type 'Counter' in a '@Sendable' closure
// An async handler runs on a task, so it must not capture unprotected mutable state.
import Mailroom

struct Tick: Mail {}
final class Counter { var value = 0 }

func listen(office: PostOffice, counter: Counter) {
    office.register { (_: Tick) async in counter.value += 1 }
}
