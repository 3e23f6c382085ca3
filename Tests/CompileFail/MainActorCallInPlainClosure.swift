// expect-error: call to main actor-isolated instance method 'receive' in a synchronous nonisolated context
// A plain closure runs on the posting thread, so it cannot call into the main actor synchronously.
import Mailroom

struct Tick: Mail {}

@MainActor final class ViewModel {
    var ticks = 0
    func receive(_ tick: Tick) { ticks += 1 }

    func listen(to office: PostOffice) {
        office.register { (tick: Tick) in self.receive(tick) }
    }
}
