// expect-error: type 'Screen' does not conform to the 'Sendable' protocol
// A method recipient is called on the posting thread or a queue, so its class must be `Sendable`.
import Mailroom

struct Tick: Mail {}
final class Screen {
    var ticks = 0
    func receive(_ tick: Tick) { ticks += 1 }
}

func listen(screen: Screen) {
    PostOffice.default.register(screen, Screen.receive)
}
