// The vocabulary shared by the reference model, the generator and the driver of the real office: the objects,
// mail, registrations, posts and operations of a randomized sequence, all printable and all symbolic (a
// registration is named by a label, an object by its slot), so that a shrunk sequence still reads correctly.

import Mailroom

// MARK: - Limits

enum ModelLimits {
    /// Actions attached to registrations run only in posts nested less than this deep (the top-level post is
    /// depth 1), so every sequence terminates.
    static let actionDepth = 3
}

// MARK: - Objects

/// An object of the pool: a recipient of method registrations, a sender, or both.
protocol ModelObject: AnyObject, Sendable {
    var name: String { get }
}

extension Device: ModelObject {}
extension Stranger: ModelObject {}

/// The recipient class of the pool (any object of the pool can be a recipient); posted as a sender, it is of a
/// class that only handlers without a sender class accept.
final class ModelRecipient: ModelObject {
    let name: String

    init(_ name: String) {
        self.name = name
    }
}

/// The class of a pool object, and the sender classes that `(M, S)` and `(M, S?)` handlers ask for.
enum ModelObjectClass: Int, CaseIterable, Sendable, CustomStringConvertible {
    case recipient
    case device
    case phone
    case stranger

    /// The Swift class's name.
    var description: String {
        switch self {
        case .recipient: "ModelRecipient"
        case .device: "Device"
        case .phone: "Phone"
        case .stranger: "Stranger"
        }
    }

    /// Whether an instance of this class is an instance of `other`: `Phone` is the only subclass.
    func isKind(of other: ModelObjectClass) -> Bool {
        self == other || (self == .phone && other == .device)
    }
}

/// The six slots of the object pool. Killing the object in a slot drops its last reference and puts a new
/// object of the same class, with the next generation number, in the slot.
enum ModelSlots {
    static let count = 6
    /// Slots whose objects are mostly used as method recipients.
    static let recipients = [0, 1, 2]
    /// Slots whose objects are mostly used as senders.
    static let senders = [3, 4, 5]

    static func objectClass(_ slot: Int) -> ModelObjectClass {
        [.recipient, .recipient, .recipient, .device, .phone, .stranger][slot]
    }

    /// The name of the slot, as operations print it.
    static func name(_ slot: Int) -> String {
        ["r0", "r1", "r2", "dev3", "phone4", "stranger5"][slot]
    }

    /// The name of one object of the slot: the slot's name, then `#generation` from the second object on.
    static func name(_ slot: Int, generation: Int) -> String {
        generation == 1 ? name(slot) : "\(name(slot))#\(generation)"
    }

    /// A new object for the slot.
    static func makeObject(_ slot: Int, generation: Int) -> any ModelObject {
        let name = name(slot, generation: generation)
        switch objectClass(slot) {
        case .recipient: return ModelRecipient(name)
        case .device: return Device(name)
        case .phone: return Phone(name)
        case .stranger: return Stranger(name)
        }
    }
}

// MARK: - Mail

/// Mail whose value the log can describe.
protocol ModelMail: Mail {
    var modelDescription: String { get }
}

extension Ping: ModelMail {
    var modelDescription: String { "Ping(\(n))" }
}

extension Pong: ModelMail {
    var modelDescription: String { "Pong(\(n))" }
}

extension Letter: ModelMail {
    /// Names the dynamic class, so a `Crate` received as a `Letter` reads `Crate(…)`.
    var modelDescription: String { "\(String(describing: type(of: self)))(\(tag))" }
}

enum ModelMailType: Int, CaseIterable, Sendable, CustomStringConvertible {
    case ping
    case pong
    case letter
    case parcel
    case crate

    var description: String {
        switch self {
        case .ping: "Ping"
        case .pong: "Pong"
        case .letter: "Letter"
        case .parcel: "Parcel"
        case .crate: "Crate"
        }
    }

    /// The direct superclass that is mail too: `Crate` → `Parcel` → `Letter`.
    var superclass: ModelMailType? {
        switch self {
        case .crate: .parcel
        case .parcel: .letter
        default: nil
        }
    }

    /// Whether this type is `other` or a subclass of it.
    func isKind(of other: ModelMailType) -> Bool {
        var type: ModelMailType? = self
        while let current = type {
            if current == other { return true }
            type = current.superclass
        }
        return false
    }

    /// This type and its superclasses, from this type up.
    var lineage: [ModelMailType] {
        var lineage = [self]
        while let superclass = lineage.last?.superclass {
            lineage.append(superclass)
        }
        return lineage
    }

    var isClass: Bool { self == .letter || self == .parcel || self == .crate }
}

// MARK: - Registrations

