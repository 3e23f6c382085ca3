extension SortingOffice {
    /// Delivers the mail at `mail`, of dynamic type `mailType` and posted without a sender, to every
    /// registration that accepts it, in registration order.
    ///
    /// Takes no lock once the route for this kind of post exists, and allocates nothing for synchronous
    /// registrations. Registrations removed by an earlier handler of this post are skipped; registrations
    /// added during it are not called by it.
    @usableFromInline
    func post(_ mail: UnsafeRawPointer, type mailType: Any.Type, receipt: Receipt? = nil) {
        let section = ReadSection()
        defer { section.end() }
        let route = Route.Snapshot(published: typeRoute(mailType, senderClass: nil))
        Self.deliver(mail, from: nil, to: route, receipt: receipt)
    }

    /// Delivers the mail at `mail`, of dynamic type `mailType`, from `sender`, like ``post(_:type:)``.
    ///
    /// The sender comes unretained: the caller holds it for the whole call, and retaining it would be slow for
    /// an object the office holds weakly (its reference counts then live in a side table).
    @usableFromInline
    func post(
        _ mail: UnsafeRawPointer, type mailType: Any.Type, sender: Unmanaged<SendableObject>, receipt: Receipt? = nil
    ) {
        sender._withUnsafeGuaranteedRef { post(mail, type: mailType, sender: $0, receipt: receipt) }
    }

    @inline(__always)
    private func post(_ mail: UnsafeRawPointer, type mailType: Any.Type, sender: SendableObject, receipt: Receipt?) {
        let section = ReadSection()
        defer { section.end() }
        let byType = Route.Snapshot(published: typeRoute(mailType, senderClass: type(of: sender)))
        if let published = instanceRoute(mailType, sender: sender) {
            let byInstance = Route.Snapshot(published: published)
            Self.deliver(mail, from: sender, merging: byType, byInstance, receipt: receipt)
        } else {
            Self.deliver(mail, from: sender, to: byType, receipt: receipt)
        }
    }

    @inline(__always)
    private static func deliver(
        _ mail: UnsafeRawPointer, from sender: SendableObject?, to route: Route.Snapshot, receipt: Receipt?
    ) {
        for index in 0..<route.count {
            deliver(mail, from: sender, toRegistrationAt: route.registration(at: index), receipt: receipt)
        }
    }

    /// Delivers along two routes at once, in registration order across both.
    private static func deliver(
        _ mail: UnsafeRawPointer,
        from sender: SendableObject?,
        merging first: Route.Snapshot,
        _ second: Route.Snapshot,
        receipt: Receipt?
    ) {
        var firstIndex = 0
        var secondIndex = 0
        while firstIndex < first.count || secondIndex < second.count {
            let takeFirst =
                secondIndex == second.count
                || (firstIndex < first.count && first.order(at: firstIndex) < second.order(at: secondIndex))
            if takeFirst {
                deliver(mail, from: sender, toRegistrationAt: first.registration(at: firstIndex), receipt: receipt)
                firstIndex += 1
            } else {
                deliver(mail, from: sender, toRegistrationAt: second.registration(at: secondIndex), receipt: receipt)
                secondIndex += 1
            }
        }
    }

    @inline(__always)
    private static func deliver(
        _ mail: UnsafeRawPointer, from sender: SendableObject?, toRegistrationAt address: UInt, receipt: Receipt?
    ) {
        guard address != 0 else { return }
        Registration.withRegistration(at: address) { $0.deliver(mail, from: sender, receipt: receipt) }
    }
}
