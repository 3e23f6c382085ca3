// A seeded generator of random operation sequences over a small pool of objects and mail values.

import MailroomTestSupport

/// The shape of the generated sequences: their length and how often each kind of operation, action, mail type
/// and handler form appears.
struct ModelProfile: Sendable, CustomStringConvertible {
    let name: String
    let lengths: ClosedRange<Int>
    /// The weights of register, post, unregister, unregister(object), unregister a foreign id, kill, drain.
    var operations = [34, 36, 12, 5, 2, 8, 6]
    /// The chance, in percent, that a registration has an action.
    var actionChance = 35
    /// The weights of post, register, unregister, unregister(object), read count, unregister all made by.
    var actions = [38, 20, 26, 4, 7, 5]
    /// The chance, in percent, that a register action makes several registrations.
    var manyChance = 30
    /// The chance, in percent, that an action unregisters a registration made later (so later in the post).
    var laterTargetChance = 10
    /// The weights of Ping, Pong, Letter, Parcel, Crate, and DeliveryFailure (registrations only: the office
    /// posts it).
    var mailTypes = [25, 15, 20, 20, 20, 15]
    /// The weights of the forms (M), (M.self), (M, S), (M, S?), exact (M), exact (M, S), exact (M.self),
    /// and the catch-alls (any Mail), (any Mail, sender?).
    var forms = [22, 10, 18, 15, 13, 12, 10, 4, 3]
    /// The chance, in percent, that a post has a sender.
    var senderChance = 65
    /// The weights of the priorities 0, 10, -10 and 100: mostly equal ones, so that ties are common.
    var priorities = [55, 20, 15, 10]
    /// The chance, in percent, that a registration's handler may throw.
    var throwingChance = 15
    /// The chance, in percent, that a registration not on the queue is an interceptor.
    var interceptingChance = 12

    var description: String { name }

    /// Short sequences of everything.
    static let standard = ModelProfile(name: "standard", lengths: 20...60)

    /// Long sequences that register and unregister a lot, so that the office outgrows, compacts and reclaims its
    /// internal tables in the middle of a sequence.
    static let churn = ModelProfile(
        name: "churn", lengths: 150...250, operations: [44, 24, 24, 2, 1, 5, 3], actionChance: 8)

    /// Short sequences of mostly one mail type and few senders, where most handlers register many, or
    /// unregister registrations of the post they run in: the office outgrows and compacts the routes that the
    /// posts in progress walk.
    static let reentrant = ModelProfile(
        name: "re-entrant", lengths: 10...30, operations: [50, 35, 5, 2, 0, 3, 5], actionChance: 70,
        actions: [15, 30, 40, 3, 4, 8], manyChance: 50, laterTargetChance: 40, mailTypes: [70, 10, 10, 5, 5, 5],
        forms: [50, 10, 10, 15, 5, 5, 5, 2, 2], senderChance: 30)
}

/// Generates a sequence of operations from a seed.
struct OperationGenerator {
    private let profile: ModelProfile
    private var random: SplitMix64
    /// The labels of the register operations generated so far.
    private var labels: [String] = []
    /// The labels whose action registers, so nested labels (`R3.1`) can be unregistered too.
    private var registeringLabels: [String] = []
    /// Whether this sequence makes queued registrations and drains the queue.
    private let usesQueue: Bool

    private init(seed: UInt64, profile: ModelProfile) {
        self.profile = profile
        random = SplitMix64(seed: seed)
        usesQueue = random.chance(30)
    }

    /// The sequence of `seed`.
    static func sequence(seed: UInt64, profile: ModelProfile = .standard) -> [ModelOperation] {
        var generator = OperationGenerator(seed: seed, profile: profile)
        let length = profile.lengths.lowerBound + generator.random.below(profile.lengths.count)
        return (0..<length).map { _ in generator.operation() }
    }

    private mutating func operation() -> ModelOperation {
        var weights = profile.operations
        if !usesQueue {
            weights[6] = 0
        }
        switch random.index(weights: weights) {
        case 0:
            let label = "R\(labels.count + 1)"
            labels.append(label)
            var spec = registration()
            if spec.mayAct, random.chance(profile.actionChance) {
                spec.action = action(owner: label)
                if case .register = spec.action {
                    registeringLabels.append(label)
                }
            }
            return .register(label: label, spec)
        case 1:
            return .post(post())
        case 2:
            return .unregister(label: unregisterTarget(owner: nil))
        case 3:
            return .unregisterObject(slot: anySlot())
        case 4:
            return .unregisterForeignId
        case 5:
            return .kill(slot: anySlot())
        default:
            return .drainQueue
        }
    }

