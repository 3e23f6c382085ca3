// expect-error: an async handler runs on a task, one mail at a time: remove `queue:`
// An async handler runs on a task, one mail at a time, so a queue has no meaning for it: Mailroom answers
// `queue:` with an error that says to remove it, where Swift alone would say that it expected a synchronous
// function.
import Dispatch
import Mailroom

struct Tick: Mail {}

func listen(office: PostOffice, queue: DispatchQueue) {
    office.register(queue: queue) { (_: Tick) async in }
}
