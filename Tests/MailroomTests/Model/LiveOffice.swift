// Drives a real PostOffice through a sequence of model operations and logs what its handlers receive, and
// what its fallback gets, in the same vocabulary as the reference model.

import Dispatch
import Mailroom
import Testing

/// The state the handlers registered on the real office share: the object pool, the ids of the labelled
/// registrations, the posts in progress and the log.
///
/// Synchronous handlers of posted mail run inside `post`, on the test's thread, and only they touch this
/// object's mutable state. Queued handlers run on the sequence's serial queue, which stays blocked except
/// inside ``drainQueue()``, while the test's thread waits; they, the recipients of `DeliveryFailure` (which run
/// on the queue's thread when a queued handler threw) and the office's fallback only touch the locked `log`.
///
/// The office holds the handlers, which hold this; this holds the office weakly, so there is no cycle and
/// releasing the office releases everything.
final class LiveOffice: @unchecked Sendable {
    private weak var office: PostOffice?
    /// The object each slot holds: its only strong reference (but for a queued delivery that holds it as
    /// sender), so replacing it kills it.
    private var objects: [any ModelObject]
    private var generations = Array(repeating: 1, count: ModelSlots.count)
    private var ids: [String: RecipientId] = [:]
    private var nestedRegistrations: [String: Int] = [:]
    /// The posts in progress, innermost last: what handlers that receive no mail or no sender were sent.
    private var posts: [(mail: String, sender: String?)] = []
    private let foreignId: RecipientId
    /// The queue of queued registrations, made at the first one, and the gate that keeps it blocked.
    private var queue: (queue: DispatchQueue, gate: Gate)?
    private let log: LiveLog

    /// How many deliveries were made in nested posts.
    private(set) var nestedDeliveries = 0

    /// A fresh office whose fallback logs the failures no registration received, and its driver.
    static func make() -> (office: PostOffice, live: LiveOffice) {
        let log = LiveLog()
        let office = PostOffice(unheardFailures: { failure in
            log.record(.unheard(failure: log.failureLine(failure), sender: log.name(of: failure.sender)))
        })
        return (office, LiveOffice(office: office, log: log))
    }

    private init(office: PostOffice, log: LiveLog) {
        self.office = office
        self.log = log
        objects = (0..<ModelSlots.count).map { ModelSlots.makeObject($0, generation: 1) }
        let other = PostOffice()
        foreignId = other.register { (_: Ping) in }
    }

    /// What the handlers and the fallback logged since the last ``clearEvents()``.
    var events: [ModelEvent] { log.events }

    func clearEvents() {
        log.clear()
    }

    var registrationCount: Int {
        office?.registrationCount ?? -1
    }

    func apply(_ operation: ModelOperation) {
        if case .drainQueue = operation {
            return drainQueue()
        }
        guard let office else { return }
        switch operation {
        case .register(let label, let spec):
            ids[label] = register(spec, label: label, on: office)
        case .post(let spec):
            post(spec, on: office)
        case .unregister(let label):
            unregister(label, on: office)
        case .unregisterObject(let slot):
            office.unregister(objects[slot])
        case .unregisterForeignId:
            office.unregister(foreignId)
        case .kill(let slot):
            generations[slot] += 1
            objects[slot] = ModelSlots.makeObject(slot, generation: generations[slot])
            reclaimDeadRegistrations()
        case .drainQueue:
            break
        }
    }

    /// Runs the deliveries waiting on the queue, and those they enqueue, then blocks it again.
    ///
    /// A queued handler that throws makes the office post its `DeliveryFailure` on the queue's thread, which
    /// may enqueue deliveries to queued recipients of `DeliveryFailure`: the queue is drained again until a
    /// round runs no queued handler. The first round's barrier is enqueued before the gate opens, so that
    /// everything enqueued while the queue runs comes after it.
    func drainQueue() {
        guard let queue else { return }
        let firstRound = DispatchSemaphore(value: 0)
        queue.queue.async { firstRound.signal() }
        queue.gate.open()
        waitFor(firstRound, "the queue of the model-based sequence to drain")
        var ran = -1
        while ran != log.queuedRuns {
            ran = log.queuedRuns
            drain(queue.queue)
        }
        self.queue?.gate = block(queue.queue)
        reclaimDeadRegistrations()
    }

