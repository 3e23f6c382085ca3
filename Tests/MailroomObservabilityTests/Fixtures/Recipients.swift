#if Observability
// Recipients of every form, each recording the request it runs in.

import Dispatch
import Instrumentation
import Mailroom

/// A `Sendable` class whose method is registered.
final class PingTaker: Sendable {
    let seen: Recorder<Sighting>

    init(_ seen: Recorder<Sighting>) {
        self.seen = seen
    }

    func receive(_ ping: Ping) {
        seen.saw("method", ping.n)
    }
}

/// An actor registered with a closure that runs isolated to it.
actor PingActor {
    let seen: Recorder<Sighting>

    init(_ seen: Recorder<Sighting>) {
        self.seen = seen
    }

    func take(_ ping: Ping) {
        seen.saw("actor", ping.n)
    }
}

/// The forms of recipient, as `Recipients.register` registers them; `receive` is a sequence's loop.
enum Form {
    static let closure = "closure"
    static let method = "method"
    static let queue = "queue"
    static let mainActor = "main actor"
    static let async = "async"
    static let actor = "actor"
    static let receive = "receive"
    static let protocolOnQueue = "protocol on a queue"

    /// Every form that `Recipients.register` registers, the loop aside.
    static let registered = [closure, method, queue, mainActor, async, actor, protocolOnQueue]
}

/// One recipient of each form for `Ping`, each recording what it got and in which request.
struct Recipients {
    let seen = Recorder<Sighting>()
    let queue = DispatchQueue(label: "recipients")
    private let taker: PingTaker
    private let actor: PingActor

    init() {
        taker = PingTaker(seen)
        actor = PingActor(seen)
    }

    /// Registers one recipient of each form with `office`, the way users write them.
    func register(with office: PostOffice) {
        let seen = seen
        office.register { (ping: Ping) in seen.saw(Form.closure, ping.n) }
        office.register(taker, PingTaker.receive(_:))
        office.register(queue: queue) { (ping: Ping) in seen.saw(Form.queue, ping.n) }
        office.register(on: .mainActor) { (ping: Ping) in seen.saw(Form.mainActor, ping.n) }
        office.register { (ping: Ping) async in seen.saw(Form.async, ping.n) }
        office.register(actor) { (actor: isolated PingActor, ping: Ping) in actor.take(ping) }
        office.register(queue: queue, conformingTo: (any Numbered).self) { (mail: any Numbered) in
            seen.saw(Form.protocolOnQueue, mail.n)
        }
    }
}

/// Thrown by a loop's body to end the loop.
struct LoopDone: Error {}

/// Starts a `receive` loop over `office`'s `Ping`s that records each one's request, until it has taken mail
/// number `last`.
func receiveLoop(_ office: PostOffice, until last: Int, recording seen: Recorder<Sighting>) -> Task<Void, any Error> {
    let sequence = office.mail(of: Ping.self)
    return Task {
        try await sequence.receive { (ping: Ping) throws(LoopDone) in
            seen.saw(Form.receive, ping.n)
            if ping.n == last {
                throw LoopDone()
            }
        }
    }
}

/// Posts `Ping(n)` in request `request` (none when nil), then waits until every recipient has handled it.
func deliver(_ n: Int, inRequest request: String?, to office: PostOffice) async {
    await ServiceContext.withValue(.ofRequest(request)) {
        await office.deliverIgnoringFailures(Ping(n: n))
    }
}

/// Posts `Ping(n)` in request `request` (none when nil), without waiting.
func post(_ n: Int, inRequest request: String?, to office: PostOffice) {
    ServiceContext.withValue(.ofRequest(request)) {
        office.post(Ping(n: n))
    }
}
#endif
