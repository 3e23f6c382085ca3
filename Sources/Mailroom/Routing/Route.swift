/// The ordered recipients of one kind of post: one posted mail type, with no sender, a sender of one class,
/// or one exact sender instance.
///
/// A post reads the route without a lock: it loads the address of the current ``Entries`` from ``published``
/// and calls every registration in it, in registration order. Writers (under the office lock) append to the
/// entries in place and clear the entry of a removed registration. When the entries are full or mostly
/// cleared, a writer copies the live ones into new entries and publishes those; the old ones stay with the
/// route, still cleared on every removal, until no post can be walking them. So a registration removed by a
/// handler is never called later in the same post, whichever entries that post walks.
final class Route {
    /// The posted mail type and each of its superclasses: a registration for any of them belongs here.
    let mailTypes: Set<ObjectIdentifier>
    /// The class of the sender for type routes (`nil`: posts without a sender); unused for instance routes.
    let senderClass: AnyClass?
    /// Holds the address of the current entries' memory; the word after it is 1 when posts of the mail type
    /// are kept as sticky mail (its type is ``StickyMail``), set before the route is published.
    let published: AtomicWord

    // Only writers touch these, under the office lock, which already makes every access exclusive: Swift's
    // run-time exclusivity checks on them would only add cost to registering and unregistering.
    @exclusivity(unchecked) private var entries: Entries
    @exclusivity(unchecked) private var retiredEntries: [(entries: Entries, stamp: UInt)] = []

    init(
        mailTypes: Set<ObjectIdentifier>, senderClass: AnyClass?, keepsMail: Bool,
        registrations: [(order: UInt, registration: Registration)]
    ) {
        self.mailTypes = mailTypes
        self.senderClass = senderClass
        entries = Entries(capacity: max(4, registrations.count * 2))
        for (order, registration) in registrations {
            _ = entries.append(order: order, registration)
        }
        let words = UnsafeMutablePointer<UInt>.allocate(capacity: 2)
        words.initialize(to: UInt(bitPattern: entries.address))
        (words + 1).initialize(to: keepsMail ? 1 : 0)
        published = AtomicWord(words)
    }

    /// Whether posts of the route whose ``published`` word is at `published` are kept as sticky mail.
    @inline(__always)
    static func keepsMail(published: UnsafeMutablePointer<UInt>) -> Bool {
        published[1] != 0
    }

    deinit {
        entries.deallocate()
        for old in retiredEntries {
            old.entries.deallocate()
        }
        published.deallocate()
    }

    /// Adds a registration made after every registration already on the route.
    func append(order: UInt, _ registration: Registration) {
        releaseUnreachableEntries()
        if !entries.append(order: order, registration) {
            replaceEntries(capacity: max(4, (entries.liveCount + 1) * 2))
            _ = entries.append(order: order, registration)
        }
    }

    /// Removes a registration from the current entries and from every older entries a post may still walk.
    func remove(order: UInt) {
        entries.clear(order: order)
        if !retiredEntries.isEmpty {
            for index in retiredEntries.indices {
                retiredEntries[index].entries.clear(order: order)
            }
            releaseUnreachableEntries()
        }
        if entries.clearedCount >= 16, entries.clearedCount > entries.liveCount {
            replaceEntries(capacity: max(4, entries.liveCount * 2))
        }
    }

    private func replaceEntries(capacity: Int) {
        var replacement = Entries(capacity: capacity)
        entries.copyLive(to: &replacement)
        published.storeRelease(UInt(bitPattern: replacement.address))
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

extension Route {
    /// The registrations of a route, in registration order, in memory a post reads without a lock:
    /// `[count, (order, registration address) × capacity]`. A cleared entry keeps its order and holds address 0.
    /// The registrations are not retained: the office keeps them alive, and retires them only after clearing
    /// them here.
    ///
    /// A struct, not a class, so that changing a route's entries retains nothing; the route frees their memory
    /// (``deallocate()``), once no post can be walking it.
    struct Entries {
        let address: UnsafeMutablePointer<UInt>
        private let capacity: Int
        private(set) var liveCount = 0
        private(set) var clearedCount = 0

        init(capacity: Int) {
            self.capacity = capacity
            address = .allocate(capacity: 1 + 2 * capacity)
            address.initialize(to: 0)
        }

        func deallocate() {
            address.deallocate()
        }

        private var count: Int { Int(address[0]) }

        mutating func append(order: UInt, _ registration: Registration) -> Bool {
            let count = count
            guard count < capacity else { return false }
            (address + 1 + 2 * count).initialize(to: order)
            (address + 2 + 2 * count).initialize(to: registration.address)
            AtomicWord(address).storeRelease(UInt(count + 1))
            liveCount += 1
            return true
        }

        mutating func clear(order: UInt) {
            let count = count
            // The last entry first: a registration made and removed again is always last, and registrations often
            // go in the reverse order they came (a screen's, when it closes).
            let index = count > 0 && address[2 * count - 1] == order ? count - 1 : firstIndex(notBelow: order)
            guard index < count, address[1 + 2 * index] == order, address[2 + 2 * index] != 0 else { return }
            AtomicWord(address + 2 + 2 * index).storeRelaxed(0)
            liveCount -= 1
            clearedCount += 1
        }

        /// The index of the first entry whose order is `order` or later (`count` if none), by binary search.
        private func firstIndex(notBelow order: UInt) -> Int {
            var low = 0
            var high = count
            while low < high {
                let middle = (low + high) / 2
                if address[1 + 2 * middle] < order { low = middle + 1 } else { high = middle }
            }
            return low
        }

        /// Copies the live entries into `other`, which is empty, large enough and not yet published.
        func copyLive(to other: inout Entries) {
            var copied = 0
            for index in 0..<count where address[2 + 2 * index] != 0 {
                (other.address + 1 + 2 * copied).initialize(to: address[1 + 2 * index])
                (other.address + 2 + 2 * copied).initialize(to: address[2 + 2 * index])
                copied += 1
            }
            other.address[0] = UInt(copied)
            other.liveCount = copied
        }
    }
}

extension Route {
    /// The entries of a route as one post sees them: the entries published when the post looked, up to the
    /// count it read then. Registrations appended later are not in it; one cleared later reads as 0.
    struct Snapshot {
        private let address: UnsafeMutablePointer<UInt>
        let count: Int

        /// The snapshot of the route whose ``Route/published`` word is at `published`.
        @inline(__always)
        init(published: UnsafeMutablePointer<UInt>) {
            address = UnsafeMutablePointer(bitPattern: AtomicWord(published).loadAcquire()).unsafelyUnwrapped
            count = Int(AtomicWord(address).loadAcquire())
        }

        /// The registration order of entry `index`.
        @inline(__always)
        func order(at index: Int) -> UInt {
            address[1 + 2 * index]
        }

        /// The address of entry `index`'s registration, or 0 once it was removed.
        @inline(__always)
        func registration(at index: Int) -> UInt {
            AtomicWord(address + 2 + 2 * index).loadRelaxed()
        }
    }
}
