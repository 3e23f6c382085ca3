// expect-error: a @MainActor method is delivered on the main actor: `queue:` is ignored
// flags: -warnings-as-errors
// A main-actor method asked to run on another queue: Swift would drop its isolation and run it there; Mailroom
// picks its main-actor form instead and warns that the queue is ignored.
import Dispatch
import Mailroom

struct Tick: Mail {}

@MainActor final class ViewModel {
    var ticks = 0
    func receive(_ tick: Tick) { ticks += 1 }

    func listen(to office: PostOffice) {
        office.register(queue: .global(), self, ViewModel.receive)
    }
}
