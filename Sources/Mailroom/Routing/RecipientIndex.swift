/// The registrations filed under each object that ``PostOffice/unregister(_:)-(AnyObject)`` removes registrations
/// by: the recipient of a method or actor registration, and the owner of a registration tied to one. By the
/// object's identity, which outlives the object, so that the sweep of registrations whose recipient has gone finds
/// them too. For the office's writers, under its lock.
///
/// A multimap by open addressing with linear probing, as ``WordMap``, whose buckets hold an ``Entry`` alone: 4
/// bytes, a registration's slot and which of its objects it is filed under. An entry's key is not stored: the
/// caller reads it from the registration in that slot (`keyOf`). A map from each identity to its list of ids took
/// 32 bytes a bucket, about 56 per weak-method registration, more than the registration's own slot and route entry.
struct RecipientIndex {
    /// A registration filed under one of its objects: its slot, and whether that object is its owner (`tiedTo:`)
    /// rather than its recipient.
    struct Entry: Hashable {
        fileprivate let bits: UInt32

        init(slot: Int, isOwner: Bool) {
            assert(slot >= 0 && slot < RegistrationSlots.maximumCount, "slot \(slot) is out of range")
            bits = UInt32(truncatingIfNeeded: slot) << 1 | (isOwner ? 1 : 0)
        }

        fileprivate init(bits: UInt32) {
            self.bits = bits
        }

        var slot: Int { Int(bits >> 1) }
        var isOwner: Bool { bits & 1 == 1 }
    }

    /// An empty bucket: no slot below ``RegistrationSlots/maximumCount`` makes these bits.
    private static let empty = UInt32.max

    private var buckets: [UInt32] = []
    /// The entries filed.
    private(set) var count = 0

    /// Files `entry` under `key`. `keyOf` gives the key of any entry filed, for growing.
    mutating func insert(_ entry: Entry, under key: UInt64, keyOf: (Entry) -> UInt64) {
        if (count + 1) * 4 > buckets.count * 3 {
            rehash(capacity: max(8, (count + 1) * 2), keyOf: keyOf)
        }
        let mask = buckets.count - 1
        var index = WordMap<Never>.bucket(of: key, mask: mask)
        while buckets[index] != Self.empty {
            index = (index + 1) & mask
        }
        buckets[index] = entry.bits
        count += 1
    }

    /// Removes `entry`, filed under `key`. `keyOf` gives the key of any entry filed: removal moves back each
    /// following entry that would otherwise no longer be found.
    mutating func remove(_ entry: Entry, under key: UInt64, keyOf: (Entry) -> UInt64) {
        guard !buckets.isEmpty else { return assertionFailure("\(entry) is not filed") }
        let mask = buckets.count - 1
        var hole = WordMap<Never>.bucket(of: key, mask: mask)
        while buckets[hole] != entry.bits {
            guard buckets[hole] != Self.empty else { return assertionFailure("\(entry) is not filed") }
            hole = (hole + 1) & mask
        }
        var next = (hole + 1) & mask
        while buckets[next] != Self.empty {
            let home = WordMap<Never>.bucket(of: keyOf(Entry(bits: buckets[next])), mask: mask)
            // The entry at `next` may move into the hole when its home bucket is not strictly between them.
            if (next - home) & mask >= (next - hole) & mask {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole] = Self.empty
        count -= 1
    }

    /// The entries filed under `key`, in no particular order. `keyOf` gives the key of any entry filed.
    func entries(under key: UInt64, keyOf: (Entry) -> UInt64) -> [Entry] {
        guard !buckets.isEmpty else { return [] }
        let mask = buckets.count - 1
        var entries: [Entry] = []
        var index = WordMap<Never>.bucket(of: key, mask: mask)
        while buckets[index] != Self.empty {
            let entry = Entry(bits: buckets[index])
            if keyOf(entry) == key {
                entries.append(entry)
            }
            index = (index + 1) & mask
        }
        return entries
    }

    private mutating func rehash(capacity minimum: Int, keyOf: (Entry) -> UInt64) {
        var capacity = 8
        while capacity < minimum { capacity *= 2 }
        let old = buckets
        buckets = Array(repeating: Self.empty, count: capacity)
        for bits in old where bits != Self.empty {
            var index = WordMap<Never>.bucket(of: keyOf(Entry(bits: bits)), mask: capacity - 1)
            while buckets[index] != Self.empty { index = (index + 1) & (capacity - 1) }
            buckets[index] = bits
        }
    }
}
