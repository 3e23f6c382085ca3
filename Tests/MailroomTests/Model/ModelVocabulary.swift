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

/// Mail that the sequences post, whose value the log can describe, and which carries the number of its post.
protocol ModelMail: Mail {
    var modelDescription: String { get }
    var modelNumber: Int { get }
}

extension Ping: ModelMail {
    var modelDescription: String { "Ping(\(n))" }
    var modelNumber: Int { n }
}

extension Pong: ModelMail {
    var modelDescription: String { "Pong(\(n))" }
    var modelNumber: Int { n }
}

extension Letter: ModelMail {
    /// Names the dynamic class, so a `Crate` received as a `Letter` reads `Crate(…)`.
    var modelDescription: String { "\(String(describing: type(of: self)))(\(tag))" }
    var modelNumber: Int { Int(tag) ?? -1 }
}

enum ModelMailType: Int, CaseIterable, Sendable, CustomStringConvertible {
    case ping
    case pong
    case letter
    case parcel
    case crate
    /// `DeliveryFailure`: registrations receive it, only the office posts it.
    case failure

    var description: String {
        switch self {
        case .ping: "Ping"
        case .pong: "Pong"
        case .letter: "Letter"
        case .parcel: "Parcel"
        case .crate: "Crate"
        case .failure: "DeliveryFailure"
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
    /// `register(of: M.self) { _ in }`: every `M`, whatever the sender, the handler ignoring the mail.
    case mailType
    /// `(M, S)`: a sender of class `S` or a subclass.
    case kind(ModelObjectClass)
    /// `(M, S?)`: no sender, or a sender of class `S` or a subclass.
    case optionalKind(ModelObjectClass)
    /// `register(sender: s) { (M) in }`: exactly the object in the slot when registering.
    case exact(slot: Int)
    /// `register(sender: s) { (M, S) in }`.
    case exactWithSender(slot: Int)
    /// `register(of: M.self, sender: s) { _ in }`.
    case exactMailType(slot: Int)
    /// `register(conformingTo: (any Mail).self) { (any Mail) in }`: a catch-all (a wiretap) for every mail, whatever the registration's mail
    /// type, `DeliveryFailure` included; closures only. It does not count as a recipient: a `DeliveryFailure`
    /// only catch-alls received goes to the fallback too.
    case catchAll
    /// `register(conformingTo: (any Mail).self) { (any Mail, (any AnyObject & Sendable)?) in }`.
    case catchAllWithSender

    /// The slot of the exact sender, for the `exact` forms.
    var exactSlot: Int? {
        switch self {
        case .exact(let slot), .exactWithSender(let slot), .exactMailType(let slot): slot
        default: nil
        }
    }

    var isCatchAll: Bool { self == .catchAll || self == .catchAllWithSender }

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
        case .kind, .optionalKind, .exactWithSender, .catchAllWithSender: true
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
        case .catchAll: "(any Mail)"
        case .catchAllWithSender: "(any Mail, sender?)"
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
        case .catchAll: "(any Mail)"
        case .catchAllWithSender: "(any Mail, any sender?)"
        }
    }
}

/// Which mail a handler throws on, or consumes: every one, none, or the mail of one post number. A handler
/// that is not passed the mail (`M.self` forms) knows no number: only `always` applies to it.
enum ModelTrigger: Hashable, Sendable, CustomStringConvertible {
    case never
    case always
    /// Mail whose number is this; for a `DeliveryFailure`, the number of the mail whose handler threw.
    case number(Int)

    /// Whether the trigger fires on mail numbered `number` (`nil`: the handler does not know it).
    func fires(on number: Int?) -> Bool {
        switch self {
        case .never: false
        case .always: true
        case .number(let wanted): number == wanted
        }
    }

    var description: String {
        switch self {
        case .never: "no mail"
        case .always: "every mail"
        case .number(let n): "mail number \(n)"
        }
    }
}

struct ModelRegistrationSpec: Hashable, Sendable, CustomStringConvertible {
    var mail: ModelMailType
    var form: ModelForm
    /// The slot whose object's method is registered (held weakly), or for an interceptor the object its closure
    /// is tied to (there are no intercepting methods); `nil` registers a closure.
    var recipient: Int?
    /// Registered with `queue:` the sequence's serial queue, which is kept blocked between drain operations.
    var queued = false
    /// The registration's `Priority`: a post calls its recipients by priority, highest first, then in
    /// registration order.
    var priority: Int16 = 0
    /// The mail the handler throws on, after its action: a handler registered as one that may throw
    /// (`throws(ModelFailure)`); `nil` registers one that cannot (`E == Never`).
    var throwsOn: ModelTrigger?
    /// The mail the handler consumes, when it does not throw: a registration made with `intercept`; `nil`
    /// registers with `register`. Interceptors are never queued.
    var consumesOn: ModelTrigger?
    /// What the handler does after logging its delivery, in posts less than `ModelLimits.actionDepth` deep.
    /// Queued handlers, recipients of `DeliveryFailure` and catch-alls have none: they may run on the queue's
    /// thread.
    var action: ModelAction?

