import AdoptingSupport
import Mailroom

/// Builds the recipients of Recipients.swift, posts to them from another thread and from the main actor, and
/// checks what each received and where it ran. (`main` runs on the main actor.)
@main
struct AdoptingSwift6 {
    static func main() async throws {
        let office = PostOffice()
        let badge = CartBadge(office: office)
        let ledger = CartLedger(office: office)
        let counter = CartCounter(office: office)
        let archive = CartArchive(office: office)
        let cart = Cart()

        try await Task.detached { try await office.deliver(CartChanged(itemCount: 1)) }.value
        try await cart.add("apple", office: office)
        try await cart.add("pear", office: office)

        let checks = Checks()
        checks.expect("a @MainActor class's method received every post", badge.shown, equals: [1, 1, 2])
        checks.expect("... on the main actor, also when posted from another thread", badge.offMainActor, equals: 0)
        checks.expect("a register(on: .mainActor) closure received every post", badge.announced, equals: [1, 1, 2])
        checks.expect("an actor received every post, on itself", await ledger.total, equals: 4)
        checks.expect("a Sendable class with a Mutex received every post", counter.changeCount, equals: 3)
        checks.expect(
            "a queue-confined class received every post, on its queue", archive.savedCounts, equals: [1, 1, 2])
        checks.finish()
    }
}
