/// Waiting for a delivery.
extension PostOffice {
    /// Posts `mail` like ``post(_:)-8xae0``, then waits until every recipient has handled it: those delivered
    /// on a queue, on the main actor, by an `async` handler or on an actor too.
    ///
    /// What tests and command-line tools need instead of sleeping. A delivery that is dropped (its
    /// registration was removed, or its recipient deallocated, before it ran) counts as handled.
    @inlinable
    public func deliver<M: Mail>(_ mail: M) async {
        await deliver(mail, from: nil)
    }

    /// Posts `mail` from `sender` like ``post(_:sender:)-1bli2``, then waits until every recipient has handled
    /// it, like ``deliver(_:)-1sj9k``.
    @inlinable
    public func deliver<M: Mail, S: AnyObject & Sendable>(_ mail: M, sender: S?) async {
        await deliver(mail, from: sender)
    }

    /// What every `deliver` form comes down to.
    @inlinable
    func deliver<M: Mail>(_ mail: M, from sender: SendableObject?) async {
        let receipt = Receipt()
        send(mail, from: sender, receipt: receipt)
        await receipt.wait()
    }
}
