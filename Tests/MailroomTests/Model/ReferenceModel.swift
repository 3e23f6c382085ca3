// A single-threaded reference model of the delivery rules (the DeliveryRules article): a list of registrations,
// scanned by priority then registration order, where a handler may throw (the office then posts a
// DeliveryFailure at once, or hands the failure to its fallback) or, as an interceptor, consume the mail (the
// post ends there). It computes, for each operation of a sequence, the delivery log, the failures the fallback
// gets and the registrationCount that the real office must produce.

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
    /// Calls the recipients of a post in registration order, whatever their priorities.
    case ignoresPriority
    /// Lets mail an interceptor consumed go on to the recipients after it.
    case consumedMailGoesOn
    /// Ends a post at a handler that throws, as if it had consumed the mail.
    case failureEndsThePost
    /// Posts the `DeliveryFailure` of a synchronous handler after its post ends, not before the next recipient.
    case reportsFailuresAfterThePost
    /// Drops the failures that no recipient of `DeliveryFailure` received, instead of handing them to the
    /// fallback.
    case dropsUnheardFailures

    var description: String { rawValue }
}

struct ReferenceModel {
    private struct Registration {
        let label: String
        let spec: ModelRegistrationSpec
        /// The object whose method is registered, or for an interceptor the object its closure is tied to;
        /// `nil` for a closure.
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

    /// A post in progress: the posted mail, or a `DeliveryFailure` the office posts.
    private struct Posting {
        let mail: ModelMailType
        /// The mail as the log prints it (its dynamic type).
        let description: String
        /// The number of the posted mail; for a `DeliveryFailure`, of the mail whose handler threw.
        let number: Int
        /// The sender, an index in `objects`; `nil`: no sender.
        let sender: Int?
    }

    /// A delivery to a queued registration, waiting for the queue to be drained.
    private struct QueuedDelivery {
        let registration: Int
        let posting: Posting
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
        for delivery in queued where delivery.posting.sender == object {
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

    /// Removes the object's registrations: its methods' and the interceptors tied to it.
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
        if registration.spec.form.isCatchAll { return true }
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
        case .catchAll, .catchAllWithSender:
            return true
        }
    }

    private mutating func post(_ spec: ModelPostSpec) {
        post(
            Posting(
                mail: spec.mail, description: spec.mailDescription, number: spec.number,
                sender: spec.sender.map { slots[$0] }))
    }

    /// Delivers a post and returns whether a registration other than a catch-all received it: was called
    /// (whether it threw or consumed the mail) or had a delivery enqueued.
    @discardableResult
    private mutating func post(_ posting: Posting) -> Bool {
        depth += 1
        defer { depth -= 1 }
        // The recipients are the registrations that exist when the post starts, by priority (highest first),
        // then in registration order.
        let existing = registrations.count
        var order = Array(0..<existing)
        if flaw != .ignoresPriority {
            order.sort { first, second in
                let priorities = (registrations[first].spec.priority, registrations[second].spec.priority)
                return priorities.0 != priorities.1 ? priorities.0 > priorities.1 : first < second
            }
        }
        if flaw == .reverseOrder {
            order.reverse()
        }
        var received = false
        // With the flaw `reportsFailuresAfterThePost`: the failures reported when the post ends.
        var lateFailures: [String] = []
        var position = 0
        while true {
            let index: Int
            if position < order.count {
                index = order[position]
            } else if flaw == .callsRegistrationsMadeDuringThePost,
                existing + position - order.count < registrations.count
            {
                // The flaw: then the registrations made during the post, as they are made.
                index = existing + position - order.count
            } else {
                break
            }
            position += 1
            guard let outcome = deliver(posting, to: index) else { continue }
            // A catch-all is a wiretap: it does not count as a recipient.
            received = received || !registrations[index].spec.form.isCatchAll
            if outcome == .threw {
                if flaw == .reportsFailuresAfterThePost {
                    lateFailures.append(registrations[index].label)
                } else {
                    report(registrations[index].label, on: posting)
                }
                if flaw == .failureEndsThePost { break }
            }
            if outcome == .consumed, flaw != .consumedMailGoesOn { break }
        }
        for label in lateFailures {
            report(label, on: posting)
        }
        return received
    }

    /// Delivers to one registration; returns what its handler did, or `nil` if the registration did not take
    /// the mail. A queued registration takes it (`.handled`) and runs later.
    private mutating func deliver(_ posting: Posting, to index: Int) -> ModelOutcome? {
        let registration = registrations[index]
        // Removed by an earlier handler of this post, or never accepting this post: not called.
        guard
            !registration.removed, isAlive(registration),
            accepts(registration, mail: posting.mail, sender: posting.sender)
        else { return nil }
        if registration.spec.queued {
            queued.append(QueuedDelivery(registration: index, posting: posting))
            return .handled
        }
        let outcome = run(registration, on: posting, queued: false)
        if let action = registration.spec.actionDuringPosts, depth < ModelLimits.actionDepth {
            perform(action, by: registration.label)
        }
        return outcome
    }

    /// Logs the call of `registration`'s handler and returns what the handler does with the mail, as its spec
    /// says. A handler receives only what its form passes it: one that is not passed the mail, or the sender,
    /// logs the post's when it runs during the post, or `modelNotReceived` when it runs on the queue or for a
    /// `DeliveryFailure` (then a handler passed the report logs its sender).
    private mutating func run(_ registration: Registration, on posting: Posting, queued: Bool) -> ModelOutcome {
        let spec = registration.spec
        let form = spec.form
        let reads = !queued && posting.mail != .failure
        let senderName = posting.sender.map { objects[$0].name }
        let passedSender = form.receivesSender || (form.receivesMail && posting.mail == .failure)
        let number = form.receivesMail ? posting.number : nil
        let outcome = spec.outcome(on: number)
        events.append(
            .delivered(
                label: registration.label, recipient: registration.recipient.map { objects[$0].name },
                mail: form.receivesMail || reads ? posting.description : modelNotReceived,
                sender: passedSender || reads ? senderName : modelNotReceived, outcome: outcome))
        return outcome
    }

    /// The office reports the failure of `label` on `posting`: it posts a `DeliveryFailure` from the mail's
    /// sender, and hands the failure to the fallback if no registration received that post. The failure of a
    /// handler of a `DeliveryFailure` goes to the fallback straight away.
    private mutating func report(_ label: String, on posting: Posting) {
        if posting.mail != .failure {
            let report = Posting(
                mail: .failure, description: modelFailureReport(modelFailureLine(label, on: posting.description)),
                number: posting.number, sender: posting.sender)
            if post(report) { return }
        }
        if flaw != .dropsUnheardFailures {
            events.append(
                .unheard(
                    failure: modelFailureLine(label, on: posting.description),
                    sender: posting.sender.map { objects[$0].name }))
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

    /// Runs the queued deliveries in order, those whose registration is still registered and alive, and
    /// those that their failures enqueue.
    private mutating func drainQueue() {
        while let delivery = queued.first {
            let registration = registrations[delivery.registration]
            if (!registration.removed || flaw == .runsUnregisteredQueuedDeliveries) && isAlive(registration),
                run(registration, on: delivery.posting, queued: true) == .threw
            {
                // Reported on the queue's thread while the delivery, which holds the sender, runs.
                report(registration.label, on: delivery.posting)
            }
            // Done: it no longer holds its sender.
            queued.removeFirst()
        }
    }
}
