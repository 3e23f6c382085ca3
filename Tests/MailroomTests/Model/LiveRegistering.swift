// The `register` overloads a sequence's registrations use: seven filters, as closures and as methods, on the
// posting thread or on the sequence's queue.

import Dispatch
import Mailroom

/// Registers with `register`. `E` is the error the handler may throw: `ModelFailure`, or `Never` for a handler
/// that cannot throw (the office's fast path).
struct LiveRegistering<E: Error>: LiveRegistrar {
    let office: PostOffice
    let queue: DispatchQueue?
    let live: LiveOffice
    let handling: LiveOffice.Handling

    private var priority: Priority { Priority(handling.spec.priority) }

    func registerForAnySender<M: Mail>(_: M.Type, _ form: ModelForm, recipient: (any ModelObject)?) -> RecipientId {
        if let recipient {
            return registerMethod(M.self, form, recipient: recipient)
        }
        let (live, handling) = (live, handling)
        if form == .mailType {
            return office.register(of: M.self, queue: queue, priority: priority) { (_: M) throws(E) in
                _ = try live.answer(E.self, handling, mail: nil, sender: .none)
            }
        }
        return office.register(queue: queue, priority: priority) { (mail: M) throws(E) in
            _ = try live.answer(E.self, handling, mail: mail, sender: .none)
        }
    }

    private func registerMethod<M: Mail, R: ModelObject>(_: M.Type, _ form: ModelForm, recipient: R) -> RecipientId {
        let (live, handling) = (live, handling)
        if form == .mailType {
            return office.register(queue: queue, priority: priority, recipient) { (recipient: R) in
                { (_: M) throws(E) in
                    _ = try live.answer(E.self, handling, recipient: recipient.name, mail: nil, sender: .none)
                }
            }
        }
        return office.register(queue: queue, priority: priority, recipient) { (recipient: R) in
            { (mail: M) throws(E) in
                _ = try live.answer(E.self, handling, recipient: recipient.name, mail: mail, sender: .none)
            }
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
            return office.register(queue: queue, priority: priority) { (mail: M, sender: S?) throws(E) in
                _ = try live.answer(E.self, handling, mail: mail, sender: .some(sender?.name))
            }
        }
        return office.register(queue: queue, priority: priority) { (mail: M, sender: S) throws(E) in
            _ = try live.answer(E.self, handling, mail: mail, sender: .some(sender.name))
        }
    }

    private func registerMethod<M: Mail, S: ModelObject, R: ModelObject>(
        _: M.Type, _: S.Type, _ form: ModelForm, recipient: R
    ) -> RecipientId {
        let (live, handling) = (live, handling)
        if case .optionalKind = form {
            return office.register(queue: queue, priority: priority, recipient) { (recipient: R) in
                { (mail: M, sender: S?) throws(E) in
                    _ = try live.answer(
                        E.self, handling, recipient: recipient.name, mail: mail, sender: .some(sender?.name))
                }
            }
        }
        return office.register(queue: queue, priority: priority, recipient) { (recipient: R) in
            { (mail: M, sender: S) throws(E) in
                _ = try live.answer(E.self, handling, recipient: recipient.name, mail: mail, sender: .some(sender.name))
            }
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
            return office.register(queue: queue, priority: priority, sender: sender) { (mail: M, sender: S) throws(E) in
                _ = try live.answer(E.self, handling, mail: mail, sender: .some(sender.name))
            }
        case .exactMailType:
            return office.register(of: M.self, queue: queue, priority: priority, sender: sender) { (_: M) throws(E) in
                _ = try live.answer(E.self, handling, mail: nil, sender: .none)
            }
        default:
            return office.register(queue: queue, priority: priority, sender: sender) { (mail: M) throws(E) in
                _ = try live.answer(E.self, handling, mail: mail, sender: .none)
            }
        }
    }

    private func registerMethod<M: Mail, S: ModelObject, R: ModelObject>(
        _: M.Type, _ form: ModelForm, sender: S, recipient: R
    ) -> RecipientId {
        let (live, handling) = (live, handling)
        switch form {
        case .exactWithSender:
            return office.register(queue: queue, priority: priority, sender: sender, recipient) { (recipient: R) in
                { (mail: M, sender: S) throws(E) in
                    _ = try live.answer(
                        E.self, handling, recipient: recipient.name, mail: mail, sender: .some(sender.name))
                }
            }
        case .exactMailType:
            return office.register(queue: queue, priority: priority, sender: sender, recipient) { (recipient: R) in
                { (_: M) throws(E) in
                    _ = try live.answer(E.self, handling, recipient: recipient.name, mail: nil, sender: .none)
                }
            }
        default:
            return office.register(queue: queue, priority: priority, sender: sender, recipient) { (recipient: R) in
                { (mail: M) throws(E) in
                    _ = try live.answer(E.self, handling, recipient: recipient.name, mail: mail, sender: .none)
                }
            }
        }
    }

    func registerCatchAll(_ form: ModelForm) -> RecipientId {
        let (live, handling) = (live, handling)
        if form == .catchAllWithSender {
            return office.register(queue: queue, priority: priority, conformingTo: (any Mail).self) {
                (mail: any Mail, sender: (any AnyObject & Sendable)?) throws(E) in
                _ = try live.answer(E.self, handling, mail: mail, sender: .some(live.name(of: sender)))
            }
        }
        return office.register(queue: queue, priority: priority, conformingTo: (any Mail).self) {
            (mail: any Mail) throws(E) in
            _ = try live.answer(E.self, handling, mail: mail, sender: .none)
        }
    }
}
