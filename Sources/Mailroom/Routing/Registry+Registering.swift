extension Registry {
    /// What ``Registry/add(_:)`` did, and what it leaves to the office once it has unlocked.
    struct Addition: ~Copyable {
        /// The new registration's id.
        let id: RecipientId
        /// Tables replaced to publish the registration, to retire: posts may still be reading them.
        var retired: Garbage
        /// Set when a sweep is due: the registrations that can end without being unregistered, to check outside
        /// the lock (loading a weak reference may run the object's `deinit`), and remove with
        /// ``Registry/sweep(removing:)`` if dead.
        let sweepCandidates: [Record]?
    }

    /// What ``Registry/remove(_:reclaiming:)`` unlinked: the registrations, and the sender identities, routes
    /// and tables that only they kept. Posts may still be walking them, so the office retires them once it has
    /// unlocked.
    struct Removal: ~Copyable {
        var retired = Garbage()
    }

    // MARK: - Registering

    /// Adds `registration`, taking over the reference the caller passes. Inlined into the office's `register`, so
    /// that the outcome is built in place rather than moved out of a call.
    @inline(__always)
    mutating func add(_ registration: Unmanaged<Registration>) -> Addition {
        lastOrder += 1
        let order = lastOrder
        let id = records.insert(registration, order: order)
        var retired = Garbage()
        // The reference is the slots' now; meanwhile the registration is used without retaining it.
        registration._withUnsafeGuaranteedRef { link($0, id: id, order: order, retiring: &retired) }
        return Addition(id: id, retired: retired, sweepCandidates: isSweepDue ? mortalRegistrations : nil)
    }

    /// Puts the registration `id`, registered `order`-th, into every index and route it belongs to, in its place
    /// by rank (see ``Priority``).
    private mutating func link(_ registration: Registration, id: RecipientId, order: UInt, retiring: inout Garbage) {
        let rank = registration.priority.rank(order: order)
        registration.life?.enrol(id: id, rank: rank)
        if case .instance(let senderKey) = registration.senders, let sender = registration.sender {
            if !senders.contains(Self.key(senderKey)) {
                let identity = SenderIdentity(sender)
                senders[Self.key(senderKey)] = SenderIndex(key: senderKey, identity: identity)
                if let replaced = senderTable.insert(identity.address, for: Self.senderKey(senderKey)) {
                    retiring.append(replaced)
                }
            }
            senders.modifyIfPresent(Self.key(senderKey)) { $0.ids.append(id) }
        }
        if registration.isForProtocol {
            if !registration.senders.isInstance {
                conformingIds.append(id)
            }
            dropAllRoutes(retiring: &retiring)
        } else {
            forEachRoute(
                of: registration,
                updatingIndex: { [records] in records.append(id, to: &$0.registrations) },
                visiting: { $0.insert(rank: rank, registration) }
            )
        }
        registration.forEachObjectKey { isOwner, key in
            recipients.insert(
                RecipientIndex.Entry(slot: id.slot, isOwner: isOwner), under: Self.key(key), keyOf: recipientKeyOf)
        }
        if registration.mayReceiveUndeliveredMail {
            undeliveredMailRecipients.increment()
        }
    }

    /// Calls `body` with every route the registration belongs to: the same rule decides where `add` appends it,
    /// where a new route includes it, and where `remove` clears it. Mutating only to reach the indexes in place:
    /// reading one out of its map would copy it, retaining and releasing its arrays.
    ///
    /// For a registration for a mail type, `updateIndex` is called with that type's index (made if missing), so
    /// that registering and unregistering look it up once. Inlined, so that neither closure is a call.
    @inline(__always)
    private mutating func forEachRoute(
        of registration: Registration, updatingIndex updateIndex: (inout MailTypeIndex) -> Void,
        visiting body: (Route) -> Void
    ) {
        let isForSender: Bool
        if case .instance(let senderKey) = registration.senders {
            isForSender = true
            senders.modifyIfPresent(Self.key(senderKey)) { index in
                for route in index.routes.values
                where registration.isForProtocol || route.mailTypes.contains(registration.mailType) {
                    body(route)
                }
            }
        } else {
            isForSender = false
        }
        if registration.isForProtocol {
            guard !isForSender else { return }
            for route in typeRoutes.values where registration.senders.admits(senderClass: route.senderClass) {
                body(route)
            }
        } else {
            mailTypes.modify(Self.key(registration.mailType), default: MailTypeIndex()) { index in
                updateIndex(&index)
                guard !isForSender else { return }
                // By index: iterating the array itself would retain its storage.
                for position in index.routes.indices {
                    index.routes[position]._withUnsafeGuaranteedRef { route in
                        if registration.senders.admits(senderClass: route.senderClass) {
                            body(route)
                        }
                    }
                }
            }
        }
    }

    /// Drops every route, for the next post of each kind to build again; the posts walking them meanwhile still
    /// see the removals made until they are done.
    private mutating func dropAllRoutes(retiring: inout Garbage) {
        let stamp = Reclamation.stamp()
        let senderRoutes = senders.allValues.flatMap { $0.routes.values }
        droppedRoutes += (Array(typeRoutes.values) + senderRoutes).map { ($0, stamp) }
        typeRoutes = [:]
        mailTypes.modifyAll { $0.routes = [] }
        senders.modifyAll { $0.routes = [:] }
        retiring.append(typeTable.removeAll())
        retiring.append(senderTable.removeAll())
        for index in senders.allValues {
            if let replaced = senderTable.insert(index.identity.address, for: Self.senderKey(index.key)) {
                retiring.append(replaced)
            }
        }
    }

    // MARK: - Unregistering

    /// Removes registration `id`, and drops its queued deliveries that have not started, except when
    /// `reclaiming` a spent one-shot registration: the one delivery it made may still be waiting on its queue.
    mutating func remove(_ id: RecipientId, reclaiming: Bool = false) -> Removal {
        var removal = Removal()
        remove(id, reclaiming: reclaiming, retiring: &removal.retired)
        return removal
    }

    /// Removes the registrations `ids`, like ``remove(_:reclaiming:)``.
    mutating func remove(_ ids: some Sequence<RecipientId>, reclaiming: Bool = false) -> Removal {
        var removal = Removal()
        for id in ids {
            remove(id, reclaiming: reclaiming, retiring: &removal.retired)
        }
        return removal
    }

    /// Removes the registrations a sweep found `dead` (see ``Addition/sweepCandidates``), and schedules the next
    /// sweep for when the registrations have doubled.
    mutating func sweep(removing dead: [RecipientId]) -> Removal {
        defer { nextSweep = max(Self.minimumSweep, records.count * 2) }
        return remove(dead, reclaiming: true)
    }

    private mutating func remove(_ id: RecipientId, reclaiming: Bool, retiring: inout Garbage) {
        guard let (registration, order) = records.find(id) else { return }
        // Held by the slots until it is unlinked; their reference then passes to `retiring`.
        registration._withUnsafeGuaranteedRef {
            unlink($0, id: id, order: order, reclaiming: reclaiming, retiring: &retiring)
        }
        retiring.append(records.remove(id))
    }

    /// Takes the registration `id`, registered `order`-th, out of every index and route (see
    /// ``remove(_:reclaiming:)``).
    private mutating func unlink(
        _ registration: Registration, id: RecipientId, order: UInt, reclaiming: Bool, retiring: inout Garbage
    ) {
        let rank = registration.priority.rank(order: order)
        forEachRoute(
            of: registration,
            updatingIndex: { [records] in records.unchain(id, from: &$0.registrations) },
            visiting: { $0.remove(rank: rank) }
        )
        if !droppedRoutes.isEmpty {
            // Guarded: `removeAll(where:)` copies even an empty array's storage.
            droppedRoutes.removeAll { Reclamation.isFree(since: $0.stamp) }
            for dropped in droppedRoutes {
                dropped.route.remove(rank: rank)
            }
        }
        if !(reclaiming && registration.isSpent) {
            registration.withdraw()
        }
        if registration.isForProtocol {
            conformingIds.removeAll { $0 == id }
        }
        if registration.mayReceiveUndeliveredMail {
            undeliveredMailRecipients.decrement()
        }
        if case .instance(let senderKey) = registration.senders {
            let emptied = senders.modifyIfPresent(Self.key(senderKey)) { index -> Bool in
                index.ids.removeAll { $0 == id }
                return index.ids.isEmpty
            }
            if emptied == true {
                dropSender(senderKey, retiring: &retiring)
            }
        }
        registration.forEachObjectKey { isOwner, key in
            recipients.remove(
                RecipientIndex.Entry(slot: id.slot, isOwner: isOwner), under: Self.key(key), keyOf: recipientKeyOf)
        }
    }

    /// Forgets a sender no registration listens to any more: its identity and its routes.
    private mutating func dropSender(_ senderKey: ObjectIdentifier, retiring: inout Garbage) {
        guard let index = senders[Self.key(senderKey)] else { return }
        senders[Self.key(senderKey)] = nil
        senderTable.remove(Self.senderKey(senderKey))
        retiring.append(index.identity)
        for (mailType, route) in index.routes {
            senderTable.remove(Self.senderKey(senderKey, mailType: mailType))
            retiring.append(route)
        }
    }
}
