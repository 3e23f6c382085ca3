// The ways an existing class becomes a recipient in Swift 6 language mode, where Mailroom needs to know that a
// recipient may be called from another thread.
import AdoptingSupport
import Dispatch
import Mailroom
import Synchronization

struct CartChanged: Mail {
    let itemCount: Int
}

/// 1. A class that belongs to the UI: make it `@MainActor`. Its methods register as they are and run on the main
/// actor; closures that use it say `on: .mainActor`.
@MainActor final class CartBadge {
    private(set) var shown: [Int] = []
    private(set) var announced: [Int] = []
    private(set) var offMainActor = 0

    init(office: PostOffice) {
        office.register(self, CartBadge.update)
        office.register(on: .mainActor) { [weak self] (change: CartChanged) in
            self?.announced.append(change.itemCount)
        }
    }

    func update(_ change: CartChanged) {
        if !isOnMainActor() { offMainActor += 1 }
        shown.append(change.itemCount)
    }
}

/// 2. A class whose state many threads change: make it an actor. Swift does not pass a synchronous actor method
/// unapplied, so the actor comes to the closure as its isolated parameter.
actor CartLedger {
    private(set) var total = 0

    init(office: PostOffice) {
        office.register(self) { ledger, change in ledger.record(change) }
    }

    func record(_ change: CartChanged) {
        total += change.itemCount
    }
}

/// 3. A class that guards its state with a lock: hold the state in a `Mutex` (or another `Sendable` lock), keep
/// every stored property a `let`, and the class is `Sendable`, checked by the compiler.
final class CartCounter: Sendable {
    private let changes = Mutex(0)

    init(office: PostOffice) {
        office.register(self, CartCounter.count)
    }

    func count(_ change: CartChanged) {
        changes.withLock { $0 += 1 }
    }

    var changeCount: Int { changes.withLock { $0 } }
}

/// 4. A class used from one serial queue only: register it with that `queue:`, so that it is only ever called
/// there, and state that promise with `@unchecked Sendable`. The compiler no longer checks it: every use of its
/// state must stay on the queue.
final class CartArchive: @unchecked Sendable {
    let queue = DispatchQueue(label: "cart.archive")
    private var saved: [Int] = []

    init(office: PostOffice) {
        office.register(queue: queue, self, CartArchive.save)
    }

    func save(_ change: CartChanged) {
        dispatchPrecondition(condition: .onQueue(queue))
        saved.append(change.itemCount)
    }

    /// What was saved, read on the queue.
    var savedCounts: [Int] { queue.sync { saved } }
}

/// 5. A sender is handed to recipients on other threads, so it must be `Sendable` too: a `@MainActor` class is.
@MainActor final class Cart {
    private var items: [String] = []

    func add(_ item: String, office: PostOffice) async throws {
        items.append(item)
        try await office.deliver(CartChanged(itemCount: items.count), sender: self)
    }
}
