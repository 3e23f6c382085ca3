/// The ordered recipients of one kind of post: one posted mail type, with no sender, a sender of one class,
/// or one exact sender instance.
///
/// A post reads the route without a lock: it finds the route's ``Published`` words, loads the current
/// ``Entries`` from them and calls every registration in them, by rank (``Snapshot``): by ``Priority``, then
/// registration order. Writers (under the office lock) append to the entries in place and clear the entry of a
/// removed registration. When the entries are full or mostly cleared, or a new registration goes before one of
/// them, a writer copies the live ones (with the new one in its place) into new entries and publishes those;
/// the old ones stay with the route, still cleared on every removal, until no post can be walking them. So a
/// registration removed by a handler is never called later in the same post, whichever entries that post walks.
final class Route {
    /// The posted mail type and each of its superclasses: a registration for any of them belongs here.
    let mailTypes: Set<ObjectIdentifier>
    /// The class of the sender for type routes (`nil`: posts without a sender); unused for instance routes.
    let senderClass: AnyClass?
    /// The words posts find the route by: tables store their address.
    let published: Published

    // Only writers touch these, under the office lock, which already makes every access exclusive: Swift's
    // run-time exclusivity checks on them would only add cost to registering and unregistering.
    @exclusivity(unchecked) private var entries: Entries
    @exclusivity(unchecked) private var retiredEntries: [(entries: Entries, stamp: UInt)] = []

    init(
        mailTypes: Set<ObjectIdentifier>, senderClass: AnyClass?, attention: Attention,
        registrations: [(rank: UInt, registration: Registration)]
    ) {
        self.mailTypes = mailTypes
        self.senderClass = senderClass
        entries = Entries(capacity: max(4, registrations.count * 2))
        for (rank, registration) in registrations {
            _ = entries.append(rank: rank, registration)
        }
        published = Published.allocate(entries: entries.words, attention: attention)
    }

    /// What a post along a route does besides delivering: nothing, for most routes.
    struct Attention: OptionSet {
        let rawValue: UInt

        /// Posts of the route's mail type are kept as sticky mail (the type is a ``StickyMail``).
        static let keepsMail = Attention(rawValue: 1)
        /// Posts are reported to the office's instrumentation (``MailInstrumentation/posted(_:)``).
        static let isObserved = Attention(rawValue: 2)
    }

    /// What a post along the route whose ``published`` words are at `published` does besides delivering.
    @inline(__always)
    static func attention(published: UnsafeMutablePointer<UInt>) -> Attention {
        Published(address: published).attention
    }

    deinit {
        entries.deallocate()
        for old in retiredEntries {
            old.entries.deallocate()
        }
        published.deallocate()
    }

    /// Adds a registration of `rank`, in its place: appended in place when it comes after every entry (always, in
    /// an office whose registrations all have the same priority), otherwise in new entries, which a post already
    /// walking the old ones does not see, as for any registration added during a post.
    func insert(rank: UInt, _ registration: Registration) {
        releaseUnreachableEntries()
        if entries.comesLast(rank), entries.append(rank: rank, registration) {
            return
        }
        replaceEntries(capacity: max(4, (entries.liveCount + 1) * 2), inserting: (rank, registration))
    }

    /// Removes a registration from the current entries and from every older entries a post may still walk.
    ///
    /// Always inlined: every unregister runs it once per route of the registration, and the call, with the
    /// registers it saves, would cost each of them more than the code inlining copies.
    @inline(__always)
    func remove(rank: UInt) {
        entries.clear(rank: rank)
        if !retiredEntries.isEmpty {
            for index in retiredEntries.indices {
                retiredEntries[index].entries.clear(rank: rank)
            }
            releaseUnreachableEntries()
        }
        if entries.clearedCount >= 16, entries.clearedCount > entries.liveCount {
            replaceEntries(capacity: max(4, entries.liveCount * 2))
        }
    }

    private func replaceEntries(capacity: Int, inserting insertion: (rank: UInt, registration: Registration)? = nil) {
        var replacement = Entries(capacity: capacity)
        entries.copyLive(to: &replacement, inserting: insertion)
        published.publish(replacement.words)
        retiredEntries.append((entries, Reclamation.stamp()))
        entries = replacement
    }

    /// Frees the retired entries no post can be walking any more.
    private func releaseUnreachableEntries() {
        while let oldest = retiredEntries.first, Reclamation.isFree(since: oldest.stamp) {
            oldest.entries.deallocate()
            retiredEntries.removeFirst()
        }
    }
}
