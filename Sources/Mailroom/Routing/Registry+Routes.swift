extension Registry {
    /// A route that a post reads, found or built, and what publishing it left to the office once it has unlocked.
    struct RouteLookup: ~Copyable {
        let route: Route
        /// The table replaced by a bigger one to publish a new route, to retire: posts may still be reading it.
        var retired: Garbage
    }

    /// The route for posts of `mailType` with no sender (`senderClass == nil`) or a sender of `senderClass`,
    /// built and published on first use. `sample` gives a posted value, asked only when registrations for
    /// protocols must be matched.
    mutating func typeRoute(
        for mailType: any Mail.Type, senderClass: AnyClass?, sample: () -> any Mail
    ) -> RouteLookup {
        let key = Self.typeKey(mailType, senderClass: senderClass)
        var retired = Garbage()
        if let route = typeRoutes[key] { return RouteLookup(route: route, retired: retired) }
        let lineage = Self.lineage(of: mailType)
        let byType = lineage.flatMap { mailTypes[Self.key($0)].map { records.records(in: $0.registrations) } ?? [] }
        let byProtocol =
            conformingIds.isEmpty ? [] : Self.conforming(conformingIds.compactMap { records[$0] }, sample())
        let members = (byType + byProtocol).filter { $0.registration.senders.admits(senderClass: senderClass) }
        var attention: Route.Attention = isObserved ? .isObserved : []
        if mailType is any StickyMail.Type {
            attention.insert(.keepsMail)
        }
        let route = Self.makeRoute(lineage: lineage, senderClass: senderClass, attention: attention, members: members)
        for type in lineage {
            mailTypes.modify(Self.key(type), default: MailTypeIndex()) { $0.routes.append(.passUnretained(route)) }
        }
        typeRoutes[key] = route
        if let replaced = typeTable.insert(UInt(bitPattern: route.published.address), for: key) {
            retired.append(replaced)
        }
        return RouteLookup(route: route, retired: retired)
    }

    /// The route for posts of `mailType` from exactly `sender`, built and published on first use; `nil` when
    /// no registration listens to that sender. `sample` as for ``typeRoute(for:senderClass:sample:)``.
    mutating func instanceRoute(
        for mailType: any Mail.Type, sender: SendableObject, sample: () -> any Mail
    ) -> RouteLookup? {
        let senderKey = ObjectIdentifier(sender)
        guard let index = senders[Self.key(senderKey)] else { return nil }
        var retired = Garbage()
        if let route = index.routes[ObjectIdentifier(mailType)] { return RouteLookup(route: route, retired: retired) }
        let lineage = Self.lineage(of: mailType)
        let exact = index.ids.compactMap { records[$0] }
        let byType = exact.filter { !$0.registration.isForProtocol && lineage.contains($0.registration.mailType) }
        let byProtocol = exact.contains { $0.registration.isForProtocol } ? Self.conforming(exact, sample()) : []
        // A post checks only its type route's attention: the instance route it merges in needs none.
        let route = Self.makeRoute(lineage: lineage, senderClass: nil, attention: [], members: byType + byProtocol)
        senders.modifyIfPresent(Self.key(senderKey)) { $0.routes[ObjectIdentifier(mailType)] = route }
        if let replaced = senderTable.insert(
            UInt(bitPattern: route.published.address),
            for: Self.senderKey(senderKey, mailType: ObjectIdentifier(mailType))
        ) {
            retired.append(replaced)
        }
        return RouteLookup(route: route, retired: retired)
    }

    /// The records, among `records`, of registrations for a protocol that `sample`'s type conforms to.
    private static func conforming(_ records: [Record], _ sample: any Mail) -> [Record] {
        records.filter { $0.registration.conformance?.admits(sample) == true }
    }

    private static func makeRoute(
        lineage: [ObjectIdentifier], senderClass: AnyClass?, attention: Route.Attention, members: [Record]
    ) -> Route {
        Route(
            mailTypes: Set(lineage),
            senderClass: senderClass,
            attention: attention,
            registrations: members.map { ($0.rank, $0.registration) }.sorted { $0.rank < $1.rank }
        )
    }

    /// The mail type and, for a class, each of its superclasses.
    static func lineage(of mailType: Any.Type) -> [ObjectIdentifier] {
        var lineage = [ObjectIdentifier(mailType)]
        var type: AnyClass? = mailType as? AnyClass
        while let superclass = type.flatMap(_getSuperclass) {
            lineage.append(ObjectIdentifier(superclass))
            type = superclass
        }
        return lineage
    }

    // MARK: - Keys

    static func key(_ identifier: ObjectIdentifier) -> UInt64 {
        UInt64(UInt(bitPattern: identifier))
    }

    static func typeKey(_ mailType: Any.Type, senderClass: AnyClass?) -> RouteTable.Key {
        RouteTable.Key(
            first: UInt(bitPattern: ObjectIdentifier(mailType)),
            second: senderClass.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? 0
        )
    }

    /// The key of a sender's identity (`mailType == nil`) or of its route for one mail type.
    static func senderKey(_ sender: ObjectIdentifier, mailType: ObjectIdentifier? = nil) -> RouteTable.Key {
        RouteTable.Key(first: UInt(bitPattern: sender), second: mailType.map { UInt(bitPattern: $0) } ?? 0)
    }
}
