// Drives a real PostOffice through a sequence of model operations and logs what its handlers receive, in the
// same vocabulary as the reference model.

import Dispatch
import Mailroom
import Testing

/// The state the handlers registered on the real office share: the object pool, the ids of the labelled
/// registrations, the posts in progress and the log.
///
/// Synchronous handlers run inside `post`, on the test's thread, and only they touch this object's mutable
/// state. Queued handlers run on the sequence's serial queue, which stays blocked except inside
/// ``drainQueue()``, while the test's thread waits; they only record into the locked `queuedLog`.
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
    private let queuedLog = Recorder<ModelEvent>()

    /// What the handlers received so far; the caller empties it between operations.
    var events: [ModelEvent] = []
    /// How many deliveries were made in nested posts.
    private(set) var nestedDeliveries = 0

    init(office: PostOffice) {
        self.office = office
        objects = (0..<ModelSlots.count).map { ModelSlots.makeObject($0, generation: 1) }
        let other = PostOffice()
        foreignId = other.register { (_: Ping) in }
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

    /// Runs the deliveries waiting on the queue, appends what they logged to `events`, and blocks it again.
    func drainQueue() {
        guard let queue else { return }
        queue.gate.open()
        drain(queue.queue)
        events += queuedLog.events
        queuedLog.removeAll()
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
    private struct Handling: Sendable {
        let label: String
        let queued: Bool
        let action: ModelAction?
    }

    /// Logs a delivery, then runs the registration's action if the post is not nested too deep.
    ///
    /// `mail` is `nil` for handlers that do not receive the mail, and `sender` is `nil` (not `.some(nil)`, a
    /// post without sender) for those that do not receive the sender; synchronous handlers then log the
    /// innermost post's, queued ones `modelNotReceived`.
    private func received(_ handling: Handling, recipient: String? = nil, mail: String?, sender: String??) {
        if handling.queued {
            // On the queue's thread: nothing but the locked log may be touched.
            queuedLog.record(
                .delivered(
                    label: handling.label, recipient: recipient, mail: mail ?? modelNotReceived,
                    sender: sender ?? modelNotReceived))
            return
        }
        guard let post = posts.last else {
            events.append(
                .delivered(label: handling.label, recipient: recipient, mail: "<outside any post>", sender: nil))
            return
        }
        events.append(
            .delivered(
                label: handling.label, recipient: recipient, mail: mail ?? post.mail, sender: sender ?? post.sender))
        if posts.count > 1 {
            nestedDeliveries += 1
        }
        if let action = handling.action, posts.count < ModelLimits.actionDepth, let office {
            perform(action, by: handling.label, on: office)
        }
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
            events.append(.counted(by: owner, count: office.registrationCount))
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
        let handling = Handling(label: label, queued: spec.queued, action: spec.queued ? nil : spec.action)
        var queue: DispatchQueue?
        if spec.queued {
            if self.queue == nil {
                let made = DispatchQueue(label: "model-based \(label)")
                self.queue = (made, block(made))
            }
            queue = self.queue?.queue
        }
        let registration = Registering(office: office, queue: queue, live: self, handling: handling)
        switch spec.mail {
        case .ping: return registration.register(Ping.self, spec, objects)
        case .pong: return registration.register(Pong.self, spec, objects)
        case .letter: return registration.register(Letter.self, spec, objects)
        case .parcel: return registration.register(Parcel.self, spec, objects)
        case .crate: return registration.register(Crate.self, spec, objects)
        }
    }

    /// Makes one registration, with one of the fourteen `register` overloads. The handlers capture `live` and
    /// `handling`, never a recipient or a sender: the office holds those weakly, so must what it holds.
    private struct Registering {
        let office: PostOffice
        let queue: DispatchQueue?
        let live: LiveOffice
        let handling: Handling

        func register<M: ModelMail>(_: M.Type, _ spec: ModelRegistrationSpec, _ objects: [any ModelObject])
            -> RecipientId
        {
            let recipient = spec.recipient.map { objects[$0] }
            switch spec.form {
            case .mail, .mailType:
                if let recipient {
                    return registerMethod(M.self, spec.form, recipient: recipient)
                }
                return registerClosure(M.self, spec.form)
            case .kind(let senderClass), .optionalKind(let senderClass):
                switch senderClass {
                case .recipient: return register(M.self, ModelRecipient.self, spec.form, recipient)
                case .device: return register(M.self, Device.self, spec.form, recipient)
                case .phone: return register(M.self, Phone.self, spec.form, recipient)
                case .stranger: return register(M.self, Stranger.self, spec.form, recipient)
                }
            case .exact(let slot), .exactWithSender(let slot), .exactMailType(let slot):
                if let recipient {
                    return registerMethod(M.self, spec.form, sender: objects[slot], recipient: recipient)
                }
                return registerClosure(M.self, spec.form, sender: objects[slot])
            }
        }

        /// `(M)` and `register(M.self)` closures.
        private func registerClosure<M: ModelMail>(_: M.Type, _ form: ModelForm) -> RecipientId {
            let (live, handling) = (live, handling)
            if form == .mailType {
                return office.register(queue: queue, M.self) {
                    live.received(handling, mail: nil, sender: .none)
                }
            }
            return office.register(queue: queue) { (mail: M) in
                live.received(handling, mail: mail.modelDescription, sender: .none)
            }
        }

        /// `(M)` and `register(M.self)` methods of `recipient`.
        private func registerMethod<M: ModelMail, R: ModelObject>(_: M.Type, _ form: ModelForm, recipient: R)
            -> RecipientId
        {
            let (live, handling) = (live, handling)
            if form == .mailType {
                return office.register(queue: queue, M.self, recipient) { (recipient: R) in
                    { live.received(handling, recipient: recipient.name, mail: nil, sender: .none) }
                }
            }
            return office.register(queue: queue, recipient) { (recipient: R) in
                { (mail: M) in
                    live.received(handling, recipient: recipient.name, mail: mail.modelDescription, sender: .none)
                }
            }
        }

        /// `(M, S)` and `(M, S?)`, as closures or methods of `recipient`.
        private func register<M: ModelMail, S: ModelObject>(
            _: M.Type, _: S.Type, _ form: ModelForm, _ recipient: (any ModelObject)?
        ) -> RecipientId {
            if let recipient {
                return registerMethod(M.self, S.self, form, recipient: recipient)
            }
            let (live, handling) = (live, handling)
            if case .optionalKind = form {
                return office.register(queue: queue) { (mail: M, sender: S?) in
                    live.received(handling, mail: mail.modelDescription, sender: .some(sender?.name))
                }
            }
            return office.register(queue: queue) { (mail: M, sender: S) in
                live.received(handling, mail: mail.modelDescription, sender: .some(sender.name))
            }
        }

        private func registerMethod<M: ModelMail, S: ModelObject, R: ModelObject>(
            _: M.Type, _: S.Type, _ form: ModelForm, recipient: R
        ) -> RecipientId {
            let (live, handling) = (live, handling)
            if case .optionalKind = form {
                return office.register(queue: queue, recipient) { (recipient: R) in
                    { (mail: M, sender: S?) in
                        live.received(
                            handling, recipient: recipient.name, mail: mail.modelDescription,
                            sender: .some(sender?.name))
                    }
                }
            }
            return office.register(queue: queue, recipient) { (recipient: R) in
                { (mail: M, sender: S) in
                    live.received(
                        handling, recipient: recipient.name, mail: mail.modelDescription, sender: .some(sender.name))
                }
            }
        }

        /// The three exact-sender forms as closures.
        private func registerClosure<M: ModelMail, S: ModelObject>(_: M.Type, _ form: ModelForm, sender: S)
            -> RecipientId
        {
            let (live, handling) = (live, handling)
            switch form {
            case .exactWithSender:
                return office.register(queue: queue, sender: sender) { (mail: M, sender: S) in
                    live.received(handling, mail: mail.modelDescription, sender: .some(sender.name))
                }
            case .exactMailType:
                return office.register(queue: queue, sender: sender, M.self) {
                    live.received(handling, mail: nil, sender: .none)
                }
            default:
                return office.register(queue: queue, sender: sender) { (mail: M) in
                    live.received(handling, mail: mail.modelDescription, sender: .none)
                }
            }
        }

        /// The three exact-sender forms as methods of `recipient`.
        private func registerMethod<M: ModelMail, S: ModelObject, R: ModelObject>(
            _: M.Type, _ form: ModelForm, sender: S, recipient: R
        ) -> RecipientId {
            let (live, handling) = (live, handling)
            switch form {
            case .exactWithSender:
                return office.register(queue: queue, sender: sender, recipient) { (recipient: R) in
                    { (mail: M, sender: S) in
                        live.received(
                            handling, recipient: recipient.name, mail: mail.modelDescription,
                            sender: .some(sender.name))
                    }
                }
            case .exactMailType:
                return office.register(queue: queue, sender: sender, M.self, recipient) { (recipient: R) in
                    { live.received(handling, recipient: recipient.name, mail: nil, sender: .none) }
                }
            default:
                return office.register(queue: queue, sender: sender, recipient) { (recipient: R) in
                    { (mail: M) in
                        live.received(
                            handling, recipient: recipient.name, mail: mail.modelDescription, sender: .none)
                    }
                }
            }
        }
    }
}