    /// Once a sequence has a queued registration, reads `registrationCount` after every kill and drain, which
    /// reclaims the registrations of dead objects at once.
    ///
    /// A post enqueues a delivery for a queued registration whose recipient has died but that is not reclaimed
    /// yet; the delivery is dropped when it starts, but until then it holds the post's sender, which keeps that
    /// sender's exact registrations counted. Whether that happens depends on when the office reclaims, which
    /// the rules leave open, so these sequences make reclamation immediate. Sequences without a queue still
    /// post past dead registrations that were not reclaimed.
    private func reclaimDeadRegistrations() {
        if queue != nil {
            _ = office?.registrationCount
        }
    }

    /// Unblocks the queue for good, so that no thread stays blocked after the sequence.
    func close() {
        if let queue {
            queue.gate.open()
            drain(queue.queue)
        }
        queue = nil
    }

    private func unregister(_ label: String, on office: PostOffice) {
        // A label never registered (its register operation was shrunk away) unregisters nothing; one
        // registered and already removed is unregistered again, which must change nothing.
        if let id = ids[label] {
            office.unregister(id)
        }
    }

    // MARK: - Handlers

    /// What a registration's handlers need to log a delivery; they capture it, and nothing else but `self`.
    struct Handling: Sendable {
        let label: String
        let spec: ModelRegistrationSpec
    }

    /// Logs a delivery, runs the registration's action if the post is not nested too deep, and answers as the
    /// spec says: throws `ModelFailure`, or tells an interceptor's handler to consume the mail or pass it on.
    ///
    /// `mail` is `nil` for handlers that do not receive the mail, and `sender` is `nil` (not `.some(nil)`, a
    /// post without sender) for those that do not receive the sender; synchronous handlers of posted mail then
    /// log the innermost post's, other handlers `modelNotReceived` (but the sender of a `DeliveryFailure` they
    /// receive). The handler's error type `E` is `ModelFailure` when the spec may throw, else `Never`.
    func answer<E: Error>(
        _: E.Type, _ handling: Handling, recipient: String? = nil, mail: (any Mail)?, sender: String??
    ) throws(E) -> Consumption {
        switch received(handling, recipient: recipient, mail: mail, sender: sender) {
        case .handled: return .passOn
        case .consumed: return .consumed
        case .threw: throw ModelFailure(label: handling.label) as! E
        }
    }

    /// The name of a sender of the pool, or `nil` for none.
    func name(of sender: (any AnyObject & Sendable)?) -> String? {
        log.name(of: sender)
    }

    private func received(_ handling: Handling, recipient: String?, mail: (any Mail)?, sender: String??)
        -> ModelOutcome
    {
        let spec = handling.spec
        // A handler not passed the mail knows it is a report only by its registration's mail type.
        let isReport = mail.map { $0 is DeliveryFailure } ?? (spec.mail == .failure)
        let duringPost = !spec.queued && !isReport
        if spec.queued {
            log.countQueuedRun()
        }
        let post = duringPost ? posts.last : nil
        if duringPost, post == nil {
            log.record(
                .delivered(
                    label: handling.label, recipient: recipient, mail: "<outside any post>", sender: nil,
                    outcome: .handled))
            return .handled
        }
        let loggedMail = mail.map(log.describe) ?? post?.mail ?? modelNotReceived
        let loggedSender: String? =
            switch sender {
            case .some(let passed): passed
            case .none:
                if let failure = mail as? DeliveryFailure {
                    log.name(of: failure.sender)
                } else if let post {
                    post.sender
                } else {
                    modelNotReceived
                }
            }
        let number = mail.map(log.number)
        let outcome = spec.outcome(on: number)
        log.record(
            .delivered(
                label: handling.label, recipient: recipient, mail: loggedMail, sender: loggedSender, outcome: outcome))
        if duringPost {
            if posts.count > 1 {
                nestedDeliveries += 1
            }
            if let action = spec.actionDuringPosts, posts.count < ModelLimits.actionDepth, let office {
                perform(action, by: handling.label, on: office)
            }
        }
        return outcome
    }

