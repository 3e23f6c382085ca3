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
    static let removed: UInt = 1

    /// The table's memory (see ``Buckets``), which posts read.
    private let buckets: Buckets
    /// The number of buckets: a power of two.
    private let capacity: Int
    // Writers only, under the office lock (see `Route.entries`).
    @exclusivity(unchecked) private(set) var count = 0
    /// Buckets holding a key, removed or not: a removed bucket is never reused.
    @exclusivity(unchecked) private var used = 0

    init(capacity: Int = 8) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "capacity must be a power of two")
        self.capacity = capacity
        buckets = .allocate(capacity: capacity)
    }

    deinit {
        buckets.deallocate()
    }

    /// The address a post reads the table at (see ``value(for:in:)``), which its owner publishes.
    var address: UnsafeMutablePointer<UInt> { buckets.address }

    /// The value stored under `key` in the table published at `address`, or 0.
    @inline(__always)
    static func value(for key: Key, in address: UnsafeMutablePointer<UInt>) -> UInt {
        let buckets = Buckets(address: address)
        let mask = buckets.mask
        var index = home(of: key, mask: mask)
        while true {
            let value = buckets.value(at: index)
            if value == 0 { return 0 }
            if buckets.holds(key, at: index), value != removed { return value }
            index = (index &+ 1) & mask
        }
    }

    /// The bucket where the search for `key` starts, in a table of `mask + 1` buckets.
    @inline(__always)
    static func home(of key: Key, mask: UInt) -> UInt {
        var hash = key.first &* 0x9E37_79B9_7F4A_7C15
        hash ^= key.second &* 0xC2B2_AE3D_27D4_EB4F
        hash ^= hash >> 29
        return hash & mask
    }

    /// Stores `value` under a key that is not in the table. Returns false, changing nothing, when the table is
    /// too full; the caller then moves to ``grown()``.
    func insert(_ value: UInt, for key: Key) -> Bool {
        precondition(value > Self.removed, "values are object addresses")
        guard (used + 1) * 4 <= capacity * 3 else { return false }
        let mask = UInt(capacity - 1)
        var index = Self.home(of: key, mask: mask)
        while buckets.writtenValue(at: index) != 0 {
            index = (index &+ 1) & mask
        }
        buckets.fill(at: index, key: key, value: value)
        used += 1
        count += 1
        return true
    }

    /// Removes `key`; readers that already found its value keep it.
    func remove(_ key: Key) {
        let mask = UInt(capacity - 1)
        var index = Self.home(of: key, mask: mask)
        while true {
            let value = buckets.writtenValue(at: index)
            if value == 0 { return }
            if buckets.holds(key, at: index), value != Self.removed {
                buckets.markRemoved(at: index)
                count -= 1
                return
            }
            index = (index &+ 1) & mask
        }
    }

    /// A new table with this table's entries and room for more, sized so it is at most half full.
    func grown() -> RouteTable {
        var newCapacity = 8
        while newCapacity < (count + 1) * 2 { newCapacity *= 2 }
        let table = RouteTable(capacity: newCapacity)
        for index in 0..<UInt(capacity) {
            let value = buckets.writtenValue(at: index)
            if value > Self.removed {
                _ = table.insert(value, for: buckets.key(at: index))
            }
        }
        return table
    }
}
