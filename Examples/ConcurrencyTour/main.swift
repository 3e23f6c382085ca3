// Mailroom with Swift concurrency: `swift run ConcurrencyTour`.
//
// A main-actor view model, an actor-backed store and an AsyncSequence consumer receive the same mail. Each
// keeps what it received; the tour prints it at the end, since the three run on different executors and their
// lines would otherwise interleave differently from run to run.
import Mailroom

struct ItemAdded: Mail {
    let name: String
    let price: Int
}

struct CheckedOut: Mail {}

/// Screen state: isolated to the main actor, registered by its method, held weakly.
@MainActor final class CartViewModel {
    private(set) var badge = 0
    private(set) var seen: [String] = []

    init(office: PostOffice) {
        office.register(self, CartViewModel.itemAdded)
    }

    func itemAdded(_ item: ItemAdded) {
        MainActor.assertIsolated()
        badge += 1
        seen.append(item.name)
    }
}

/// The cart's contents: an actor, so its state is only touched on itself.
actor CartStore {
    private(set) var items: [String] = []
    private(set) var total = 0

    init(office: PostOffice) {
        office.register(self) { store, item in store.add(item) }
    }

    private func add(_ item: ItemAdded) {
        items.append(item.name)
        total += item.price
    }
}

let office = PostOffice()
let viewModel = CartViewModel(office: office)
let store = CartStore(office: office)

// A consumer that prints a receipt line per item, until checkout: mail as an AsyncSequence. The sequence is a
// registration from this point on, so nothing posted after this line is missed, even before the loop starts.
let items = office.mail(of: ItemAdded.self)
let checkout = office.mail(of: CheckedOut.self)
let printer = Task {
    var lines: [String] = []
    for await item in items {
        lines.append("\(item.name) \(item.price)")
        if lines.count == 3 { break }
    }
    for await _ in checkout { break }
    return lines
}

// Post from a background task; `deliver` returns once the view model and the store have handled each item.
try await Task.detached {
    for (name, price) in [("apples", 3), ("bread", 2), ("coffee", 7)] {
        try await office.deliver(ItemAdded(name: name, price: price))
    }
    try await office.deliver(CheckedOut())
}.value

let receipt = await printer.value
print("view model (main actor): badge \(viewModel.badge), saw \(viewModel.seen)")
print("store (actor): \(await store.items), total \(await store.total)")
print("receipt printer (AsyncSequence): \(receipt)")
print("registrations left: \(office.registrationCount)")