/// The handler form of a registration, one per `register` overload (each exists as a closure and as a method).
/// Not `RegisterForm`: the model's forms carry a sender class and an exact-sender slot, and their handlers run model actions.
enum ModelForm: Hashable, Sendable {
    /// `(M)`: every `M`, whatever the sender.
    case mail
    /// `register(M.self) { }`: every `M`, whatever the sender, without the mail.
    case mailType
    /// `(M, S)`: a sender of class `S` or a subclass.
    case kind(ModelObjectClass)
    /// `(M, S?)`: no sender, or a sender of class `S` or a subclass.
    case optionalKind(ModelObjectClass)
    /// `register(sender: s) { (M) in }`: exactly the object in the slot when registering.
    case exact(slot: Int)
    /// `register(sender: s) { (M, S) in }`.
    case exactWithSender(slot: Int)
    /// `register(sender: s, M.self) { }`.
    case exactMailType(slot: Int)

    /// The slot of the exact sender, for the `exact` forms.
    var exactSlot: Int? {
        switch self {
        case .exact(let slot), .exactWithSender(let slot), .exactMailType(let slot): slot
        default: nil
        }
    }

    /// Whether the handler receives the mail.
    var receivesMail: Bool {
        switch self {
        case .mailType, .exactMailType: false
        default: true
        }
    }

    /// Whether the handler receives the sender.
    var receivesSender: Bool {
        switch self {
        case .kind, .optionalKind, .exactWithSender: true
        default: false
        }
    }

    /// A name for the overload, without the mail type, for coverage counts.
    var overload: String {
        switch self {
        case .mail: "(M)"
        case .mailType: "(M.self)"
        case .kind: "(M, S)"
        case .optionalKind: "(M, S?)"
        case .exact: "sender: s, (M)"
        case .exactWithSender: "sender: s, (M, S)"
        case .exactMailType: "sender: s, M.self"
        }
    }

    func describe(_ mail: ModelMailType) -> String {
        switch self {
        case .mail: "(\(mail))"
        case .mailType: "(\(mail).self, no arguments)"
        case .kind(let sender): "(\(mail), \(sender))"
        case .optionalKind(let sender): "(\(mail), \(sender)?)"
        case .exact(let slot): "(\(mail)) from exactly \(ModelSlots.name(slot))"
        case .exactWithSender(let slot): "(\(mail), sender) from exactly \(ModelSlots.name(slot))"
        case .exactMailType(let slot): "(\(mail).self, no arguments) from exactly \(ModelSlots.name(slot))"
        }
    }
}

struct ModelRegistrationSpec: Hashable, Sendable, CustomStringConvertible {
    var mail: ModelMailType
    var form: ModelForm
    /// The slot whose object's method is registered (held weakly); `nil` registers a closure.
    var recipient: Int?
    /// Registered with `queue:` the sequence's serial queue, which is kept blocked between drain operations.
    var queued = false
    /// What the handler does after logging its delivery, in posts less than `ModelLimits.actionDepth` deep.
    /// Queued handlers have none: they run on the queue's thread.
    var action: ModelAction?

    var description: String {
        let recipient = recipient.map { "method of \(ModelSlots.name($0))" } ?? "closure"
        let queue = queued ? "queued " : ""
        let action = action.map { " { \($0) }" } ?? ""
        return "\(queue)\(recipient) \(form.describe(mail))\(action)"
    }
}

// MARK: - Posts

struct ModelPostSpec: Hashable, Sendable, CustomStringConvertible {
    var mail: ModelMailType
    var number: Int
    /// The static type of the variable posted: `mail` or one of its superclasses.
    var staticType: ModelMailType
    /// The slot of the sender; `nil` posts without one.
    var sender: Int?
    /// Post a `Phone` through a variable of type `Device`.
    var senderAsDevice = false
    /// Post without a sender through `post(_:sender:)` with a `nil` `Device?`.
    var explicitNilSender = false

    /// The posted value as the log prints it (its dynamic type).
    var mailDescription: String { "\(mail)(\(number))" }

    var description: String {
        var text = "post \(mailDescription)"
        if staticType != mail {
            text += " as \(staticType)"
        }
        if let sender {
            text += " from \(ModelSlots.name(sender))"
            if senderAsDevice {
                text += " as Device"
            }
        } else if explicitNilSender {
            text += " with sender nil"
        }
        return text
    }
}

// MARK: - Actions and operations

/// What a handler does inside a post, after logging its delivery.
enum ModelAction: Hashable, Sendable, CustomStringConvertible {
    /// A nested post, delivered in full before the outer post continues.
    case post(ModelPostSpec)
    /// `times` new registrations (without actions of their own), labelled `<owner>.<n>` for the owner's n-th
    /// one. Many at once outgrow the routes of the post in progress.
    indirect case register(ModelRegistrationSpec, times: Int)
    /// Unregisters the registration with this label: possibly the handler's own, one already removed, or one
    /// never made (then nothing is unregistered).
    case unregister(label: String)
    /// Unregisters, in order, every registration the action of `owner` has made so far. Many at once make the
    /// office compact the routes of the post in progress.
    case unregisterAllMadeBy(owner: String)
    /// `unregister(object)` with the object in the slot.
    case unregisterObject(slot: Int)
    /// Reads `registrationCount` and logs it.
    case readCount

