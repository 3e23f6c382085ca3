extension RouteTable {
    /// The memory of a ``RouteTable``, which posts read without a lock. The only code that computes an address
    /// in it; in debug builds every access asserts that its bucket is within the table.
    ///
    /// Layout, in words, for `mask + 1` buckets (a power of two):
    /// `[mask, first 0, second 0, value 0, first 1, second 1, value 1, …, value mask]`
    /// - `mask`: the number of buckets less one. Written before the table is published and never changed.
    /// - bucket `i`: its key's two words (`first`, `second`), written once, before its value; then its value:
    ///   0 while the bucket is empty, ``RouteTable/removed`` once its key was removed, otherwise an object's
    ///   address. The value is stored with a release store and loaded with an acquire load, so a post that finds
    ///   a value also reads the key written before it.
    ///
    /// A handle, not an owner: the table frees the memory (``deallocate()``).
    struct Buckets {
        /// The first word (`mask`): what the table's owner publishes for posts to find.
        let address: UnsafeMutablePointer<UInt>

        private static let headerWords = 1
        private static let wordsPerBucket = 3

        @inline(__always)
        init(address: UnsafeMutablePointer<UInt>) {
            self.address = address
        }

        /// New memory of `capacity` empty buckets, a power of two.
        static func allocate(capacity: Int) -> Buckets {
            let words = headerWords + wordsPerBucket * capacity
            let buckets = Buckets(address: .allocate(capacity: words))
            buckets.address.initialize(repeating: 0, count: words)
            buckets.address.pointee = UInt(capacity - 1)
            return buckets
        }

        func deallocate() {
            address.deallocate()
        }

        /// The number of buckets less one.
        @inline(__always)
        var mask: UInt {
            address.pointee
        }

        /// Bucket `index`'s value: 0 when empty, ``RouteTable/removed``, or an object's address.
        @inline(__always)
        func value(at index: UInt) -> UInt {
            AtomicWord(bucket(at: index) + 2).loadAcquire()
        }

        /// Bucket `index`'s value as the writer, which alone changes it, sees it: a plain load, which the optimizer
        /// can see through, where posts need an atomic one.
        func writtenValue(at index: UInt) -> UInt {
            bucket(at: index)[2]
        }

        /// Whether bucket `index`, whose value was loaded and is not 0, holds `key` (removed or not).
        @inline(__always)
        func holds(_ key: Key, at index: UInt) -> Bool {
            let bucket = bucket(at: index)
            return bucket[0] == key.first && bucket[1] == key.second
        }

        /// The key of bucket `index`, which is not empty.
        func key(at index: UInt) -> Key {
            let bucket = bucket(at: index)
            return Key(first: bucket[0], second: bucket[1])
        }

        /// Stores `key` and then `value` in bucket `index`, which is empty.
        func fill(at index: UInt, key: Key, value: UInt) {
            let bucket = bucket(at: index)
            bucket[0] = key.first
            bucket[1] = key.second
            AtomicWord(bucket + 2).storeRelease(value)
        }

        /// Marks bucket `index`'s key removed; its key stays, so the bucket is never reused.
        func markRemoved(at index: UInt) {
            AtomicWord(bucket(at: index) + 2).storeRelease(RouteTable.removed)
        }

        /// The first word of bucket `index`: `first`, then `second`, then `value`.
        @inline(__always)
        private func bucket(at index: UInt) -> UnsafeMutablePointer<UInt> {
            assert(index <= mask, "bucket \(index) is outside 0...\(mask)")
            return address + Self.headerWords + Int(index) * Self.wordsPerBucket
        }
    }
}
