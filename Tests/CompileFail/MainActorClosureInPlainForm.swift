// expect-error: loses global actor 'MainActor'
// A `@MainActor` closure needs `register(on: .mainActor)`; the plain form runs on the posting thread.
import Mailroom

struct Tick: Mail {}

@MainActor var ticks = 0

func listen(to office: PostOffice) {
    office.register { @MainActor (_: Tick) in ticks += 1 }
}
