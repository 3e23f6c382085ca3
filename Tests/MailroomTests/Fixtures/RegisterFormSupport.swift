// What the generated RegisterForms.swift registers: mail and senders that identify themselves, a log of
// deliveries, and recipients of every kind (an object, a main-actor object, an actor) whose methods log them.

import Mailroom

/// Mail that carries a number, for the register forms; the protocol forms register for `any FormMail`.
protocol FormMail: Mail {
    var n: Int { get }
}

/// A sender with a name, for the register forms.
protocol FormSender: AnyObject, Sendable {
    var name: String { get }
}

/// One delivery as a form's handler saw it: the mail's number (`nil` for a form without contents), the sender's
/// name (`nil` for a form that does not receive it; "nil" for a post without one), and for main-actor forms
/// whether it ran on the main thread.
struct FormDelivery: Equatable, Sendable, CustomStringConvertible {
    let n: Int?
    let sender: String?
    let onMain: Bool?

    var description: String {
        "\(n.map(String.init) ?? "-") from \(sender ?? "-")" + (onMain.map { $0 ? " on main" : " off main" } ?? "")
    }
}

/// What the failing forms' handlers throw: the number of the mail (`nil` for a form without contents) and the name
/// of the sender they received (`nil` for a form that does not receive it).
struct FormFailure: Error, Equatable {
    let n: Int?
    let sender: String?
}

/// The deliveries of one registration, in the order they ran.
final class FormLog: Sendable {
    private let deliveries = Shared<[FormDelivery]>([])

    var entries: [FormDelivery] { deliveries.value }

    func record(_ n: Int?, _ sender: String? = nil) {
        deliveries.update { $0.append(FormDelivery(n: n, sender: sender, onMain: nil)) }
    }

    /// Records a delivery to a consuming handler, which passes the mail on.
    func recordPassingOn(_ n: Int?, _ sender: String? = nil) -> Consumption {
        record(n, sender)
        return .passOn
    }

    /// Records a delivery, then throws it as a `FormFailure`.
    func fail(_ n: Int?, _ sender: String? = nil) throws(FormFailure) {
        record(n, sender)
        throw FormFailure(n: n, sender: sender)
    }

    /// Records a delivery to an interceptor, then throws it as a `FormFailure`.
    func failPassing(_ n: Int?, _ sender: String? = nil) throws(FormFailure) -> Consumption {
        record(n, sender)
        throw FormFailure(n: n, sender: sender)
    }

    /// Records a delivery to a main-actor handler, with whether it ran on the main thread, then throws it.
    func failOnMainActor(_ n: Int?, _ sender: String? = nil) throws(FormFailure) {
        recordOnMainActor(n, sender)
        throw FormFailure(n: n, sender: sender)
    }

    /// Records and throws a delivery of `FormMail` to a catch-all; other mail (a `DeliveryFailure`) is ignored.
    func failIfForm(_ mail: any Mail, sender: String?, onMainActor: Bool) throws(FormFailure) {
        guard let mail = mail as? any FormMail else { return }
        if onMainActor {
            try failOnMainActor(mail.n, sender)
        } else {
            try fail(mail.n, sender)
        }
    }

    /// Records a delivery to a handler that claims to run on the main actor, with whether it did.
    func recordOnMainActor(_ n: Int?, _ sender: String? = nil) {
        deliveries.update { $0.append(FormDelivery(n: n, sender: sender, onMain: isOnMainQueue())) }
    }
}

/// A `Sendable` object whose methods log what they receive.
final class FormObject<M: FormMail, S: FormSender>: Sendable {
    let log: FormLog

    init(log: FormLog) {
        self.log = log
    }

    func receive(_ mail: M) { log.record(mail.n) }
    func receive(_ mail: M, from sender: S) { log.record(mail.n, sender.name) }
    func receive(_ mail: M, fromOptional sender: S?) { log.record(mail.n, sender?.name ?? "nil") }
    func receiveIgnoring(_: M) { log.record(nil) }

