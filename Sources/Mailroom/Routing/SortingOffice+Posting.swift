extension SortingOffice {
    /// Delivers the mail at `mail`, of dynamic type `mailType` and posted without a sender, to every
    /// registration that accepts it, by priority then registration order, until one consumes it.
    ///
    /// Takes no lock once the route for this kind of post exists, and allocates nothing for synchronous
    /// registrations whose handlers do not throw. Registrations removed by an earlier handler of this post are skipped; registrations
    /// added during it are not called by it.
    @usableFromInline
    func post(_ mail: UnsafeRawPointer, type mailType: any Mail.Type, receipt: Receipt? = nil) {
        let section = ReadSection()
        defer { section.end() }
        let published = typeRoute(mailType, senderClass: nil, mail: mail)
        if !Route.attention(published: published).isEmpty {
            attend(mail, type: mailType, sender: nil)
        }
        let route = Route.Snapshot(published: published)
        if !Self.deliver(mail, type: mailType, from: nil, to: route, receipt: receipt) {
            reportUndelivered(mail, type: mailType, sender: nil, receipt: receipt)
        }
    }

    /// Delivers the mail at `mail`, of dynamic type `mailType`, from `sender`, like ``post(_:type:receipt:)``.
    ///
    /// The sender comes unretained: the caller holds it for the whole call, and retaining it would be slow for
    /// an object the office holds weakly (its reference counts then live in a side table).
    @usableFromInline
    func post(
        _ mail: UnsafeRawPointer, type mailType: any Mail.Type, sender: Unmanaged<SendableObject>,
        receipt: Receipt? = nil
    ) {
        sender._withUnsafeGuaranteedRef { post(mail, type: mailType, sender: $0, receipt: receipt) }
    }

    @inline(__always)
    private func post(
        _ mail: UnsafeRawPointer, type mailType: any Mail.Type, sender: SendableObject, receipt: Receipt?
    ) {
        let section = ReadSection()
        defer { section.end() }
        let published = typeRoute(mailType, senderClass: type(of: sender), mail: mail)
        if !Route.attention(published: published).isEmpty {
            attend(mail, type: mailType, sender: sender)
        }
        let byType = Route.Snapshot(published: published)
        let delivered: Bool
        if let published = instanceRoute(mailType, sender: sender, mail: mail) {
            let byInstance = Route.Snapshot(published: published)
            delivered = Self.deliver(mail, type: mailType, from: sender, merging: byType, byInstance, receipt: receipt)
        } else {
            delivered = Self.deliver(mail, type: mailType, from: sender, to: byType, receipt: receipt)
        }
        if !delivered {
            reportUndelivered(mail, type: mailType, sender: sender, receipt: receipt)
        }
    }

    /// Delivers along one route. Returns whether any registration received the mail (wiretaps do not count).
    @inline(__always)
    private static func deliver(
        _ mail: UnsafeRawPointer, type mailType: any Mail.Type, from sender: SendableObject?, to route: Route.Snapshot,
        receipt: Receipt?
    ) -> Bool {
        var delivered = false
        var index = 0
        while index < route.count {
            let address = route.registration(at: index)
            index += 1
            guard address != 0 else { continue }
            switch deliver(mail, type: mailType, from: sender, toRegistrationAt: address, receipt: receipt) {
            case .received: delivered = true
            case .consumed: return true
            case .dropped, .observed: continue
            }
        }
        return delivered
    }

    /// Delivers along two routes at once, by rank across both. Returns whether any registration received the
    /// mail (wiretaps do not count).
    private static func deliver(
        _ mail: UnsafeRawPointer,
        type mailType: any Mail.Type,
        from sender: SendableObject?,
        merging first: Route.Snapshot,
        _ second: Route.Snapshot,
        receipt: Receipt?
    ) -> Bool {
        var delivered = false
        var firstIndex = 0
        var secondIndex = 0
        while firstIndex < first.count || secondIndex < second.count {
            let address: UInt
            if secondIndex == second.count
                || (firstIndex < first.count && first.rank(at: firstIndex) < second.rank(at: secondIndex))
            {
                address = first.registration(at: firstIndex)
                firstIndex += 1
            } else {
                address = second.registration(at: secondIndex)
                secondIndex += 1
            }
            if address != 0 {
                switch deliver(mail, type: mailType, from: sender, toRegistrationAt: address, receipt: receipt) {
                case .received: delivered = true
                case .consumed: return true
                case .dropped, .observed: break
                }
            }
        }
        return delivered
    }

    @inline(__always)
    private static func deliver(
        _ mail: UnsafeRawPointer, type mailType: any Mail.Type, from sender: SendableObject?,
        toRegistrationAt address: UInt, receipt: Receipt?
    ) -> Registration.Outcome {
        Registration.withRegistration(at: address) {
            $0.deliver(mail, type: mailType, from: sender, receipt: receipt)
        }
    }

    /// Does what its type route asks of a post besides delivering, before delivering: reports the post to
    /// the instrumentation; keeps a copy of mail of a ``StickyMail`` type before the post reads its entries, so
    /// that a registration added before the letter is kept receives the post, and one added after it receives the
    /// letter by replay.
    @inline(never)
    private func attend(_ mail: UnsafeRawPointer, type mailType: any Mail.Type, sender: SendableObject?) {
        // Found again rather than passed in: one argument more costs every post a register move.
        let published = typeRoute(mailType, senderClass: sender.map { type(of: $0) }, mail: mail)
        let attention = Route.attention(published: published)
        if attention.contains(.isObserved) {
            instrumenter?.posted(mailType)
        }
        if attention.contains(.keepsMail) {
            keepSticky(PostedMail(mail, type: mailType).copy(as: mailType), sender: sender)
        }
    }

    /// Posts ``UndeliveredMail`` for mail that reached no registration, if anything listens for it: otherwise
    /// this costs one load. A ``DeliveryFailure`` that reached no registration goes to the fallback instead.
    @inline(never)
    private func reportUndelivered(
        _ mail: UnsafeRawPointer, type mailType: any Mail.Type, sender: SendableObject?, receipt: Receipt?
    ) {
        if mailType == DeliveryFailure.self {
            return fallback.report(PostedMail(mail, type: mailType).read(as: DeliveryFailure.self))
        }
        guard hasUndeliveredMailRecipients || instrumenter != nil, mailType != UndeliveredMail.self else { return }
        let report = UndeliveredMail(mail: PostedMail(mail, type: mailType).copy(as: mailType), sender: sender)
        instrumenter?.undelivered(report)
        guard hasUndeliveredMailRecipients else { return }
        withUnsafePointer(to: report) { post(UnsafeRawPointer($0), type: UndeliveredMail.self, receipt: receipt) }
    }

    /// Reports that a recipient's handler threw: to the `deliver` that waits for the mail, if any, and as a
    /// ``DeliveryFailure`` posted from the mail's sender, or to the fallback when the failure is itself a
    /// `DeliveryFailure`'s, so that failures never loop.
    func report(_ failure: DeliveryFailure, rank: UInt, receipt: Receipt?) {
        receipt?.record(failure, rank: rank)
        instrumenter?.failed(failure)
        guard !(failure.mail is DeliveryFailure) else {
            return fallback.report(failure)
        }
        withUnsafePointer(to: failure) { pointer in
            if let sender = failure.sender {
                post(UnsafeRawPointer(pointer), type: DeliveryFailure.self, sender: .passUnretained(sender))
            } else {
                post(UnsafeRawPointer(pointer), type: DeliveryFailure.self)
            }
        }
    }
}
