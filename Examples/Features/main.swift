// Protocol recipients, a catch-all logger, undelivered mail, sticky state, a failing recipient and an
// interceptor: `swift run FeaturesTour`.
//
// Every recipient runs on the posting thread, so the lines come out in the same order on every run.
import Mailroom

// MARK: - Mail

/// Anything the user should be told about; a recipient can register for the protocol instead of each type.
protocol Alert: Mail {
    var message: String { get }
}

struct DiskFull: Alert {
    let message: String
}

struct SyncFailed: Alert {
    let message: String
}

struct CartChanged: Mail {
    let itemCount: Int
}

/// Who is signed in. Every post of a `StickyMail` type is kept, for screens that open later.
struct Session: StickyMail {
    let user: String
}

struct KeyPress: Mail {
    let key: String
}

struct OrderPlaced: Mail {
    let orderNumber: Int
}

/// What the payment recipient throws.
struct PaymentDeclined: Error {}

let office = PostOffice()

print("1. A protocol recipient gets every Alert, whatever its type")
office.register(conformingTo: Alert.self) { alert in
    print("  banner: \(alert.message)")
}
office.post(DiskFull(message: "the disk is full"))
office.post(SyncFailed(message: "sync failed"))

print("2. Mail that reaches nobody comes back as UndeliveredMail")
office.register { (lost: UndeliveredMail) in
    print("  undelivered: \(lost.mail)")
}
office.post(CartChanged(itemCount: 2))

print("3. Sticky state: the last Session is kept, even though nobody received it")
office.post(Session(user: "ada"))
office.post(Session(user: "grace"))
let profile = office.register { (session: Session) in
    print("  profile screen shows \(session.user)")
}
let replayed = office.replayStickyMail(to: profile)
print("  (replayed \(replayed) mail to the new screen)")
office.post(Session(user: "linus"))

print("4. A catch-all logger sees every post, but mail only it saw is still undelivered")
let logger = office.register(conformingTo: (any Mail).self) { (mail: any Mail) in
    print("  log: \(mail)")
}
office.post(CartChanged(itemCount: 3))  // only the logger sees it: reported, and the logger sees no report
office.post(DiskFull(message: "still full"))  // the banner receives it
office.unregister(logger)

print("5. Key presses: a high-priority interceptor consumes Escape, and the editor behind it never sees it")
office.register { (press: KeyPress) in
    print("  editor: types \(press.key)")
}
office.intercept(priority: .high) { (press: KeyPress) in  // registered later, called first
    guard press.key == "escape" else { return .passOn }
    print("  dialog: closes on escape")
    return .consumed  // consumed mail was received: it is not reported as undelivered
}
office.post(KeyPress(key: "a"))
office.post(KeyPress(key: "escape"))
office.post(KeyPress(key: "b"))

print("6. A recipient that throws: the others are still served, and the failure comes back as mail")
office.register { (order: OrderPlaced) in
    print("  payment: charging order \(order.orderNumber)")
    throw PaymentDeclined()
}
office.register { (order: OrderPlaced) in
    print("  email: confirming order \(order.orderNumber)")
}
office.register { (failure: DeliveryFailure) in
    print("  failure report: \(failure.error) on \(failure.mail)")
}
office.post(OrderPlaced(orderNumber: 7))  // the report comes at once, before the email
do {
    try await office.deliver(OrderPlaced(orderNumber: 8))  // returns once every recipient ran, then throws
} catch {
    print("  deliver threw: \(error)")  // DeliveryFailures: every failure of this mail, in recipient order
}

print("7. Who listens to what, in the order posts call them")
print(office.debugDescription)
