// Chooses, for a registration of a sequence, the overload of `register` or `intercept` its spec names.

import Mailroom

/// Makes a registration on the real office with one verb (`register` or `intercept`): one of its overloads
/// for each filter, as a closure, or as a method of a recipient of the pool. The handlers capture the
/// `LiveOffice` and the registration's `Handling`, never a recipient or a sender: the office holds those
/// weakly, so must what it holds.
protocol LiveRegistrar {
    /// `(M)` or `M.self` with no arguments, whatever the sender.
    func registerForAnySender<M: Mail>(_: M.Type, _ form: ModelForm, recipient: (any ModelObject)?) -> RecipientId
    /// `(M, S)` or `(M, S?)`.
    func registerForSenderClass<M: Mail, S: ModelObject>(
        _: M.Type, _: S.Type, _ form: ModelForm, recipient: (any ModelObject)?
    ) -> RecipientId
    /// `sender: s` with `(M)`, `(M, S)` or `M.self` with no arguments.
    func registerForExactSender<M: Mail, S: ModelObject>(
        _: M.Type, _ form: ModelForm, sender: S, recipient: (any ModelObject)?
    ) -> RecipientId
    /// `(any Mail)` or `(any Mail, (any AnyObject & Sendable)?)`, closures only.
    func registerCatchAll(_ form: ModelForm) -> RecipientId
}

extension LiveRegistrar {
    /// Registers `spec`, its recipient and exact sender being the objects in their slots.
    func register(_ spec: ModelRegistrationSpec, _ objects: [any ModelObject]) -> RecipientId {
        if spec.form.isCatchAll {
            return registerCatchAll(spec.form)
        }
        return switch spec.mail {
        case .ping: register(Ping.self, spec, objects)
        case .pong: register(Pong.self, spec, objects)
        case .letter: register(Letter.self, spec, objects)
        case .parcel: register(Parcel.self, spec, objects)
        case .crate: register(Crate.self, spec, objects)
        case .failure: register(DeliveryFailure.self, spec, objects)
        }
    }

    private func register<M: Mail>(_: M.Type, _ spec: ModelRegistrationSpec, _ objects: [any ModelObject])
        -> RecipientId
    {
        let recipient = spec.recipient.map { objects[$0] }
        switch spec.form {
        case .mail, .mailType:
            return registerForAnySender(M.self, spec.form, recipient: recipient)
        case .kind(let senderClass), .optionalKind(let senderClass):
            switch senderClass {
            case .recipient: return registerForSenderClass(M.self, ModelRecipient.self, spec.form, recipient: recipient)
            case .device: return registerForSenderClass(M.self, Device.self, spec.form, recipient: recipient)
            case .phone: return registerForSenderClass(M.self, Phone.self, spec.form, recipient: recipient)
            case .stranger: return registerForSenderClass(M.self, Stranger.self, spec.form, recipient: recipient)
            }
        case .exact(let slot), .exactWithSender(let slot), .exactMailType(let slot):
            return registerForExactSender(M.self, spec.form, sender: objects[slot], recipient: recipient)
        case .catchAll, .catchAllWithSender:
            return registerCatchAll(spec.form)
        }
    }
}
