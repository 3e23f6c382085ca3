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

/// The deliveries of one registration, in the order they ran.
final class FormLog: Sendable {
    private let deliveries = Shared<[FormDelivery]>([])

    var entries: [FormDelivery] { deliveries.value }

    func record(_ n: Int?, _ sender: String? = nil) {
        deliveries.update { $0.append(FormDelivery(n: n, sender: sender, onMain: nil)) }
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
    func reload() { log.record(nil) }
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
    func reload() { log.recordOnMainActor(nil) }
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
    func reload() async { log.record(nil) }
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
