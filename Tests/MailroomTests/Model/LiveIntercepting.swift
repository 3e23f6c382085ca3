// The `intercept` overloads a sequence's interceptors use: seven filters, as closures and as closures tied to an
// object (there are no intercepting methods: the object's "method" is a closure that captures it weakly), always
// on the posting thread.

import Mailroom
import Testing

/// Registers with `intercept`: the handler returns `.consumed` on the mail its spec consumes, which ends the
/// post, and `.passOn` otherwise. `E` is the error the handler may throw: `ModelFailure`, or `Never`. A spec with
/// a recipient registers a closure tied to that object (`tiedTo:`), which captures it weakly: it ends when the
/// object deallocates, but `unregister(object)`, which removes method registrations only, leaves it.
struct LiveIntercepting<E: Error>: LiveRegistrar {
    let office: PostOffice
    let live: LiveOffice
    let handling: LiveOffice.Handling

    private var priority: Priority { Priority(handling.spec.priority) }

    func registerForAnySender<M: Mail>(_: M.Type, _ form: ModelForm, recipient: (any ModelObject)?) -> RecipientId {
        if let recipient {
            return registerMethod(M.self, form, recipient: recipient)
        }
        let (live, handling) = (live, handling)
        if form == .mailType {
            return office.intercept(of: M.self, priority: priority) { (_: M) throws(E) -> Consumption in
                try live.answer(E.self, handling, mail: nil, sender: .none)
            }
        }
        return office.intercept(priority: priority) { (mail: M) throws(E) -> Consumption in
            try live.answer(E.self, handling, mail: mail, sender: .none)
        }
    }

    private func registerMethod<M: Mail, R: ModelObject>(_: M.Type, _ form: ModelForm, recipient: R) -> RecipientId {
        let (live, handling) = (live, handling)
        if form == .mailType {
            return office.intercept(of: M.self, priority: priority, tiedTo: recipient) {
                [weak recipient] (_: M) throws(E) -> Consumption in
                guard let recipient else { return .passOn }
                return try live.answer(E.self, handling, recipient: recipient.name, mail: nil, sender: .none)
            }
        }
        return office.intercept(priority: priority, tiedTo: recipient) {
            [weak recipient] (mail: M) throws(E) -> Consumption in
            guard let recipient else { return .passOn }
            return try live.answer(E.self, handling, recipient: recipient.name, mail: mail, sender: .none)
        }
    }

    func registerForSenderClass<M: Mail, S: ModelObject>(
        _: M.Type, _: S.Type, _ form: ModelForm, recipient: (any ModelObject)?
    ) -> RecipientId {
        if let recipient {
            return registerMethod(M.self, S.self, form, recipient: recipient)
        }
        let (live, handling) = (live, handling)
        if case .optionalKind = form {
            return office.intercept(priority: priority) { (mail: M, sender: S?) throws(E) -> Consumption in
                try live.answer(E.self, handling, mail: mail, sender: .some(sender?.name))
            }
        }
        return office.intercept(priority: priority) { (mail: M, sender: S) throws(E) -> Consumption in
            try live.answer(E.self, handling, mail: mail, sender: .some(sender.name))
        }
    }

    private func registerMethod<M: Mail, S: ModelObject, R: ModelObject>(
        _: M.Type, _: S.Type, _ form: ModelForm, recipient: R
    ) -> RecipientId {
        let (live, handling) = (live, handling)
        if case .optionalKind = form {
            return office.intercept(priority: priority, tiedTo: recipient) {
                [weak recipient] (mail: M, sender: S?) throws(E) -> Consumption in
                guard let recipient else { return .passOn }
                return try live.answer(
                    E.self, handling, recipient: recipient.name, mail: mail, sender: .some(sender?.name))
            }
        }
        return office.intercept(priority: priority, tiedTo: recipient) {
            [weak recipient] (mail: M, sender: S) throws(E) -> Consumption in
            guard let recipient else { return .passOn }
            return try live.answer(
                E.self, handling, recipient: recipient.name, mail: mail, sender: .some(sender.name))
        }
    }

    func registerForExactSender<M: Mail, S: ModelObject>(
        _: M.Type, _ form: ModelForm, sender: S, recipient: (any ModelObject)?
    ) -> RecipientId {
        if let recipient {
            return registerMethod(M.self, form, sender: sender, recipient: recipient)
        }
        let (live, handling) = (live, handling)
        switch form {
        case .exactWithSender:
            return office.intercept(priority: priority, sender: sender) {
                (mail: M, sender: S) throws(E) -> Consumption in
                try live.answer(E.self, handling, mail: mail, sender: .some(sender.name))
            }
        case .exactMailType:
            return office.intercept(of: M.self, priority: priority, sender: sender) { (_: M) throws(E) -> Consumption in
                try live.answer(E.self, handling, mail: nil, sender: .none)
            }
        default:
            return office.intercept(priority: priority, sender: sender) { (mail: M) throws(E) -> Consumption in
                try live.answer(E.self, handling, mail: mail, sender: .none)
            }
        }
    }

    private func registerMethod<M: Mail, S: ModelObject, R: ModelObject>(
        _: M.Type, _ form: ModelForm, sender: S, recipient: R
    ) -> RecipientId {
        let (live, handling) = (live, handling)
        switch form {
        case .exactWithSender:
            return office.intercept(priority: priority, sender: sender, tiedTo: recipient) {
                [weak recipient] (mail: M, sender: S) throws(E) -> Consumption in
                guard let recipient else { return .passOn }
                return try live.answer(
                    E.self, handling, recipient: recipient.name, mail: mail, sender: .some(sender.name))
            }
        case .exactMailType:
            return office.intercept(of: M.self, priority: priority, sender: sender, tiedTo: recipient) {
                [weak recipient] (_: M) throws(E) -> Consumption in
                guard let recipient else { return .passOn }
                return try live.answer(E.self, handling, recipient: recipient.name, mail: nil, sender: .none)
            }
        default:
            return office.intercept(priority: priority, sender: sender, tiedTo: recipient) {
                [weak recipient] (mail: M) throws(E) -> Consumption in
                guard let recipient else { return .passOn }
                return try live.answer(E.self, handling, recipient: recipient.name, mail: mail, sender: .none)
            }
        }
    }

    /// No `intercept` form takes `any Mail`: the generator makes no catch-all interceptor.
    func registerCatchAll(_ form: ModelForm) -> RecipientId {
        Issue.record("no intercept form takes any Mail")
        return LiveRegistering<E>(office: office, queue: nil, live: live, handling: handling).registerCatchAll(form)
    }
}
