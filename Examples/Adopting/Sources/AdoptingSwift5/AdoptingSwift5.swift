import AdoptingSupport
import Mailroom

/// Builds the recipients of Recipients.swift, posts to them, and checks what each received and where it ran.
/// (`main` runs on the main actor.)
@main
struct AdoptingSwift5 {
    static func main() async throws {
        let office = PostOffice()
        let screen = LegacyCartScreen(office: office)
        let viewModel = CartViewModel(office: office)

        screen.refresh(office: office)
        try await Task.detached { try await office.deliver(CartChanged(itemCount: 7)) }.value

        let checks = Checks()
        checks.expect("a plain class's method received both posts", screen.shown, equals: [0, 7])
        checks.expect("a plain class's [weak self] closure received both posts", screen.logged, equals: [0, 7])
        let forms = ["method", "closure", "function value", "method with queue:"]
        checks.expect(
            "every @MainActor form received both posts, in registration order",
            viewModel.received, equals: [0, 7].flatMap { count in forms.map { "\($0) \(count)" } })
        checks.expect(
            "... all on the main actor, also when posted from another thread", viewModel.offMainActor, equals: [])
        checks.finish()
    }
}
