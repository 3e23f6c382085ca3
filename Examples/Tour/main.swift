// A tour of Mailroom: `swift run Tour` prints what every recipient got.
import Dispatch
import Mailroom

// MARK: - Mail: any struct, enum or class that conforms to `Mail`

struct CartChanged: Mail {
    let itemCount: Int
}

enum Connectivity: Mail {
    case online
    case offline(reason: String)
}

// MARK: - Senders and recipients

final class Cart: Sendable {
    let name: String
    init(name: String) { self.name = name }
}

/// A screen element that shows the number of items; it receives mail through a method.
final class Badge: Sendable {
    let name: String
    init(name: String) { self.name = name }

    func update(_ change: CartChanged) {
        print("  \(name) badge shows \(change.itemCount)")
    }

    deinit { print("  (\(name) badge deallocated)") }
}

let office = PostOffice()
let mainCart = Cart(name: "main cart")
let wishList = Cart(name: "wish list")

print("1. A closure receives every CartChanged, whoever sent it")
let everyChange = office.register { (change: CartChanged) in
    print("  log: cart now has \(change.itemCount) items")
}
office.post(CartChanged(itemCount: 1))

print("2. Sender filters: any Cart, or exactly the main cart")
office.register { (change: CartChanged, cart: Cart) in
    print("  from any cart: \(cart.name) has \(change.itemCount)")
}
office.register(sender: mainCart) { (change: CartChanged) in
    print("  from the main cart only: \(change.itemCount)")
}
office.post(CartChanged(itemCount: 2), sender: mainCart)
office.post(CartChanged(itemCount: 5), sender: wishList)

print("3. A method recipient is held weakly")
var badge: Badge? = Badge(name: "toolbar")
if let badge {
    office.register(badge, Badge.update)
}
office.post(CartChanged(itemCount: 3))
badge = nil
office.post(CartChanged(itemCount: 4))
print("  registrations left: \(office.registrationCount)")

print("4. Enum mail, delivered on a queue")
let analytics = DispatchQueue(label: "analytics")
office.register(queue: analytics) { (state: Connectivity) in
    switch state {
    case .online: print("  analytics queue: online")
    case .offline(let reason): print("  analytics queue: offline (\(reason))")
    }
}
office.post(Connectivity.offline(reason: "airplane mode"))
office.post(Connectivity.online)
analytics.sync {}  // wait for the queue to deliver both, in post order

print("5. Unregistering")
office.unregister(everyChange)
office.post(CartChanged(itemCount: 6))
print("  registrations left: \(office.registrationCount)")
