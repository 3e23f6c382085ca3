// expect-error: a @MainActor closure is delivered on the main actor: write register(on: .mainActor) { ... }
// flags: -warnings-as-errors
// A `@MainActor` closure passed to a plain form: Swift would drop its isolation (in Swift 5 language mode with
// only a warning) and run it on the posting thread; Mailroom picks its main-actor form instead and warns that
// `register(on: .mainActor)` says so.
import Mailroom

struct Tick: Mail {}

@MainActor var ticks = 0

func listen(to office: PostOffice) {
    office.register { @MainActor (_: Tick) in ticks += 1 }
}