    // MARK: - Parts

    private mutating func anySlot() -> Int {
        random.below(ModelSlots.count)
    }

    /// Mostly a sender slot, sometimes a recipient slot (an object can be both).
    private mutating func senderSlot() -> Int {
        random.chance(85) ? random.pick(ModelSlots.senders) : random.pick(ModelSlots.recipients)
    }

    private mutating func senderClass() -> ModelObjectClass {
        [ModelObjectClass.device, .phone, .stranger][random.index(weights: [45, 40, 15])]
    }

    /// A mail type to register for, or to post (then never `DeliveryFailure`).
    private mutating func mailType(posted: Bool = false) -> ModelMailType {
        var weights = profile.mailTypes
        if posted {
            weights[ModelMailType.failure.rawValue] = 0
        }
        return ModelMailType.allCases[random.index(weights: weights)]
    }

    /// When a handler throws or consumes: a number only for a handler passed the mail.
    private mutating func trigger(_ form: ModelForm, weights: [Int]) -> ModelTrigger {
        switch random.index(weights: form.receivesMail ? weights : [weights[0], weights[1], 0]) {
        case 0: .never
        case 1: .always
        default: .number(1 + random.below(3))
        }
    }

    private mutating func registration() -> ModelRegistrationSpec {
        let form: ModelForm =
            switch random.index(weights: profile.forms) {
            case 0: .mail
            case 1: .mailType
            case 2: .kind(senderClass())
            case 3: .optionalKind(senderClass())
            case 4: .exact(slot: senderSlot())
            case 5: .exactWithSender(slot: senderSlot())
            case 6: .exactMailType(slot: senderSlot())
            case 7: .catchAll
            default: .catchAllWithSender
            }
        var recipient: Int?
        // Catch-alls are closures only.
        if !form.isCatchAll, random.chance(50) {
            recipient = random.chance(85) ? random.pick(ModelSlots.recipients) : random.pick(ModelSlots.senders)
        }
        var spec = ModelRegistrationSpec(
            mail: mailType(), form: form, recipient: recipient, queued: usesQueue && random.chance(35))
        spec.priority = [0, 10, -10, 100][random.index(weights: profile.priorities)]
        if random.chance(profile.throwingChance) {
            spec.throwsOn = trigger(form, weights: [10, 35, 55])
        }
        if !spec.queued, !form.isCatchAll, random.chance(profile.interceptingChance) {
            spec.consumesOn = trigger(form, weights: [20, 30, 50])
        }
        return spec
    }

    private mutating func post() -> ModelPostSpec {
        let mail = mailType(posted: true)
        var spec = ModelPostSpec(mail: mail, number: 1 + random.below(3), staticType: mail)
        if mail.isClass, random.chance(40) {
            spec.staticType = random.pick(mail.lineage)
        }
        if random.chance(profile.senderChance) {
            let slot = senderSlot()
            spec.sender = slot
            spec.senderAsDevice = ModelSlots.objectClass(slot) == .phone && random.chance(40)
        } else {
            spec.explicitNilSender = random.chance(30)
        }
        return spec
    }

    private mutating func action(owner: String) -> ModelAction {
        var weights = profile.actions
        if registeringLabels.isEmpty {
            weights[5] = 0
        }
        return switch random.index(weights: weights) {
        case 0: .post(post())
        case 1: .register(registration(), times: random.chance(profile.manyChance) ? 2 + random.below(11) : 1)
        case 2: .unregister(label: unregisterTarget(owner: owner))
        case 3: .unregisterObject(slot: anySlot())
        case 4: .readCount
        default: .unregisterAllMadeBy(owner: random.pick(registeringLabels))
        }
    }

    /// A label to unregister: a handler's own, an earlier register operation's, a nested registration's, or
    /// one not made yet (for a handler, one made later, so it comes later in the posts the handler runs in).
    private mutating func unregisterTarget(owner: String?) -> String {
        if owner != nil, random.chance(profile.laterTargetChance) {
            return "R\(labels.count + 1 + random.below(4))"
        }
        if let owner, random.chance(35) {
            return owner
        }
        if !registeringLabels.isEmpty, random.chance(20) {
            return modelNestedLabel(random.pick(registeringLabels), 1 + random.below(2))
        }
        if !labels.isEmpty, random.chance(90) {
            return random.pick(labels)
        }
        return "R\(labels.count + 1 + random.below(3))"
    }
}
