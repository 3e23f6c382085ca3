/// Waiting for a delivery.
extension PostOffice {
    /// Posts `mail` like ``post(_:)-8xae0``, then waits until every recipient has handled it (those delivered
    /// on a queue, on the main actor, by an `async` handler or on an actor too), and throws if any of them threw.
    ///
    /// What tests, command-line tools and servers need instead of sleeping. A delivery that is dropped (its
    /// registration was removed, or its recipient deallocated, before it ran) counts as handled. Each failure is
    /// also posted as a ``DeliveryFailure``, as for `post`.
    /// - Throws: ``DeliveryFailures``, listing every recipient that threw and what, in recipient order, once
    ///   every recipient has handled the mail.
    @inlinable
    public func deliver<M: Mail>(_ mail: M) async throws(DeliveryFailures) {
        try await deliver(mail, from: nil)
    }

    /// Posts `mail` from `sender` like ``post(_:sender:)-1bli2``, then waits until every recipient has handled
    /// it, and throws if any of them threw, like ``deliver(_:)-9cnzh``.
    @inlinable
    public func deliver<M: Mail, S: AnyObject & Sendable>(_ mail: M, sender: S?) async throws(DeliveryFailures) {
        try await deliver(mail, from: sender)
    }

    /// Posts `mail` like ``post(_:)-8xae0``, then waits until every recipient has handled it, like
    /// ``deliver(_:)-9cnzh``, without throwing: failures are reported only as ``DeliveryFailure`` mail (and to
    /// the office's fallback when no registration receives them), as for `post`.
    @inlinable
    public func deliverIgnoringFailures<M: Mail>(_ mail: M) async {
        _ = await deliverReporting(mail, from: nil)
    }

    /// Posts `mail` from `sender`, then waits until every recipient has handled it, without throwing, like
    /// ``deliverIgnoringFailures(_:)-3a3v5``.
    @inlinable
    public func deliverIgnoringFailures<M: Mail, S: AnyObject & Sendable>(_ mail: M, sender: S?) async {
        _ = await deliverReporting(mail, from: sender)
    }

    /// What every throwing `deliver` form comes down to.
    @inlinable
    func deliver<M: Mail>(_ mail: M, from sender: SendableObject?) async throws(DeliveryFailures) {
        let failures = await deliverReporting(mail, from: sender)
        if !failures.isEmpty {
            throw DeliveryFailures(failures)
        }
    }

    /// Posts `mail`, waits until every recipient has handled it, and returns the failures, in recipient order.
    @inlinable
    func deliverReporting<M: Mail>(_ mail: M, from sender: SendableObject?) async -> [DeliveryFailure] {
        let receipt = Receipt()
        send(mail, from: sender, receipt: receipt)
        return await receipt.wait()
    }
}
