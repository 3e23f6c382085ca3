extension Route {
    /// The entries of a route as one post sees them: the entries published when the post looked, up to the
    /// count it read then. Registrations appended later are not in it; one cleared later reads as 0.
    struct Snapshot {
        private let words: EntryWords

        /// The snapshot of the route whose ``Route/published`` words are at `published`.
        @inline(__always)
        init(published: UnsafeMutablePointer<UInt>) {
            words = Published(address: published).loadEntries()
        }

        /// The number of entries the post walks.
        @inline(__always)
        var count: Int { words.limit }

        /// The rank of entry `index`.
        @inline(__always)
        func rank(at index: Int) -> UInt {
            words.rank(at: index)
        }

        /// The address of entry `index`'s registration, or 0 once it was removed.
        @inline(__always)
        func registration(at index: Int) -> UInt {
            words.registration(at: index)
        }
    }
}