    /// Whether the handler may have an action: it is called only during posts, on the test's thread. Queued
    /// handlers, and those that may receive a `DeliveryFailure` (reported on the queue's thread when a queued
    /// handler threw), may not.
    var mayAct: Bool { !queued && mail != .failure && !form.isCatchAll }

    /// The action, if the handler may have one.
    var actionDuringPosts: ModelAction? { mayAct ? action : nil }

    /// What the handler does with mail numbered `number` (`nil` for a form without contents): throws, consumes it,
    /// or handles it.
    func outcome(on number: Int?) -> ModelOutcome {
        if throwsOn?.fires(on: number) ?? false {
            .threw
        } else if consumesOn?.fires(on: number) ?? false {
            .consumed
        } else {
            .handled
        }
    }

    var description: String {
        let recipient =
            recipient.map {
                consumesOn == nil ? "method of \(ModelSlots.name($0))" : "closure tied to \(ModelSlots.name($0))"
            }
            ?? "closure"
        let kind = queued ? "queued " : consumesOn == nil ? "" : "interceptor: "
        let priority = priority == 0 ? "" : " at priority \(priority)"
        let consumes = consumesOn.map { " consuming \($0)" } ?? ""
        let throwing = throwsOn.map { " throwing on \($0)" } ?? ""
        let action = action.map { " { \($0) }" } ?? ""
        return "\(kind)\(recipient) \(form.describe(mail))\(priority)\(consumes)\(throwing)\(action)"
    }
}

/// The error of a throwing handler of the sequences: names the registration that threw.
struct ModelFailure: Error, CustomStringConvertible {
    let label: String

    var description: String { "ModelFailure(\(label))" }
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
            if spec.consumesOn != nil {
                var plain = spec
                plain.consumesOn = nil
                variants.append(plain)
            }
            if spec.throwsOn != nil {
                var plain = spec
                plain.throwsOn = nil
                variants.append(plain)
            }
            if spec.priority != 0 {
                var normal = spec
                normal.priority = 0
                variants.append(normal)
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

/// How the failure of `label` on mail described as `mail` reads: `R3 threw on Ping(2)`.
func modelFailureLine(_ label: String, on mail: String) -> String {
    "\(label) threw on \(mail)"
}

/// How a `DeliveryFailure` of the failure `line` reads in the log: `DeliveryFailure(R3 threw on Ping(2))`.
func modelFailureReport(_ line: String) -> String {
    "DeliveryFailure(\(line))"
}

/// What a handler did with the mail it logged.
enum ModelOutcome: Hashable, Sendable {
    /// It returned (an interceptor: passed the mail on).
    case handled
    /// It threw `ModelFailure`.
    case threw
    /// An interceptor: it returned `.consumed`.
    case consumed
}

/// One line of a delivery log: what the real office did, or what the model says it should do.
enum ModelEvent: Hashable, Sendable, CustomStringConvertible {
    /// The registration `label` was called with `mail` from `sender` (`nil`: no sender) and then did `outcome`.
    /// `recipient` names the object a method registration was called on.
    case delivered(label: String, recipient: String?, mail: String, sender: String?, outcome: ModelOutcome)
    /// The handler of `label` read `registrationCount`.
    case counted(by: String, count: Int)
    /// The office's fallback (`PostOffice(unheardFailures:)`) got the failure `failure` (as
    /// `modelFailureLine` writes it), whose mail came from `sender`.
    case unheard(failure: String, sender: String?)

    var description: String {
        switch self {
        case .delivered(let label, let recipient, let mail, let sender, let outcome):
            let on = recipient.map { " (on \($0))" } ?? ""
            let what = mail == modelNotReceived ? "mail it is not passed" : mail
            let from =
                switch sender {
                case modelNotReceived: "(sender not passed)"
                case let sender?: "from \(sender)"
                case nil: "with no sender"
                }
            let did =
                switch outcome {
                case .handled: ""
                case .threw: " and threw"
                case .consumed: " and consumed it"
                }
            return "\(label)\(on) got \(what) \(from)\(did)"
        case .counted(let label, let count):
            return "\(label) read registrationCount = \(count)"
        case .unheard(let failure, let sender):
            return "the fallback got \(failure) \(sender.map { "from \($0)" } ?? "with no sender")"
        }
    }
}
