import Dispatch

/// A registration of a closure that takes the mail alone, `(M) throws(E) -> Void`: the most common kind.
///
/// It keeps the user's closure itself, and its handler, ``bodyCaller``, finds the closure in the registration a
/// post passes it: a handler that captured the closure would cost each registration one more allocation, the
/// capturing closure's context (a 48-byte block). Built in the caller's module, where the register overload is
/// specialized for `M` and `E`, the handler captures nothing and allocates nothing; a post calls it as it calls
/// any ``Registration/Handler``, with no virtual call and no generic code.
@usableFromInline
final class ClosureRegistration<M: Mail, E: Error>: Registration, @unchecked Sendable {
    /// The user's closure, as the register overload was given it.
    @usableFromInline let body: @Sendable (M) throws(E) -> Void

    /// A registration of `body` for every posted `M` (from `exactSender` alone, when given), run on the posting
    /// thread, or on `queue` when one is given; `caller` is ``bodyCaller``. Other parameters as for
    /// ``Registration/make(in:_:priority:senders:exactSender:once:tiedTo:recipient:whenGone:reportsItsDeliveries:_:)``.
    @usableFromInline
    init(
        in office: borrowing PostOffice, queue: DispatchQueue?, priority: Priority, exactSender: SendableObject?,
        once: Bool, tiedTo owner: SendableObject?, _ body: @escaping @Sendable (M) throws(E) -> Void,
        caller: @escaping Handler
    ) {
        self.body = body
        super.init(
            office, M.self, priority, nil, .any, exactSender, once, owner,
            Handling(.on(queue), caller, mayThrow: E.self != Never.self), nil,
            isObserved: office.sortingOffice.instrumenter != nil)
    }

    /// The handler of a registration of this class: calls its `body` with the mail. Inlined into the register
    /// overload, which passes it to ``init(in:queue:priority:exactSender:once:tiedTo:_:caller:)``.
    @inlinable
    static var bodyCaller: Handler {
        { mail, _, registration in
            try unsafeDowncast(registration.unsafelyUnwrapped, to: ClosureRegistration<M, E>.self).body(
                mail.read(as: M.self))
        }
    }
}
