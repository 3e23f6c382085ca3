/// The registrations of one office and the routes built from them: the rules, without the locking.
///
/// Every method runs under the office lock. Routes are built the first time a kind of post is made (a mail
/// type, with no sender, a sender of one class, or one exact sender) and are kept up to date from then on:
/// a new registration is appended to each route it belongs to, a removed one is cleared from them. So the
/// cost of a post depends only on the registrations it reaches.
///
/// A registration for a protocol is the exception: which posted types conform can only be asked of a posted
/// value, so adding one drops every route, and each is built again, with a value, by its next post.
///
/// Nothing here releases a registration, route or table: whatever a reader might still reach is appended
/// to `garbage`, which the caller retires after unlocking.
struct Registry {
    private typealias Record = RegistrationSlots.Record

    /// What the office knows about one registered (or posted) mail type.
    private struct MailTypeIndex {
        /// Registrations for the type, in registration order.
        var registrations = RegistrationSlots.Chain()
        /// Type routes whose posted mail type is this type or one of its subclasses. Unretained, so that walking
        /// them retains nothing: `typeRoutes` holds them, and they leave both together.
        var routes: [Unmanaged<Route>] = []
    }

    /// The registrations that listen to one exact sender, and the routes built for it.
    private struct SenderIndex {
        let key: ObjectIdentifier
        let identity: SenderIdentity
        var ids: [RecipientId] = []
        var routes: [ObjectIdentifier: Route] = [:]
    }

    /// By id.
    private let records = RegistrationSlots()
    /// By mail type.
    private var mailTypes = WordMap<MailTypeIndex>()
    /// By exact sender.
    private var senders = WordMap<SenderIndex>()
    /// The method registrations of each recipient.
    private var recipients = WordMap<[RecipientId]>()
    /// Registrations for a protocol (not for one exact sender), in order.
    private var conformingIds: [RecipientId] = []
    private var typeRoutes: [RouteTable.Key: Route] = [:]
    /// Routes dropped while posts may still walk them: removals still clear them, until no post can.
    private var droppedRoutes: [(route: Route, stamp: UInt)] = []
    private var typeTable: PublishedTable
    private var senderTable: PublishedTable
    /// Counts the registrations that may receive ``UndeliveredMail``, for posts to read.
    private let undeliveredMailRecipients: AtomicWord
    private var stickyLetters: [StickyLetter.Key: StickyLetter] = [:]
    private var lastOrder: UInt = 0
    private var nextSweep = Self.minimumSweep

    private static let minimumSweep = 64

    init(typeTable: AtomicWord, senderTable: AtomicWord, undeliveredMailRecipients: AtomicWord) {
        self.typeTable = PublishedTable(cell: typeTable)
        self.senderTable = PublishedTable(cell: senderTable)
        self.undeliveredMailRecipients = undeliveredMailRecipients
    }

    /// The number of registrations held, live or not yet found dead.
    var count: Int { records.count }

    /// True when enough registrations were added since the last sweep that dead ones may have piled up.
    var isSweepDue: Bool { records.count >= nextSweep }

    /// The registrations that can end without being unregistered: with an object, or once delivered.
    var mortalRegistrations: [RegistrationSlots.Record] {
        records.all.filter(\.registration.isMortal)
    }

    /// Every registration held, in registration order.
    var registrations: [RegistrationSlots.Record] {
        records.all.sorted { $0.order < $1.order }
    }

    /// Records that a sweep was made, so the next is due when the registrations have doubled.
    mutating func swept() {
        nextSweep = max(Self.minimumSweep, records.count * 2)
    }

    // MARK: - Registering

    /// Adds `registration`, taking over the reference the caller passes, and returns its id.
    mutating func add(_ registration: Unmanaged<Registration>, garbage: inout Garbage) -> RecipientId {
        lastOrder += 1
        let order = lastOrder
        let id = records.insert(registration, order: order)
        // The reference is the slots' now; meanwhile the registration is used without retaining it.
        registration._withUnsafeGuaranteedRef { link($0, id: id, order: order, garbage: &garbage) }
        return id
    }