    func pass(_ mail: M) -> Consumption { log.recordPassingOn(mail.n) }
    func pass(_ mail: M, from sender: S) -> Consumption { log.recordPassingOn(mail.n, sender.name) }
    func pass(_ mail: M, fromOptional sender: S?) -> Consumption { log.recordPassingOn(mail.n, sender?.name ?? "nil") }
    func passIgnoring(_: M) -> Consumption { log.recordPassingOn(nil) }

    func failReceive(_ mail: M) throws(FormFailure) { try log.fail(mail.n) }
    func failReceive(_ mail: M, from sender: S) throws(FormFailure) { try log.fail(mail.n, sender.name) }
    func failReceive(_ mail: M, fromOptional sender: S?) throws(FormFailure) {
        try log.fail(mail.n, sender?.name ?? "nil")
    }
    func failReceiveIgnoring(_: M) throws(FormFailure) { try log.fail(nil) }

    func failPass(_ mail: M) throws(FormFailure) -> Consumption { try log.failPassing(mail.n) }
    func failPass(_ mail: M, from sender: S) throws(FormFailure) -> Consumption {
        try log.failPassing(mail.n, sender.name)
    }
    func failPass(_ mail: M, fromOptional sender: S?) throws(FormFailure) -> Consumption {
        try log.failPassing(mail.n, sender?.name ?? "nil")
    }
    func failPassIgnoring(_: M) throws(FormFailure) -> Consumption { try log.failPassing(nil) }
}

/// A main-actor object whose methods log what they receive, and whether they ran on the main thread.
@MainActor
final class FormMainActorObject<M: FormMail, S: FormSender> {
    let log: FormLog

    nonisolated init(log: FormLog) {
        self.log = log
    }

    func receive(_ mail: M) { log.recordOnMainActor(mail.n) }
    func receive(_ mail: M, from sender: S) { log.recordOnMainActor(mail.n, sender.name) }
    func receive(_ mail: M, fromOptional sender: S?) { log.recordOnMainActor(mail.n, sender?.name ?? "nil") }
    func receiveIgnoring(_: M) { log.recordOnMainActor(nil) }

    func failReceive(_ mail: M) throws(FormFailure) { try log.failOnMainActor(mail.n) }
    func failReceive(_ mail: M, from sender: S) throws(FormFailure) { try log.failOnMainActor(mail.n, sender.name) }
    func failReceive(_ mail: M, fromOptional sender: S?) throws(FormFailure) {
        try log.failOnMainActor(mail.n, sender?.name ?? "nil")
    }
    func failReceiveIgnoring(_: M) throws(FormFailure) { try log.failOnMainActor(nil) }
}

/// An actor whose `async` methods log what they receive.
actor FormActor<M: FormMail, S: FormSender> {
    let log: FormLog

    init(log: FormLog) {
        self.log = log
    }

    func take(_ mail: M) async { log.record(mail.n) }
    func take(_ mail: M, from sender: S) async { log.record(mail.n, sender.name) }
    func take(_ mail: M, fromOptional sender: S?) async { log.record(mail.n, sender?.name ?? "nil") }
    func takeIgnoring(_: M) async { log.record(nil) }

    func failTake(_ mail: M) async throws(FormFailure) { try log.fail(mail.n) }
    func failTake(_ mail: M, from sender: S) async throws(FormFailure) { try log.fail(mail.n, sender.name) }
    func failTake(_ mail: M, fromOptional sender: S?) async throws(FormFailure) {
        try log.fail(mail.n, sender?.name ?? "nil")
    }
    func failTakeIgnoring(_: M) async throws(FormFailure) { try log.fail(nil) }
}

/// A recipient of each kind, all logging to one log.
struct FormRecipients<M: FormMail, S: FormSender> {
    let object: FormObject<M, S>
    let mainActorObject: FormMainActorObject<M, S>
    let actor: FormActor<M, S>

    init(log: FormLog) {
        object = FormObject(log: log)
        mainActorObject = FormMainActorObject(log: log)
        actor = FormActor(log: log)
    }
}

/// The shared mail and sender fixtures, for the tests that register every form for them (the reliability tests).
extension Ping: FormMail {}
extension Device: FormSender {}
