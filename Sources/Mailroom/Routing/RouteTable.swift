/// An open-addressing hash table from a two-word key to a word, read without a lock.
///
/// Writers hold the office lock. They fill a bucket's key before publishing its value with a release store,
/// never change a key once written and never reuse a removed bucket, so a reader that finds a value also
/// reads the key it was stored under. When removed buckets and entries fill three quarters of the table, the
/// writer builds a larger one, publishes it, and retires this one.
final class RouteTable {
    struct Key: Hashable {
        var first: UInt
        var second: UInt
    }

    /// A value that marks a removed bucket; real values are object addresses, never 1.
    private static let removed: UInt = 1
    private static let wordsPerBucket = 3

    /// The published memory: `[mask, (first, second, value) × (mask + 1)]`.
    let address: UnsafeMutablePointer<UInt>
    private let capacity: Int
    // Writers only, under the office lock (see `Route.entries`).
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private var used = 0

    init(capacity: Int = 8) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "capacity must be a power of two")
        self.capacity = capacity
        address = .allocate(capacity: 1 + capacity * Self.wordsPerBucket)
        address.initialize(repeating: 0, count: 1 + capacity * Self.wordsPerBucket)
        address[0] = UInt(capacity - 1)
    }

    deinit {
        address.deallocate()
    }

    /// The value stored under `key` in the table published at `address`, or 0.
    @inline(__always)
    static func value(for key: Key, in address: UnsafeMutablePointer<UInt>) -> UInt {
        let mask = address[0]
        var index = bucket(of: key, mask: mask)
        while true {
            let bucket = address + 1 + Int(index) * wordsPerBucket
            let value = AtomicWord(bucket + 2).loadAcquire()
            if value == 0 { return 0 }
            if bucket[0] == key.first, bucket[1] == key.second, value != removed { return value }
            index = (index &+ 1) & mask
        }
    }

    @inline(__always)
    private static func bucket(of key: Key, mask: UInt) -> UInt {
        var hash = key.first &* 0x9E37_79B9_7F4A_7C15
        hash ^= key.second &* 0xC2B2_AE3D_27D4_EB4F
        hash ^= hash >> 29
        return hash & mask
    }

    func value(for key: Key) -> UInt {
        Self.value(for: key, in: address)
    }

    /// Stores `value` under a key that is not in the table. Returns false, changing nothing, when the table is
    /// too full; the caller then moves to ``grown()``.
    func insert(_ value: UInt, for key: Key) -> Bool {
        precondition(value > Self.removed, "values are object addresses")
        guard (used + 1) * 4 <= capacity * 3 else { return false }
        var index = Self.bucket(of: key, mask: UInt(capacity - 1))
        while address[1 + Int(index) * Self.wordsPerBucket + 2] != 0 {
            index = (index &+ 1) & UInt(capacity - 1)
        }
        let bucket = address + 1 + Int(index) * Self.wordsPerBucket
        bucket[0] = key.first
        bucket[1] = key.second
        AtomicWord(bucket + 2).storeRelease(value)
        used += 1
        count += 1
        return true
    }

    /// Removes `key`; readers that already found its value keep it.
    func remove(_ key: Key) {
        var index = Self.bucket(of: key, mask: UInt(capacity - 1))
        while true {
            let bucket = address + 1 + Int(index) * Self.wordsPerBucket
            let value = bucket[2]
            if value == 0 { return }
            if bucket[0] == key.first, bucket[1] == key.second, value != Self.removed {
                AtomicWord(bucket + 2).storeRelease(Self.removed)
                count -= 1
                return
            }
            index = (index &+ 1) & UInt(capacity - 1)
        }
    }

    /// A new table with this table's entries and room for more, sized so it is at most half full.
    func grown() -> RouteTable {
        var newCapacity = 8
        while newCapacity < (count + 1) * 2 { newCapacity *= 2 }
        let table = RouteTable(capacity: newCapacity)
        for index in 0..<capacity {
            let bucket = address + 1 + index * Self.wordsPerBucket
            if bucket[2] > Self.removed {
                _ = table.insert(bucket[2], for: Key(first: bucket[0], second: bucket[1]))
            }
        }
        return table
    }
}
