#if Observability
/// A hash table from ``MetricKey`` to metric objects that only grows: open addressing with linear probing, hashed
/// by multiplying the key's two words.
///
/// Not `Dictionary`: its seeded SipHash was most of the cost of a lookup, on every post, and protects against keys
/// chosen to collide, which these are not (type metadata addresses and small numbers). Kept at most half full, so
/// a probe ends at an empty slot after a step or two. Entries are never removed: the label limits bound them.
struct MetricCache<Value: Sendable>: Sendable {
    private var keys: [MetricKey?]
    private var values: [Value?]
    /// How many entries it holds.
    private(set) var count = 0

    init() {
        keys = Array(repeating: nil, count: 16)
        values = Array(repeating: nil, count: 16)
    }

    /// The value kept for `key`; setting one keeps it (setting `nil` is not supported: entries are never removed).
    subscript(key: MetricKey) -> Value? {
        get {
            let slot = find(key)
            return keys[slot] == nil ? nil : values[slot]
        }
        set {
            guard let newValue else { return assertionFailure("a metric cache never removes an entry") }
            let slot = find(key)
            if keys[slot] == nil {
                guard (count + 1) * 2 <= keys.count else {
                    grow()
                    self[key] = newValue
                    return
                }
                keys[slot] = key
                count += 1
            }
            values[slot] = newValue
        }
    }

    /// The slot holding `key`, or the empty slot where it belongs.
    private func find(_ key: MetricKey) -> Int {
        let mask = keys.count - 1
        var slot = Self.hash(key) & mask
        while let found = keys[slot], found != key {
            slot = (slot + 1) & mask
        }
        return slot
    }

    /// Spreads the key's words over the table's bits (Fibonacci hashing: the high half of the product), since type
    /// metadata addresses differ mostly in their middle bits. In 64 bits on every platform.
    private static func hash(_ key: MetricKey) -> Int {
        let words = UInt64(UInt(bitPattern: key.mailType)) &+ UInt64(key.detail) &* 0x9E37_79B9
        return Int(truncatingIfNeeded: (words &* 0x9E37_79B9_7F4A_7C15) >> 32)
    }

    /// Doubles the table and puts every entry back.
    private mutating func grow() {
        let entries = zip(keys, values).compactMap { key, value in key.flatMap { key in value.map { (key, $0) } } }
        keys = Array(repeating: nil, count: keys.count * 2)
        values = Array(repeating: nil, count: values.count * 2)
        count = 0
        for (key, value) in entries {
            self[key] = value
        }
    }
}
#endif
