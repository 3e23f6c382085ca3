extension Route {
    /// A route's entries as its writer keeps them, in registration order: their memory (``EntryWords``), which
    /// posts read, and how many of them are live and cleared. A cleared entry keeps its order.
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

        /// Appends `registration`, registered `order`-th, after every entry; false, changing nothing, when full.
        mutating func append(order: UInt, _ registration: Registration) -> Bool {
            let count = words.count
            guard count < words.limit else { return false }
            words.initialize(at: count, order: order, registration: registration.address)
            words.storeCount(count + 1)
            liveCount += 1
            return true
        }

        /// Clears the entry of the registration registered `order`-th, if it is here and live.
        mutating func clear(order: UInt) {
            let count = words.count
            // The last entry first: a registration made and removed again is always last, and registrations often
            // go in the reverse order they came (a screen's, when it closes).
            let index =
                count > 0 && words.order(at: count - 1) == order
                ? count - 1 : firstIndex(notBelow: order, count: count)
            guard index < count, words.order(at: index) == order, words.writtenRegistration(at: index) != 0 else {
                return
            }
            words.clearRegistration(at: index)
            liveCount -= 1
            clearedCount += 1
        }

        /// The index of the first of the `count` entries whose order is `order` or later (`count` if none), by
        /// binary search.
        private func firstIndex(notBelow order: UInt, count: Int) -> Int {
            var low = 0
            var high = count
            while low < high {
                let middle = (low + high) / 2
                if words.order(at: middle) < order { low = middle + 1 } else { high = middle }
            }
            return low
        }

        /// Copies the live entries into `other`, which is empty, large enough and not yet published.
        func copyLive(to other: inout Entries) {
            var copied = 0
            for index in 0..<words.count {
                let registration = words.writtenRegistration(at: index)
                if registration != 0 {
                    other.words.initialize(at: copied, order: words.order(at: index), registration: registration)
                    copied += 1
                }
            }
            other.words.storeCount(copied)
            other.liveCount = copied
        }
    }
}
