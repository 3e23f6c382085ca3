/// The registrations filed under each object that ``PostOffice/unregister(_:)-(AnyObject)`` removes registrations
/// by: the recipient of a method or actor registration, and the owner of a registration tied to one. By the
/// object's identity, which outlives the object, so that the sweep of registrations whose recipient has gone finds
/// them too. For the office's writers, under its lock.
///
/// Open addressing with linear probing, as ``WordMap``, whose buckets hold an ``Entry`` alone: 4 bytes, a
/// registration's slot and which of its objects it is filed under. An entry's key is not stored: the caller reads it
/// from the registration in that slot (`keyOf`). A bucket holds an object's first entry; the others of an object
/// with several are in ``more``, so that a thousand registrations of one object make neither a cluster that every
/// insert walks nor one that every removal shifts. A map from each identity to its list of ids took 32 bytes a
/// bucket, about 56 per weak-method registration, more than the registration's own slot and route entry.
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
    /// The buckets in use: one per object with entries.
    private var used = 0
    /// The entries after the first of each object that has several, in no particular order.
    private var more: [UInt64: [Entry]] = [:]
    /// The entries filed.
    private(set) var count = 0

    /// Files `entry` under `key`. `keyOf` gives the key of any entry filed.
    mutating func insert(_ entry: Entry, under key: UInt64, keyOf: (Entry) -> UInt64) {
        count += 1
        if bucket(of: key, keyOf: keyOf) != nil {
            more[key, default: []].append(entry)
            return
        }
        if (used + 1) * 4 > buckets.count * 3 {
            rehash(capacity: max(8, (used + 1) * 2), keyOf: keyOf)
        }
        place(entry.bits, under: key)
        used += 1
    }

    /// Removes `entry`, filed under `key`. `keyOf` gives the key of any entry filed.
    mutating func remove(_ entry: Entry, under key: UInt64, keyOf: (Entry) -> UInt64) {
        guard let index = bucket(of: key, keyOf: keyOf) else { return assertionFailure("\(entry) is not filed") }
        count -= 1
        if buckets[index] != entry.bits {
            // Changed in place, not copied out: an object's list may be long.
            let removed = more[key]?.removeOne(entry)
            assert(removed == true, "\(entry) is not filed")
        } else if let next = more[key]?.popLast() {
            buckets[index] = next.bits
        } else {
            removeBucket(at: index, keyOf: keyOf)
        }
        if more[key]?.isEmpty == true {
            more[key] = nil
        }
    }

    /// The entries filed under `key`, in no particular order. `keyOf` gives the key of any entry filed.
    func entries(under key: UInt64, keyOf: (Entry) -> UInt64) -> [Entry] {
        guard let index = bucket(of: key, keyOf: keyOf) else { return [] }
        return [Entry(bits: buckets[index])] + (more[key] ?? [])
    }

    /// The bucket of the first entry filed under `key`, if any.
    private func bucket(of key: UInt64, keyOf: (Entry) -> UInt64) -> Int? {
        guard !buckets.isEmpty else { return nil }
        let mask = buckets.count - 1
        var index = WordMap<Never>.bucket(of: key, mask: mask)
        while buckets[index] != Self.empty {
            if keyOf(Entry(bits: buckets[index])) == key { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Empties the bucket at `index`, moving back each following entry that would otherwise no longer be found.
    private mutating func removeBucket(at index: Int, keyOf: (Entry) -> UInt64) {
        let mask = buckets.count - 1
        var hole = index
        var next = (index + 1) & mask
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
        used -= 1
    }

    private mutating func rehash(capacity minimum: Int, keyOf: (Entry) -> UInt64) {
        var capacity = 8
        while capacity < minimum { capacity *= 2 }
        let old = buckets
        buckets = Array(repeating: Self.empty, count: capacity)
        for bits in old where bits != Self.empty {
            place(bits, under: keyOf(Entry(bits: bits)))
        }
    }

    /// Puts `bits` in the first empty bucket from `key`'s.
    private mutating func place(_ bits: UInt32, under key: UInt64) {
        let mask = buckets.count - 1
        var index = WordMap<Never>.bucket(of: key, mask: mask)
        while buckets[index] != Self.empty {
            index = (index + 1) & mask
        }
        buckets[index] = bits
    }
}

extension Array where Element == RecipientIndex.Entry {
    /// Removes `entry` by moving the last element into its place (the order does not matter); false if absent.
    fileprivate mutating func removeOne(_ entry: Element) -> Bool {
        guard let position = firstIndex(of: entry) else { return false }
        swapAt(position, count - 1)
        removeLast()
        return true
    }
}
