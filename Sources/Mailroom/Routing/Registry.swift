/// The registrations of one office and the routes built from them: the rules, without the locking.
///
/// Every method runs under the office lock. Routes are built the first time a kind of post is made (a mail
/// type, with no sender, a sender of one class, or one exact sender) and are kept up to date from then on:
/// a new registration is appended to each route it belongs to, a removed one is cleared from them. So the
/// cost of a post depends only on the registrations it reaches.
///
/// Nothing here releases a registration, route or table: whatever a reader might still reach is appended
/// to `garbage`, which the caller retires after unlocking.
struct Registry {
    private struct Record {
        let registration: Registration
        /// Registration order within the office; routes are sorted by it.
        let order: UInt
        var routes: [Route] = []
    }

    /// What the office knows about one registered (or posted) mail type.
    private struct MailTypeIndex {
        /// Registrations for the type, in order; ids already removed are skipped, and dropped in bulk.
        var ids: [RecipientId] = []
        var removedIds = 0
        /// Type routes whose posted mail type is this type or one of its subclasses.
        var routes: [Route] = []
    }

    /// The registrations that listen to one exact sender, and the routes built for it.
    private struct SenderIndex {
        let identity: SenderIdentity
        var ids: [RecipientId] = []
        var routes: [ObjectIdentifier: Route] = [:]
    }

    private var records: [RecipientId: Record] = [:]
    private var mailTypes: [ObjectIdentifier: MailTypeIndex] = [:]
    private var senders: [ObjectIdentifier: SenderIndex] = [:]
    private var recipients: [ObjectIdentifier: [RecipientId]] = [:]
    private var typeRoutes: [RouteTable.Key: Route] = [:]
    private var typeTable: PublishedTable
    private var senderTable: PublishedTable
    private var lastOrder: UInt = 0
    private var nextSweep = Self.minimumSweep

    private static let minimumSweep = 64

    init(typeTable: AtomicWord, senderTable: AtomicWord) {
        self.typeTable = PublishedTable(cell: typeTable)
        self.senderTable = PublishedTable(cell: senderTable)
    }

    /// The number of registrations held, live or not yet found dead.
    var count: Int { records.count }

    /// True when enough registrations were added since the last sweep that dead ones may have piled up.
    var isSweepDue: Bool { records.count >= nextSweep }

    /// The registrations that die with an object: method recipients and exact senders.
    var mortalRegistrations: [Registration] {
        records.values.map(\.registration).filter { $0.recipientKey != nil || $0.senders.isInstance }
    }

    /// Records that a sweep was made, so the next is due when the registrations have doubled.
    mutating func swept() {
        nextSweep = max(Self.minimumSweep, records.count * 2)
    }

    // MARK: - Registering

    mutating func add(_ registration: Registration, garbage: inout [AnyObject]) {
        lastOrder += 1
        var record = Record(registration: registration, order: lastOrder)
        mailTypes[registration.mailType, default: MailTypeIndex()].ids.append(registration.id)
        if case .instance(let senderKey) = registration.senders {
            addExact(&record, sender: senderKey, garbage: &garbage)
        } else {
            for route in mailTypes[registration.mailType]?.routes ?? []
            where registration.senders.admits(senderClass: route.senderClass) {
                route.append(order: record.order, registration)
                record.routes.append(route)
            }
        }
        if let recipientKey = registration.recipientKey {
            recipients[recipientKey, default: []].append(registration.id)
        }
        records[registration.id] = record
    }

    private mutating func addExact(
        _ record: inout Record, sender senderKey: ObjectIdentifier, garbage: inout [AnyObject]
    ) {
        let registration = record.registration
        if senders[senderKey] == nil, let sender = registration.sender {
            let identity = SenderIdentity(sender)
            senders[senderKey] = SenderIndex(identity: identity)
            senderTable.insert(identity.address, for: Self.senderKey(senderKey), garbage: &garbage)
        }
        senders[senderKey]?.ids.append(registration.id)
        for route in senders[senderKey]?.routes.values ?? [:].values
        where route.mailTypes.contains(registration.mailType) {
            route.append(order: record.order, registration)
            record.routes.append(route)
        }
    }

    // MARK: - Unregistering

    mutating func remove(_ id: RecipientId, garbage: inout [AnyObject]) {
        guard let record = records.removeValue(forKey: id) else { return }
        let registration = record.registration
        for route in record.routes {
            route.remove(order: record.order)
        }
        registration.standing?.lower()
        dropId(id, ofMailType: registration.mailType)
        if case .instance(let senderKey) = registration.senders {
            senders[senderKey]?.ids.removeAll { $0 == id }
            if senders[senderKey]?.ids.isEmpty == true {
                dropSender(senderKey, garbage: &garbage)
            }
        }
        if let recipientKey = registration.recipientKey {
            recipients[recipientKey]?.removeAll { $0 == id }
            if recipients[recipientKey]?.isEmpty == true {
                recipients[recipientKey] = nil
            }
        }
        garbage.append(registration)
    }

    mutating func remove(_ ids: some Sequence<RecipientId>, garbage: inout [AnyObject]) {
        for id in ids {
            remove(id, garbage: &garbage)
        }
    }

