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
/// Nothing here releases a registration, route, table or sticky letter, and nothing loads a weak reference:
/// either may run a `deinit` that calls the office. A mutator returns what is left to do instead (an
/// ``Addition``, a ``Removal``, a ``RouteLookup``, the letters it dropped), which ``SortingOffice`` performs
/// once it has unlocked.
///
/// The rules are split by concern: registering and unregistering (`Registry+Registering.swift`), building
/// routes (`Registry+Routes.swift`) and sticky mail (`Registry+StickyMail.swift`). Only those extensions touch
/// the stored properties below.
struct Registry {
    typealias Record = RegistrationSlots.Record

    /// What the office knows about one registered (or posted) mail type.
    struct MailTypeIndex {
        /// Registrations for the type, in registration order.
        var registrations = RegistrationSlots.Chain()
        /// Type routes whose posted mail type is this type or one of its subclasses. Unretained, so that walking
        /// them retains nothing: `typeRoutes` holds them, and they leave both together.
        var routes: [Unmanaged<Route>] = []
    }

    /// The registrations that listen to one exact sender, and the routes built for it.
    struct SenderIndex {
        let key: ObjectIdentifier
        let identity: SenderIdentity
        var ids: [RecipientId] = []
        var routes: [ObjectIdentifier: Route] = [:]
    }

    /// By id.
    let records = RegistrationSlots()
    /// By mail type.
    var mailTypes = WordMap<MailTypeIndex>()
    /// By exact sender.
    var senders = WordMap<SenderIndex>()
    /// The registrations of each recipient, and of each object registrations are tied to.
    var recipients = RecipientIndex()
    /// Registrations for a protocol (not for one exact sender), in order.
    var conformingIds: [RecipientId] = []
    var typeRoutes: [RouteTable.Key: Route] = [:]
    /// Routes dropped while posts may still walk them: removals still clear them, until no post can.
    var droppedRoutes: [(route: Route, stamp: UInt)] = []
    var typeTable: PublishedTable
    var senderTable: PublishedTable
    /// Counts the registrations that may receive ``UndeliveredMail``, for posts to read.
    let undeliveredMailRecipients: AtomicWord
    /// True when the office has an instrumentation, which its routes report posts to.
    let isObserved: Bool
    var stickyLetters: [StickyLetter.Key: StickyLetter] = [:]
    /// The order of the last registration added or sticky letter kept: both are numbered in one sequence.
    var lastOrder: UInt = 0
    /// The number of registrations at which dead ones may have piled up enough to sweep them.
    var nextSweep = Self.minimumSweep

    static let minimumSweep = 64

    init(typeTable: AtomicWord, senderTable: AtomicWord, undeliveredMailRecipients: AtomicWord, isObserved: Bool) {
        self.isObserved = isObserved
        self.typeTable = PublishedTable(cell: typeTable)
        self.senderTable = PublishedTable(cell: senderTable)
        self.undeliveredMailRecipients = undeliveredMailRecipients
    }

    /// The number of registrations held, live or not yet found dead.
    var count: Int { records.count }

    /// True when enough registrations were added since the last sweep that dead ones may have piled up.
    var isSweepDue: Bool { records.count >= nextSweep }

    /// The registrations that can end without being unregistered: with an object, or once delivered.
    var mortalRegistrations: [Record] {
        records.all.filter(\.registration.isMortal)
    }

    /// Every registration held, in the order a post calls them: by priority, then registration order.
    var registrations: [Record] {
        records.all.sorted { $0.rank < $1.rank }
    }

    /// The registrations whose recipient is the object with this identifier, or that were tied to it, in the
    /// order they were registered.
    func registrations(ofRecipient recipientKey: ObjectIdentifier) -> [RecipientId] {
        recipients.entries(under: Self.key(recipientKey), keyOf: recipientKeyOf)
            .map { records.record(at: $0.slot) }
            .sorted { $0.order < $1.order }
            .map(\.id)
    }

    /// The key an entry of ``recipients`` is filed under: its registration's recipient or owner. A closure over the
    /// slots alone, so that it can be passed while ``recipients`` changes.
    var recipientKeyOf: (RecipientIndex.Entry) -> UInt64 {
        { [records] entry in
            let registration = records.record(at: entry.slot).registration
            let key = entry.isOwner ? registration.ownerKey : registration.recipientKey
            return Self.key(key.unsafelyUnwrapped)
        }
    }

    /// Withdraws every registration, so that none of their queued deliveries that has not started runs.
    func dropQueuedDeliveries() {
        for record in records.all {
            record.registration.withdraw()
        }
    }
}
