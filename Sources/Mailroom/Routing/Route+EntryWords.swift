extension Route {
    /// The memory of a route's entries, which posts read without a lock. The only code that computes an address
    /// in it; in debug builds every access asserts that its entry is below ``limit``.
    ///
    /// Layout, in words, with room for `capacity` entries:
    /// `[count, rank 0, registration 0, rank 1, registration 1, …, rank capacity-1, registration capacity-1]`
    /// - `count`: the entries appended so far. The writer fills an entry, then stores the new count with a
    ///   release store; a post loads it with an acquire load, so every entry below it is complete.
    /// - `rank i`: the rank of entry `i` (see ``Priority``), written once, before the count covers it. Entries are
    ///   sorted by it.
    /// - `registration i`: the address of entry `i`'s ``Registration``, not retained (the office keeps it alive
    ///   and retires it only after clearing it here); 0 once it was removed. Posts read it while the writer
    ///   clears it, so both use atomic (relaxed) operations.
    ///
    /// A handle, not an owner: whoever allocates the memory frees it (``deallocate()``).
    struct EntryWords {
        /// The first word (`count`): what ``Published`` stores for posts to find.
        let address: UnsafeMutablePointer<UInt>
        /// How many entries this handle may reach: the capacity for a writer, the count it loaded for a post.
        let limit: Int

        private static let headerWords = 1
        private static let wordsPerEntry = 2

        /// New memory with room for `capacity` entries, none appended.
        static func allocate(capacity: Int) -> EntryWords {
            let address = UnsafeMutablePointer<UInt>.allocate(capacity: headerWords + wordsPerEntry * capacity)
            address.initialize(to: 0)
            return EntryWords(address: address, limit: capacity)
        }

        /// The entries at `address` as a post may read them: up to the count published there now.
        @inline(__always)
        static func published(at address: UnsafeMutablePointer<UInt>) -> EntryWords {
            EntryWords(address: address, limit: Int(AtomicWord(address).loadAcquire()))
        }

        func deallocate() {
            address.deallocate()
        }

        /// The number of entries appended, as the writer, which alone changes it, sees it.
        var count: Int {
            Int(address.pointee)
        }

        /// Makes entries `0..<count`, fully written, visible to every post that loads the count after this.
        func storeCount(_ count: Int) {
            assert(count >= 0 && count <= limit, "count \(count) is outside 0...\(limit)")
            AtomicWord(address).storeRelease(UInt(count))
        }

        /// The rank of entry `index`.
        @inline(__always)
        func rank(at index: Int) -> UInt {
            rankWord(at: index).pointee
        }

        /// The address of entry `index`'s registration, or 0 once it was removed.
        @inline(__always)
        func registration(at index: Int) -> UInt {
            AtomicWord(registrationWord(at: index)).loadRelaxed()
        }

        /// The address of entry `index`'s registration, or 0, as the writer, which alone changes it, sees it: a
        /// plain load, which the optimizer can see through, where posts need an atomic one.
        func writtenRegistration(at index: Int) -> UInt {
            registrationWord(at: index).pointee
        }

        /// Writes entry `index`, which the count does not cover yet, so no post reads it.
        func initialize(at index: Int, rank: UInt, registration: UInt) {
            rankWord(at: index).initialize(to: rank)
            registrationWord(at: index).initialize(to: registration)
        }

        /// Marks entry `index`'s registration removed: posts that read the entry after this skip it.
        func clearRegistration(at index: Int) {
            AtomicWord(registrationWord(at: index)).storeRelaxed(0)
        }

        @inline(__always)
        private func rankWord(at index: Int) -> UnsafeMutablePointer<UInt> {
            assert(index >= 0 && index < limit, "entry \(index) is outside 0..<\(limit)")
            return address + Self.headerWords + Self.wordsPerEntry * index
        }

        @inline(__always)
        private func registrationWord(at index: Int) -> UnsafeMutablePointer<UInt> {
            rankWord(at: index) + 1
        }
    }
}
