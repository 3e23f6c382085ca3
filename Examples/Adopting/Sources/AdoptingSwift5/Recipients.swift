// Existing code in a Swift 5 language-mode module, as most app targets still are: it builds against Mailroom as
// it is, with warnings where Swift 6 mode would stop, and main-actor code still runs on the main actor.
import AdoptingSupport
import Dispatch
import Mailroom

struct CartChanged: Mail {
    let itemCount: Int
}

/// 1. A plain class, not `Sendable`, registering its method and a `[weak self]` closure, and posting as a
/// sender: unchanged code that builds in Swift 5 mode (a warning on the method registration). Its handlers run
/// on the posting thread, so it is only as thread-safe as it was with NotificationCenter: here it is used from
/// one thread.
final class LegacyCartScreen {
    private(set) var shown: [Int] = []
    private(set) var logged: [Int] = []

    init(office: PostOffice) {
        office.register(self, LegacyCartScreen.update)
        office.register { [weak self] (change: CartChanged) in
            self?.logged.append(change.itemCount)
        }
    }

    func update(_ change: CartChanged) {
        shown.append(change.itemCount)
    }

    func refresh(office: PostOffice) {
        office.post(CartChanged(itemCount: shown.count), sender: self)
    }
}

/// 2. A `@MainActor` class: its method, a `register(on: .mainActor)` closure, a `@MainActor` function value
/// passed to the plain form (deprecated: it names `on: .mainActor`), and its method registered with a `queue:`
/// (deprecated: the queue is ignored) all run on the main actor, also when posted from another thread.
@MainActor final class CartViewModel {
    private(set) var received: [String] = []
    private(set) var offMainActor: [String] = []

    init(office: PostOffice) {
        office.register(self, CartViewModel.update)
        office.register(on: .mainActor) { [weak self] (change: CartChanged) in
            self?.record("closure", change)
        }
        let announce: @MainActor (CartChanged) -> Void = { [weak self] change in self?.record("function value", change)
        }
        office.register(announce)
        office.register(queue: .global(), self, CartViewModel.updateOnQueue)
    }

    func update(_ change: CartChanged) {
        record("method", change)
    }

    func updateOnQueue(_ change: CartChanged) {
        record("method with queue:", change)
    }

    private func record(_ form: String, _ change: CartChanged) {
        received.append("\(form) \(change.itemCount)")
        if !isOnMainActor() { offMainActor.append(form) }
    }
}
