// A single-threaded reference model of the delivery rules (the DeliveryRules article): a list of registrations
// It computes, for each operation of a sequence, the delivery log and registrationCount the real office must
// produce.

/// A deliberate mistake in the model, to show that the harness detects and shrinks a wrong answer.
enum ModelFlaw: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Calls the recipients of a post in reverse registration order.
    case reverseOrder
    /// Treats a registration for one exact sender as one for any sender.
    case ignoresExactSender
    /// Lets a superclass instance reach subclass recipients (a `Letter` reaches `Parcel` registrations).
    case superclassMailReachesSubclasses
    /// Calls registrations made during a post in that post.
    case callsRegistrationsMadeDuringThePost
    /// Keeps counting and calling the registrations of a dead recipient.
    case keepsDeadRecipients
    /// Makes `unregister(object)` also remove the registrations that listen to the object as exact sender.
    case unregisterObjectRemovesExactSenders
    /// Runs queued deliveries whose registration was unregistered before they started.
    case runsUnregisteredQueuedDeliveries

    var description: String { rawValue }
}

struct ReferenceModel {
    private struct Registration {
        let label: String
        let spec: ModelRegistrationSpec
        /// The object whose method is registered; `nil` for a closure.
        let recipient: Int?
        /// The exact sender; `nil` unless the form is one of the `exact` ones.
        let exactSender: Int?
        var removed = false
    }

    private struct Object {
        let name: String
        let objectClass: ModelObjectClass
        /// Whether a slot still holds the object.
        var inSlot = true
    }

    /// A delivery to a queued registration, waiting for the queue to be drained.
    private struct QueuedDelivery {
        let registration: Int
        let event: ModelEvent
        /// The post's sender, which the waiting delivery keeps alive.
        let sender: Int?
    }

    private let flaw: ModelFlaw?
    /// Every registration ever made, in registration order; removed ones are flagged, never dropped.
    private var registrations: [Registration] = []
    /// Every object ever made; registrations and slots refer to them by index.
    private var objects: [Object] = []
    /// The index in `objects` of the object each slot holds.
    private var slots: [Int] = []
    private var generations = Array(repeating: 1, count: ModelSlots.count)
    /// How many registrations the action of each label has made.
    private var nestedRegistrations: [String: Int] = [:]
    private var depth = 0
    /// The queued deliveries not run yet, in the order they were made.
    private var queued: [QueuedDelivery] = []

    /// What the operations applied so far delivered; the caller empties it between operations.
    var events: [ModelEvent] = []

    init(flaw: ModelFlaw? = nil) {
        self.flaw = flaw
        for slot in 0..<ModelSlots.count {
            slots.append(objects.count)
            objects.append(Object(name: ModelSlots.name(slot), objectClass: ModelSlots.objectClass(slot)))
        }
    }

    /// How many registrations were made, removed or not.
    var registrationsMade: Int { registrations.count }

    var registrationCount: Int {
        var count = 0
        for registration in registrations where !registration.removed && isAlive(registration) {
            count += 1
        }
        return count
    }

    mutating func apply(_ operation: ModelOperation) {
        switch operation {
        case .register(let label, let spec):
            register(spec, label: label)
        case .post(let spec):
            post(spec)
        case .unregister(let label):
            unregister(label)
        case .unregisterObject(let slot):
            unregisterObject(slots[slot])
        case .unregisterForeignId:
            break
        case .drainQueue:
            drainQueue()
        case .kill(let slot):
            objects[slots[slot]].inSlot = false
            generations[slot] += 1
            slots[slot] = objects.count
            objects.append(
                Object(
                    name: ModelSlots.name(slot, generation: generations[slot]),
                    objectClass: ModelSlots.objectClass(slot)))
        }
    }

    /// Releasing the office drops the queued deliveries that have not started.
    mutating func releaseOffice() {
        queued.removeAll()
    }

    // MARK: - The rules

    /// An object lives while a slot holds it or a queued delivery holds it as its sender.
    private func isAlive(object: Int) -> Bool {
        if objects[object].inSlot { return true }
        for delivery in queued where delivery.sender == object {
            return true
        }
        return false
    }

    private mutating func register(_ spec: ModelRegistrationSpec, label: String) {
        registrations.append(
            Registration(
                label: label, spec: spec, recipient: spec.recipient.map { slots[$0] },
                exactSender: spec.form.exactSlot.map { slots[$0] }))
    }

    private mutating func unregister(_ label: String) {
        for index in registrations.indices where registrations[index].label == label {
            registrations[index].removed = true
        }
    }

