// The log of what the real office's handlers receive and what its fallback gets, written from the test's
// thread or from the queue's, in the vocabulary of the reference model.

import Mailroom

/// What the handlers registered on the real office, and its fallback, logged; locked, because recipients of
/// `DeliveryFailure`, queued handlers and the fallback may run on the queue's thread (while the test's thread
/// waits for it).
final class LiveLog: Sendable {
    private let recorded = Shared<[ModelEvent]>([])
    /// The label of each registration, so that a `DeliveryFailure` names the one that threw.
    private let labels = Shared<[RecipientId: String]>([:])
    private let runs = Shared(0)

    var events: [ModelEvent] { recorded.value }

    func record(_ event: ModelEvent) {
        recorded.update { $0.append(event) }
    }

    func clear() {
        recorded.update { $0.removeAll() }
    }

    /// How many times a queued handler ran.
    var queuedRuns: Int { runs.value }

    func countQueuedRun() {
        runs.update { $0 += 1 }
    }

    /// Names the registration `id` `label`.
    func name(_ id: RecipientId, _ label: String) {
        labels.update { $0[id] = label }
    }

    /// The mail as the model describes it: a `DeliveryFailure` by the label of the registration that threw
    /// and the mail it threw on.
    func describe(_ mail: any Mail) -> String {
        if let failure = mail as? DeliveryFailure {
            return modelFailureReport(failureLine(failure))
        }
        return (mail as? any ModelMail)?.modelDescription ?? "\(type(of: mail))"
    }

    /// The number of the post of the mail; for a `DeliveryFailure`, of the mail whose handler threw.
    func number(_ mail: any Mail) -> Int {
        if let failure = mail as? DeliveryFailure {
            return number(failure.mail)
        }
        return (mail as? any ModelMail)?.modelNumber ?? -1
    }

    /// `R3 threw on Ping(2)`, and the error when it is not the `ModelFailure` of the registration that threw.
    func failureLine(_ failure: DeliveryFailure) -> String {
        let label = labels.value[failure.recipient] ?? "\(failure.recipient)"
        let line = modelFailureLine(label, on: describe(failure.mail))
        guard (failure.error as? ModelFailure)?.label == label else {
            return "\(line), with the error \(failure.error)"
        }
        return line
    }

    /// The name of a sender of the pool, or `nil` for none.
    func name(of sender: (any AnyObject & Sendable)?) -> String? {
        sender.map { ($0 as? any ModelObject)?.name ?? "\(type(of: $0))" }
    }
}