    /// Puts the registration `id`, registered `order`-th, into every index and route it belongs to.
    private mutating func link(_ registration: Registration, id: RecipientId, order: UInt, garbage: inout Garbage) {
        if case .instance(let senderKey) = registration.senders, let sender = registration.sender {
            if !senders.contains(Self.key(senderKey)) {
                let identity = SenderIdentity(sender)
                senders[Self.key(senderKey)] = SenderIndex(key: senderKey, identity: identity)
                senderTable.insert(identity.address, for: Self.senderKey(senderKey), garbage: &garbage)
            }
            senders.modifyIfPresent(Self.key(senderKey)) { $0.ids.append(id) }
        }
        if registration.isForProtocol {
            if !registration.senders.isInstance {
                conformingIds.append(id)
            }
            dropAllRoutes(garbage: &garbage)
        } else {
            forEachRoute(
                of: registration,
                updatingIndex: { [records] in records.append(id, to: &$0.registrations) },
                visiting: { $0.append(order: order, registration) }
            )
        }
        if let recipientKey = registration.recipientKey {
            recipients.modify(Self.key(recipientKey), default: []) { $0.append(id) }
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
    private mutating func dropAllRoutes(garbage: inout Garbage) {
        let stamp = Reclamation.stamp()
        let senderRoutes = senders.allValues.flatMap { $0.routes.values }
        droppedRoutes += (Array(typeRoutes.values) + senderRoutes).map { ($0, stamp) }
        typeRoutes = [:]
        mailTypes.modifyAll { $0.routes = [] }
        senders.modifyAll { $0.routes = [:] }
        typeTable.removeAll(garbage: &garbage)
        senderTable.removeAll(garbage: &garbage)
        for index in senders.allValues {
            senderTable.insert(index.identity.address, for: Self.senderKey(index.key), garbage: &garbage)
        }
    }

    // MARK: - Unregistering

    /// Removes registration `id`, and drops its queued deliveries that have not started, except when
    /// `reclaiming` a spent one-shot registration: the one delivery it made may still be waiting on its queue.
    mutating func remove(_ id: RecipientId, reclaiming: Bool = false, garbage: inout Garbage) {
        guard let (registration, order) = records.find(id) else { return }
        // Held by the slots until it is unlinked; their reference then passes to `garbage`.
        registration._withUnsafeGuaranteedRef {
            unlink($0, id: id, order: order, reclaiming: reclaiming, garbage: &garbage)
        }
        garbage.append(records.remove(id))
    }

    /// Takes the registration `id`, registered `order`-th, out of every index and route (see ``remove(_:reclaiming:garbage:)``).
    private mutating func unlink(
        _ registration: Registration, id: RecipientId, order: UInt, reclaiming: Bool, garbage: inout Garbage
    ) {
        forEachRoute(
            of: registration,
            updatingIndex: { [records] in records.unchain(id, from: &$0.registrations) },
            visiting: { $0.remove(order: order) }
        )
        if !droppedRoutes.isEmpty {
            // Guarded: `removeAll(where:)` copies even an empty array's storage.
            droppedRoutes.removeAll { Reclamation.isFree(since: $0.stamp) }
            for dropped in droppedRoutes {
                dropped.route.remove(order: order)
            }
        }
        if !(reclaiming && registration.isSpent) {
            registration.standing?.lower()
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
                dropSender(senderKey, garbage: &garbage)
            }
        }
        if let recipientKey = registration.recipientKey {
            let emptied = recipients.modifyIfPresent(Self.key(recipientKey)) { ids -> Bool in
                ids.removeAll { $0 == id }
                return ids.isEmpty
            }
            if emptied == true {
                recipients[Self.key(recipientKey)] = nil
            }
        }
    }

    mutating func remove(_ ids: some Sequence<RecipientId>, reclaiming: Bool = false, garbage: inout Garbage) {
        for id in ids {
            remove(id, reclaiming: reclaiming, garbage: &garbage)
        }
    }

    /// Lowers every registration's standing, so that none of their queued deliveries that has not started runs.
    func dropQueuedDeliveries() {
        for record in records.all {
            record.registration.standing?.lower()
        }
    }

    /// The method registrations whose recipient is the object with this identifier.
    func registrations(ofRecipient recipientKey: ObjectIdentifier) -> [RecipientId] {
        recipients[Self.key(recipientKey)] ?? []
    }

    private mutating func dropSender(_ senderKey: ObjectIdentifier, garbage: inout Garbage) {
        guard let index = senders[Self.key(senderKey)] else { return }
        senders[Self.key(senderKey)] = nil
        senderTable.remove(Self.senderKey(senderKey))
        garbage.append(index.identity)
        for (mailType, route) in index.routes {
            senderTable.remove(Self.senderKey(senderKey, mailType: mailType))
            garbage.append(route)
        }
    }

    // MARK: - Sticky mail

    /// Keeps `letter` as the last mail of its type from its sender, replacing the one kept before, and numbers
    /// it in the order registrations are numbered: a registration replays only letters kept before it was added.
    /// - Returns: The letter it replaced, for the caller to release outside the lock (its mail's `deinit` may
    ///   call the office).
    mutating func keep(_ letter: StickyLetter) -> StickyLetter? {
        var letter = letter
        lastOrder += 1
        letter.number = lastOrder
        return stickyLetters.updateValue(letter, forKey: letter.key)
    }

    /// Forgets the sticky mail of `mailType` and its subclasses: from every sender (`sender == nil`) or from one.
    /// - Returns: The letters forgotten, for the caller to release outside the lock.
    mutating func clearStickyMail(_ mailType: ObjectIdentifier, sender: StickyLetter.SenderKey?) -> [StickyLetter] {
        let forgotten = stickyLetters.values.filter { letter in
            Self.lineage(of: type(of: letter.mail)).contains(mailType) && (sender == nil || letter.senderKey == sender)
        }
        for letter in forgotten {
            stickyLetters[letter.key] = nil
        }
        return forgotten
    }

    /// The sticky mail the registration would receive if it were posted now, oldest kept first, with the
    /// registration; `nil` for an unknown id. Letters kept after the registration was added are left out: their
    /// posts already reached it. (The caller checks the senders are alive, outside the lock.)
    func stickyLetters(for id: RecipientId) -> (Registration, [StickyLetter])? {
        guard let record = records[id] else { return nil }
        let letters = stickyLetters.values
            .filter { $0.number < record.order && $0.isAccepted(by: record.registration) }
            .sorted { $0.number < $1.number }
        return (record.registration, letters)
    }

    /// Forgets the letters whose sender has gone (found by the caller, outside the lock).
    mutating func forget(_ letters: [StickyLetter]) {
        for letter in letters where stickyLetters[letter.key]?.number == letter.number {
            stickyLetters[letter.key] = nil
        }
    }

    // MARK: - Routes

    /// The route for posts of `mailType` with no sender (`senderClass == nil`) or a sender of `senderClass`,
    /// built and published on first use. `sample` gives a posted value, asked only when registrations for
    /// protocols must be matched.
    mutating func typeRoute(
        for mailType: any Mail.Type, senderClass: AnyClass?, sample: () -> any Mail, garbage: inout Garbage
    ) -> Route {
        let key = Self.typeKey(mailType, senderClass: senderClass)
        if let route = typeRoutes[key] { return route }
        let lineage = Self.lineage(of: mailType)
        let byType = lineage.flatMap { mailTypes[Self.key($0)].map { records.records(in: $0.registrations) } ?? [] }
        let byProtocol =
            conformingIds.isEmpty ? [] : Self.conforming(conformingIds.compactMap { records[$0] }, sample())
        let members = (byType + byProtocol).filter { $0.registration.senders.admits(senderClass: senderClass) }
        let route = Self.makeRoute(
            lineage: lineage, senderClass: senderClass, keepsMail: mailType is any StickyMail.Type, members: members
        )
        for type in lineage {
            mailTypes.modify(Self.key(type), default: MailTypeIndex()) { $0.routes.append(.passUnretained(route)) }
        }
        typeRoutes[key] = route
        typeTable.insert(UInt(bitPattern: route.published.address), for: key, garbage: &garbage)
        return route
    }

    /// The route for posts of `mailType` from exactly `sender`, built and published on first use; `nil` when
    /// no registration listens to that sender. `sample` as for ``typeRoute(for:senderClass:sample:garbage:)``.
    mutating func instanceRoute(
        for mailType: any Mail.Type, sender: SendableObject, sample: () -> any Mail, garbage: inout Garbage
    ) -> Route? {
        let senderKey = ObjectIdentifier(sender)
        guard let index = senders[Self.key(senderKey)] else { return nil }
        if let route = index.routes[ObjectIdentifier(mailType)] { return route }
        let lineage = Self.lineage(of: mailType)
        let exact = index.ids.compactMap { records[$0] }
        let byType = exact.filter { !$0.registration.isForProtocol && lineage.contains($0.registration.mailType) }
        let byProtocol = exact.contains { $0.registration.isForProtocol } ? Self.conforming(exact, sample()) : []
        let route = Self.makeRoute(lineage: lineage, senderClass: nil, keepsMail: false, members: byType + byProtocol)
        senders.modifyIfPresent(Self.key(senderKey)) { $0.routes[ObjectIdentifier(mailType)] = route }
        senderTable.insert(
            UInt(bitPattern: route.published.address),
            for: Self.senderKey(senderKey, mailType: ObjectIdentifier(mailType)),
            garbage: &garbage
        )
        return route
    }

    /// The records, among `records`, of registrations for a protocol that `sample`'s type conforms to.
    private static func conforming(_ records: [Record], _ sample: any Mail) -> [Record] {
        records.filter { $0.registration.conformance?.admits(sample) == true }
    }

    private static func makeRoute(
        lineage: [ObjectIdentifier], senderClass: AnyClass?, keepsMail: Bool, members: [Record]
    ) -> Route {
        Route(
            mailTypes: Set(lineage),
            senderClass: senderClass,
            keepsMail: keepsMail,
            registrations: members.sorted { $0.order < $1.order }.map { ($0.order, $0.registration) }
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

    mutating func insert(_ value: UInt, for key: RouteTable.Key, garbage: inout Garbage) {
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

    /// Publishes an empty table in place of this one.
    mutating func removeAll(garbage: inout Garbage) {
        let empty = RouteTable()
        cell.storeRelease(UInt(bitPattern: empty.address))
        garbage.append(table)
        table = empty
    }
}