    private mutating func unregisterObject(_ object: Int) {
        for index in registrations.indices {
            let registration = registrations[index]
            if registration.recipient == object
                || (flaw == .unregisterObjectRemovesExactSenders && registration.exactSender == object)
            {
                registrations[index].removed = true
            }
        }
    }

    /// A registration is alive while its method recipient and its exact sender, if it has them, are.
    private func isAlive(_ registration: Registration) -> Bool {
        let recipientAlive = registration.recipient.map { isAlive(object: $0) || flaw == .keepsDeadRecipients } ?? true
        let senderAlive = registration.exactSender.map { isAlive(object: $0) } ?? true
        return recipientAlive && senderAlive
    }

    /// Whether a post of `mail` from `sender` (an object index, `nil`: no sender) reaches the registration.
    private func accepts(_ registration: Registration, mail: ModelMailType, sender: Int?) -> Bool {
        let registered = registration.spec.mail
        let mailMatches =
            mail.isKind(of: registered) || (flaw == .superclassMailReachesSubclasses && registered.isKind(of: mail))
        guard mailMatches else { return false }
        let senderClass = sender.map { objects[$0].objectClass }
        switch registration.spec.form {
        case .mail, .mailType:
            return true
        case .kind(let wanted):
            return senderClass?.isKind(of: wanted) ?? false
        case .optionalKind(let wanted):
            return senderClass?.isKind(of: wanted) ?? true
        case .exact, .exactWithSender, .exactMailType:
            return flaw == .ignoresExactSender || (sender != nil && sender == registration.exactSender)
        }
    }

    private mutating func post(_ spec: ModelPostSpec) {
        let sender = spec.sender.map { slots[$0] }
        depth += 1
        defer { depth -= 1 }
        // The recipients are the registrations that exist when the post starts, in registration order.
        let existing = registrations.count
        var order = Array(0..<existing)
        if flaw == .reverseOrder {
            order.reverse()
        }
        for index in order {
            deliver(spec, from: sender, to: index)
        }
        if flaw == .callsRegistrationsMadeDuringThePost {
            var index = existing
            while index < registrations.count {
                deliver(spec, from: sender, to: index)
                index += 1
            }
        }
    }

    private mutating func deliver(_ spec: ModelPostSpec, from sender: Int?, to index: Int) {
        let registration = registrations[index]
        // Removed by an earlier handler of this post, or never accepting this post: not called.
        guard !registration.removed, isAlive(registration), accepts(registration, mail: spec.mail, sender: sender)
        else { return }
        let recipient = registration.recipient.map { objects[$0].name }
        let senderName = sender.map { objects[$0].name }
        let form = registration.spec.form
        if registration.spec.queued {
            // A queued handler receives only what its form passes it, later, and has no action.
            let event = ModelEvent.delivered(
                label: registration.label, recipient: recipient,
                mail: form.receivesMail ? spec.mailDescription : modelNotReceived,
                sender: form.receivesSender ? senderName : modelNotReceived)
            queued.append(QueuedDelivery(registration: index, event: event, sender: sender))
            return
        }
        events.append(
            .delivered(label: registration.label, recipient: recipient, mail: spec.mailDescription, sender: senderName))
        if let action = registration.spec.action, depth < ModelLimits.actionDepth {
            perform(action, by: registration.label)
        }
    }

    private mutating func perform(_ action: ModelAction, by owner: String) {
        switch action {
        case .post(let spec):
            post(spec)
        case .register(let spec, let times):
            for _ in 0..<times {
                let n = nestedRegistrations[owner, default: 0] + 1
                nestedRegistrations[owner] = n
                register(spec, label: modelNestedLabel(owner, n))
            }
        case .unregister(let label):
            unregister(label)
        case .unregisterAllMadeBy(let owner):
            for n in 0..<nestedRegistrations[owner, default: 0] {
                unregister(modelNestedLabel(owner, n + 1))
            }
        case .unregisterObject(let slot):
            unregisterObject(slots[slot])
        case .readCount:
            events.append(.counted(by: owner, count: registrationCount))
        }
    }

    /// Runs the queued deliveries in order: those whose registration is still registered and alive.
    private mutating func drainQueue() {
        let waiting = queued
        for delivery in waiting {
            let registration = registrations[delivery.registration]
            if (!registration.removed || flaw == .runsUnregisteredQueuedDeliveries) && isAlive(registration) {
                events.append(delivery.event)
            }
            // Done: it no longer holds its sender.
            queued.removeFirst()
        }
    }
}
