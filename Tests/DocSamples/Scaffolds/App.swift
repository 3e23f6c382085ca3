// The app the documentation's fragments come from: its office, its mail and the objects that post it. A block
// that declares one of these names itself uses its own (a declaration in main.swift shadows an imported one).
import Foundation
import Mailroom
import Synchronization

/// The office the fragments register with and post to when they do not make their own.
public let office = PostOffice()

/// Posted by a cart when its number of items changes.
public struct CartChanged: Mail {
    /// The number of items after the change.
    public let itemCount: Int

    /// Mail for a cart that now holds `itemCount` items.
    public init(itemCount: Int) { self.itemCount = itemCount }
}

/// Posted when the network comes or goes.
public enum Connectivity: Mail {
    /// The network is reachable.
    case online
    /// The network is not reachable.
    case offline(reason: String)
}

/// Posted when an order is placed.
public struct OrderPlaced: Mail {
    /// The order's number.
    public let orderNumber: Int

    /// Mail for the order `orderNumber`.
    public init(orderNumber: Int) { self.orderNumber = orderNumber }
}

/// Posted once the app has launched.
public struct LaunchFinished: Mail {
    /// The mail.
    public init() {}
}

/// Mail that shows a message to the user.
public protocol Alert: Mail {
    /// What to show.
    var message: String { get }
}

/// The signed-in user, kept for recipients that register later.
public struct Session: StickyMail {
    /// The user's name.
    public let user: String

    /// A session of `user`.
    public init(user: String) { self.user = user }
}

/// Posted when a user's session expires.
public struct SessionExpired: Mail {
    /// The user whose session expired.
    public let user: String

    /// Mail for `user`.
    public init(user: String) { self.user = user }
}

/// Why a session notification could not become mail.
public enum SessionError: Error {
    /// The notification had no session.
    case noSession
}

extension Notification.Name {
    /// The name the app's carts post under before they move to mail.
    public static let cartDidChange = Notification.Name("CartDidChange")
    /// The name the app's session store posts under when a session expires.
    public static let sessionDidExpire = Notification.Name("SessionDidExpire")
}

/// A shopping cart: adding an item posts ``CartChanged`` to its office, with the cart as the sender.
public final class Cart: Sendable {
    private let office: PostOffice
    private let items = Mutex<[String]>([])

    /// A cart that posts to `office`.
    public init(office: PostOffice) { self.office = office }

    /// A cart that posts to the fragments' ``office``.
    public convenience init() { self.init(office: DocScaffold.office) }

    /// Adds `item` and posts the new count.
    public func add(_ item: String) {
        let count = items.withLock { items in
            items.append(item)
            return items.count
        }
        office.post(CartChanged(itemCount: count), sender: self)
    }

    /// Adds an item that a background sync found, a moment later, from another task.
    public func syncInBackground() {
        Task { self.add("synced") }
    }
}

/// The cart the fragments post from.
public let cart = Cart()
/// Another name for a cart, where a fragment tells one cart from others.
public let mainCart = Cart()
/// An item to put in a cart.
public let apple = "apple"

/// A badge that shows the number of items in the cart; it receives ``CartChanged`` through a method.
public final class Badge: Sendable {
    private let shown = Mutex(0)

    /// A badge that shows 0.
    public init() {}

    /// The number the badge shows.
    public var count: Int {
        get { shown.withLock { $0 } }
        set { shown.withLock { $0 = newValue } }
    }

    /// Shows the cart's new count.
    public func update(_ change: CartChanged) { count = change.itemCount }

    /// Shows 0.
    public func reset() { count = 0 }
}

/// The badge the fragments register.
public let badge = Badge()

/// The class whose instances may post ``VerifiedMail`` that names it as its required sender.
public final class CheckoutFlow: Sendable {
    /// A checkout.
    public init() {}
}

/// The checkout the fragments post from.
public let flow = CheckoutFlow()

/// Keeps the cart's history, on an actor.
public actor Ledger {
    /// An empty ledger.
    public init() {}

    /// Records the cart's new count.
    public func record(_ itemCount: Int) {}
}

/// The ledger the fragments record to.
public let ledger = Ledger()

/// The queue the fragments deliver analytics on.
public let analyticsQueue = DispatchQueue(label: "analytics")
