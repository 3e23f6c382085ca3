// Protocol recipients, a catch-all logger, undelivered mail and sticky state: `swift run FeaturesTour`.
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
let logger = office.register { (mail: any Mail) in
    print("  log: \(mail)")
}
office.post(CartChanged(itemCount: 3))  // only the logger sees it: reported, and the logger sees no report
office.post(DiskFull(message: "still full"))  // the banner receives it
office.unregister(logger)

print("5. Who listens to what")
print(office.debugDescription)
