extension Route {
    /// A route's entries as its writer keeps them, sorted by rank (see ``Priority``): their memory
    /// (``EntryWords``), which posts read, and how many of them are live and cleared. A cleared entry keeps its
    /// rank.
    ///
    /// A struct, not a class, so that changing a route's entries retains nothing; the route frees their memory
    /// (``deallocate()``) once no post can be walking it.
    struct Entries {
        /// The memory, with room for ``EntryWords/limit`` entries.
        let words: EntryWords
        private(set) var liveCount = 0
        private(set) var clearedCount = 0

        init(capacity: Int) {
            words = .allocate(capacity: capacity)
        }

        func deallocate() {
            words.deallocate()
        }

        /// True when an entry of `rank` would come after every entry, live or cleared: it can be appended.
        func comesLast(_ rank: UInt) -> Bool {
            let count = words.count
            return count == 0 || words.rank(at: count - 1) < rank
        }

        /// Appends `registration`, of `rank`, which comes last (``comesLast(_:)``); false, changing nothing, when
        /// full.
        mutating func append(rank: UInt, _ registration: Registration) -> Bool {
            assert(comesLast(rank), "rank \(rank) does not come after every entry")
            let count = words.count
            guard count < words.limit else { return false }
            words.initialize(at: count, rank: rank, registration: registration.address)
            words.storeCount(count + 1)
            liveCount += 1
            return true
        }

        /// Clears the entry of the registration of `rank`, if it is here and live. Inlined into
        /// ``Route/remove(rank:)``, which every unregister runs once per route.
        @inline(__always)
        mutating func clear(rank: UInt) {
            let count = words.count
            // The last entry first: a registration made and removed again is usually last, and registrations often
            // go in the reverse order they came (a screen's, when it closes).
            let index =
                count > 0 && words.rank(at: count - 1) == rank
                ? count - 1 : firstIndex(notBelow: rank, count: count)
            guard index < count, words.rank(at: index) == rank, words.writtenRegistration(at: index) != 0 else {
                return
            }
            words.clearRegistration(at: index)
            liveCount -= 1
            clearedCount += 1
        }

        /// The index of the first of the `count` entries whose rank is `rank` or later (`count` if none), by
        /// binary search.
        private func firstIndex(notBelow rank: UInt, count: Int) -> Int {
            var low = 0
            var high = count
            while low < high {
                let middle = (low + high) / 2
                if words.rank(at: middle) < rank { low = middle + 1 } else { high = middle }
            }
            return low
        }

        /// Copies the live entries into `other`, which is empty, large enough and not yet published, with
        /// `insertion`, if given, in its place by rank.
        func copyLive(to other: inout Entries, inserting insertion: (rank: UInt, registration: Registration)? = nil) {
            var copied = 0
            var pending = insertion
            for index in 0..<words.count {
                let registration = words.writtenRegistration(at: index)
                guard registration != 0 else { continue }
                let rank = words.rank(at: index)
                if let inserted = pending, inserted.rank < rank {
                    other.words.initialize(at: copied, rank: inserted.rank, registration: inserted.registration.address)
                    copied += 1
                    pending = nil
                }
                other.words.initialize(at: copied, rank: rank, registration: registration)
                copied += 1
            }
            if let inserted = pending {
                other.words.initialize(at: copied, rank: inserted.rank, registration: inserted.registration.address)
                copied += 1
            }
            other.words.storeCount(copied)
            other.liveCount = copied
        }
    }
}