    private func perform(_ action: ModelAction, by owner: String, on office: PostOffice) {
        switch action {
        case .post(let spec):
            post(spec, on: office)
        case .register(let spec, let times):
            for _ in 0..<times {
                let n = nestedRegistrations[owner, default: 0] + 1
                nestedRegistrations[owner] = n
                let label = modelNestedLabel(owner, n)
                ids[label] = register(spec, label: label, on: office)
            }
        case .unregister(let label):
            unregister(label, on: office)
        case .unregisterAllMadeBy(let owner):
            for n in 0..<nestedRegistrations[owner, default: 0] {
                unregister(modelNestedLabel(owner, n + 1), on: office)
            }
        case .unregisterObject(let slot):
            office.unregister(objects[slot])
        case .readCount:
            log.record(.counted(by: owner, count: office.registrationCount))
        }
    }

    // MARK: - Posting

    private func post(_ spec: ModelPostSpec, on office: PostOffice) {
        posts.append((spec.mailDescription, spec.sender.map { objects[$0].name }))
        defer { posts.removeLast() }
        switch spec.mail {
        case .ping:
            send(Ping(n: spec.number), spec, on: office)
        case .pong:
            send(Pong(n: spec.number), spec, on: office)
        case .letter, .parcel, .crate:
            let tag = "\(spec.number)"
            let letter: Letter =
                switch spec.mail {
                case .crate: Crate(tag)
                case .parcel: Parcel(tag)
                default: Letter(tag)
                }
            // Posted through a variable of the static type the spec names.
            switch spec.staticType {
            case .crate: send(letter as! Crate, spec, on: office)
            case .parcel: send(letter as! Parcel, spec, on: office)
            default: send(letter, spec, on: office)
            }
        case .failure:
            Issue.record("the sequences post no DeliveryFailure: only the office does")
        }
    }

    private func send<M: Mail>(_ mail: M, _ spec: ModelPostSpec, on office: PostOffice) {
        guard let slot = spec.sender else {
            if spec.explicitNilSender {
                office.post(mail, sender: Device?.none)
            } else {
                office.post(mail)
            }
            return
        }
        if spec.senderAsDevice, let device = objects[slot] as? Device {
            office.post(mail, sender: device)
        } else {
            send(mail, from: objects[slot], on: office)
        }
    }

    private func send<M: Mail, S: ModelObject>(_ mail: M, from sender: S, on office: PostOffice) {
        office.post(mail, sender: sender)
    }

    // MARK: - Registering

    private func register(_ spec: ModelRegistrationSpec, label: String, on office: PostOffice) -> RecipientId {
        let handling = Handling(label: label, spec: spec)
        var queue: DispatchQueue?
        if spec.queued {
            if self.queue == nil {
                let made = DispatchQueue(label: "model-based \(label)")
                self.queue = (made, block(made))
            }
            queue = self.queue?.queue
        }
        let registrar: any LiveRegistrar =
            switch (spec.consumesOn != nil, spec.throwsOn != nil) {
            case (false, false):
                LiveRegistering<Never>(office: office, queue: queue, live: self, handling: handling)
            case (false, true):
                LiveRegistering<ModelFailure>(office: office, queue: queue, live: self, handling: handling)
            case (true, false):
                LiveIntercepting<Never>(office: office, live: self, handling: handling)
            case (true, true):
                LiveIntercepting<ModelFailure>(office: office, live: self, handling: handling)
            }
        let id = registrar.register(spec, objects)
        log.name(id, label)
        return id
    }
}