    /// Lowers every registration's standing, so that none of their queued deliveries that has not started runs.
    func dropQueuedDeliveries() {
        for record in records.values {
            record.registration.standing?.lower()
        }
    }

    /// The method registrations whose recipient is the object with this identifier.
    func registrations(ofRecipient recipientKey: ObjectIdentifier) -> [RecipientId] {
        recipients[recipientKey] ?? []
    }

    private mutating func dropId(_ id: RecipientId, ofMailType mailType: ObjectIdentifier) {
        guard var index = mailTypes[mailType] else { return }
        index.removedIds += 1
        if index.removedIds > 16, index.removedIds * 2 > index.ids.count {
            index.ids.removeAll { records[$0] == nil }
            index.removedIds = 0
        }
        mailTypes[mailType] = index
    }

    private mutating func dropSender(_ senderKey: ObjectIdentifier, garbage: inout [AnyObject]) {
        guard let index = senders.removeValue(forKey: senderKey) else { return }
        senderTable.remove(Self.senderKey(senderKey))
        garbage.append(index.identity)
        for (mailType, route) in index.routes {
            senderTable.remove(Self.senderKey(senderKey, mailType: mailType))
            garbage.append(route)
        }
    }

    // MARK: - Routes

    /// The route for posts of `mailType` with no sender (`senderClass == nil`) or a sender of `senderClass`,
    /// built and published on first use.
    mutating func typeRoute(for mailType: Any.Type, senderClass: AnyClass?, garbage: inout [AnyObject]) -> Route {
        let key = Self.typeKey(mailType, senderClass: senderClass)
        if let route = typeRoutes[key] { return route }
        let lineage = Self.lineage(of: mailType)
        let members = lineage.flatMap { mailTypes[$0]?.ids ?? [] }.compactMap { records[$0] }
            .filter { $0.registration.senders.admits(senderClass: senderClass) }
        let route = makeRoute(lineage: lineage, senderClass: senderClass, members: members)
        for type in lineage {
            mailTypes[type, default: MailTypeIndex()].routes.append(route)
        }
        typeRoutes[key] = route
        typeTable.insert(UInt(bitPattern: route.published.address), for: key, garbage: &garbage)
        return route
    }

    /// The route for posts of `mailType` from exactly `sender`, built and published on first use; `nil` when
    /// no registration listens to that sender.
    mutating func instanceRoute(for mailType: Any.Type, sender: SendableObject, garbage: inout [AnyObject]) -> Route? {
        let senderKey = ObjectIdentifier(sender)
        guard let index = senders[senderKey] else { return nil }
        if let route = index.routes[ObjectIdentifier(mailType)] { return route }
        let lineage = Self.lineage(of: mailType)
        let members = index.ids.compactMap { records[$0] }.filter { lineage.contains($0.registration.mailType) }
        let route = makeRoute(lineage: lineage, senderClass: nil, members: members)
        senders[senderKey]?.routes[ObjectIdentifier(mailType)] = route
        senderTable.insert(
            UInt(bitPattern: route.published.address),
            for: Self.senderKey(senderKey, mailType: ObjectIdentifier(mailType)),
            garbage: &garbage
        )
        return route
    }

    private mutating func makeRoute(lineage: [ObjectIdentifier], senderClass: AnyClass?, members: [Record]) -> Route {
        let members = members.sorted { $0.order < $1.order }
        let route = Route(
            mailTypes: Set(lineage),
            senderClass: senderClass,
            registrations: members.map { ($0.order, $0.registration) }
        )
        for member in members {
            records[member.registration.id]?.routes.append(route)
        }
        return route
    }

    /// The mail type and, for a class, each of its superclasses.
    private static func lineage(of mailType: Any.Type) -> [ObjectIdentifier] {
        var lineage = [ObjectIdentifier(mailType)]
        var type: AnyClass? = mailType as? AnyClass
        while let superclass = type.flatMap(_getSuperclass) {
            lineage.append(ObjectIdentifier(superclass))
            type = superclass
        }
        return lineage
    }

    // MARK: - Keys of the published tables

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

/// Keeps an exact sender's address from being reused while the office has routes for it.
///
/// Routes for a sender are published under its address. An `unowned` reference keeps the object's memory
/// allocated after it deinitializes (it does not keep it alive), so no other object can take that address
/// until the office drops this identity; a post that finds a route under a sender's address therefore has
/// the sender the route was built for, without loading a weak reference.
final class SenderIdentity: Sendable {
    unowned let object: SendableObject

    init(_ object: SendableObject) {
        self.object = object
    }

    var address: UInt { UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()) }
}

/// A ``RouteTable`` whose current version is published in a word that posts read.
struct PublishedTable {
    private var table = RouteTable()
    private let cell: AtomicWord

    init(cell: AtomicWord) {
        self.cell = cell
        cell.storeRelease(UInt(bitPattern: table.address))
    }

    mutating func insert(_ value: UInt, for key: RouteTable.Key, garbage: inout [AnyObject]) {
        guard !table.insert(value, for: key) else { return }
        let grown = table.grown()
        _ = grown.insert(value, for: key)
        cell.storeRelease(UInt(bitPattern: grown.address))
        garbage.append(table)
        table = grown
    }

    func remove(_ key: RouteTable.Key) {
        table.remove(key)
    }
}