    var description: String {
        switch self {
        case .post(let spec): "\(spec)"
        case .register(let spec, let times): "register \(times == 1 ? "" : "\(times) × ")\(spec)"
        case .unregister(let label): "unregister \(label)"
        case .unregisterAllMadeBy(let owner): "unregister every registration \(owner) made"
        case .unregisterObject(let slot): "unregister(\(ModelSlots.name(slot)))"
        case .readCount: "read registrationCount"
        }
    }
}

enum ModelOperation: Hashable, Sendable, CustomStringConvertible {
    /// Registers and names the registration `label` (`R<n>` for the n-th register operation generated).
    case register(label: String, ModelRegistrationSpec)
    case post(ModelPostSpec)
    case unregister(label: String)
    /// `unregister(object)` with the object in the slot.
    case unregisterObject(slot: Int)
    /// Unregisters an id that another office gave out.
    case unregisterForeignId
    /// Drops the slot's reference to its object (its last one, unless a queued delivery holds it as sender)
    /// and puts a new object there.
    case kill(slot: Int)
    /// Lets the blocked queue run the deliveries waiting on it, waits for them, and blocks it again.
    case drainQueue

    var description: String {
        switch self {
        case .register(let label, let spec): "\(label) = register \(spec)"
        case .post(let spec): "\(spec)"
        case .unregister(let label): "unregister \(label)"
        case .unregisterObject(let slot): "unregister(\(ModelSlots.name(slot)))"
        case .unregisterForeignId: "unregister an id of another office"
        case .kill(let slot): "kill \(ModelSlots.name(slot)) (a new object takes its slot)"
        case .drainQueue: "drain the queue"
        }
    }

    /// Simpler variants of the operation, tried when shrinking a failing sequence.
    var simplifications: [ModelOperation] {
        switch self {
        case .register(let label, let spec):
            var variants: [ModelRegistrationSpec] = []
            if spec.action != nil {
                var plain = spec
                plain.action = nil
                variants.append(plain)
            }
            if spec.recipient != nil {
                var closure = spec
                closure.recipient = nil
                variants.append(closure)
            }
            if case .register(let nested, let times) = spec.action, times > 1 {
                var fewer = spec
                fewer.action = .register(nested, times: times / 2)
                variants.append(fewer)
            }
            if spec.queued {
                var unqueued = spec
                unqueued.queued = false
                variants.append(unqueued)
            }
            if spec.form != .mail {
                var anySender = spec
                anySender.form = .mail
                variants.append(anySender)
            }
            return variants.map { .register(label: label, $0) }
        case .post(let spec):
            var variants: [ModelOperation] = []
            if spec.staticType != spec.mail || spec.senderAsDevice || spec.explicitNilSender {
                var plain = spec
                plain.staticType = spec.mail
                plain.senderAsDevice = false
                plain.explicitNilSender = false
                variants.append(.post(plain))
            }
            if spec.sender != nil {
                var noSender = spec
                noSender.sender = nil
                noSender.senderAsDevice = false
                variants.append(.post(noSender))
            }
            return variants
        default:
            return []
        }
    }
}

/// What a queued handler logs for the mail or sender it does not receive: it runs on another thread and cannot
/// see the post in progress.
let modelNotReceived = "(not received)"

/// The label of the n-th registration (from 1) made by the action of the registration `owner`.
func modelNestedLabel(_ owner: String, _ n: Int) -> String {
    "\(owner).\(n)"
}

// MARK: - The log

/// One line of a delivery log: what the real office did, or what the model says it should do.
enum ModelEvent: Hashable, Sendable, CustomStringConvertible {
    /// The registration `label` was called with `mail` from `sender` (`nil`: no sender). `recipient` names the
    /// object a method registration was called on.
    case delivered(label: String, recipient: String?, mail: String, sender: String?)
    /// The handler of `label` read `registrationCount`.
    case counted(by: String, count: Int)

    var description: String {
        switch self {
        case .delivered(let label, let recipient, let mail, let sender):
            let on = recipient.map { " (on \($0))" } ?? ""
            let what = mail == modelNotReceived ? "mail it is not passed" : mail
            let from =
                switch sender {
                case modelNotReceived: "(sender not passed)"
                case let sender?: "from \(sender)"
                case nil: "with no sender"
                }
            return "\(label)\(on) got \(what) \(from)"
        case .counted(let label, let count):
            return "\(label) read registrationCount = \(count)"
        }
    }
}
