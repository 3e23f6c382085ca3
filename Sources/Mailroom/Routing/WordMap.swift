/// A hash map from a machine word (a type's or an object's address) to a value, for the office's writers, under
/// its lock.
///
/// Open addressing with linear probing and a multiplicative hash, not `Dictionary`: registering and unregistering
/// look keys up, and a seeded SipHash per lookup would outweigh the rest of that work. Removal shifts the following
/// entries back instead of leaving a marker, so a map whose keys come and go (senders, recipients) never fills up
/// with markers. Values are changed in place (``modify(_:default:_:)``), so a value holding an array is never
/// copied to append to it.
struct WordMap<Value> {
    private static var empty: UInt64 { .max }

    private var keys: [UInt64] = []
    private var values: [Value?] = []
    private(set) var count = 0

    /// The value stored under `key`; setting `nil` removes it.
    subscript(key: UInt64) -> Value? {
        get {
            guard let index = index(of: key) else { return nil }
            return values[index]
        }
        set {
            if let newValue {
                if let index = index(of: key) {
                    values[index] = newValue
                } else {
                    insert(newValue, for: key)
                }
            } else if let index = index(of: key) {
                remove(at: index)
            }
        }
    }

    /// Calls `body` with the value under `key`, stored first as `defaultValue` if there is none.
    @discardableResult
    mutating func modify<Result>(
        _ key: UInt64, default defaultValue: @autoclosure () -> Value, _ body: (inout Value) -> Result
    ) -> Result {
        let index = index(of: key) ?? insert(defaultValue(), for: key)
        return body(&values[index]!)
    }

    /// Stores `value` under `key`, which has no value yet, and returns its bucket.
    @discardableResult
    private mutating func insert(_ value: Value, for key: UInt64) -> Int {
        precondition(key != Self.empty, "keys are addresses")
        if (count + 1) * 4 > keys.count * 3 {
            rehash(capacity: max(8, (count + 1) * 2))
        }
        var index = Self.bucket(of: key, mask: keys.count - 1)
        while keys[index] != Self.empty {
            index = (index + 1) & (keys.count - 1)
        }
        keys[index] = key
        values[index] = value
        count += 1
        return index
    }

    /// Calls `body` with the value under `key`, if there is one; returns nil otherwise.
    @discardableResult
    mutating func modifyIfPresent<Result>(_ key: UInt64, _ body: (inout Value) -> Result) -> Result? {
        guard let index = index(of: key) else { return nil }
        return body(&values[index]!)
    }

    /// Whether a value is stored under `key`.
    func contains(_ key: UInt64) -> Bool {
        index(of: key) != nil
    }

    /// Calls `body` with every stored value, to change it in place.
    mutating func modifyAll(_ body: (inout Value) -> Void) {
        for index in values.indices where values[index] != nil {
            body(&values[index]!)
        }
    }

    /// Every stored value, in no particular order.
    var allValues: [Value] {
        values.compactMap { $0 }
    }

    private func index(of key: UInt64) -> Int? {
        guard !keys.isEmpty else { return nil }
        var index = Self.bucket(of: key, mask: keys.count - 1)
        while keys[index] != Self.empty {
            if keys[index] == key { return index }
            index = (index + 1) & (keys.count - 1)
        }
        return nil
    }

    /// The bucket where the search for `key` starts, in a table of `mask + 1` buckets (a power of two).
    static func bucket(of key: UInt64, mask: Int) -> Int {
        let hash = key &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: hash ^ (hash >> 29)) & mask
    }

    /// Empties the bucket at `index`, moving back each following entry that would otherwise no longer be found.
    private mutating func remove(at index: Int) {
        let mask = keys.count - 1
        var hole = index
        var next = (index + 1) & mask
        while keys[next] != Self.empty {
            let home = Self.bucket(of: keys[next], mask: mask)
            // The entry at `next` may move into the hole when its home bucket is not strictly between them.
            if (next - home) & mask >= (next - hole) & mask {
                keys[hole] = keys[next]
                values.swapAt(hole, next)
                hole = next
            }
            next = (next + 1) & mask
        }
        keys[hole] = Self.empty
        values[hole] = nil
        count -= 1
    }

    private mutating func rehash(capacity minimum: Int) {
        var capacity = 8
        while capacity < minimum { capacity *= 2 }
        let oldKeys = keys
        var oldValues = values
        keys = Array(repeating: Self.empty, count: capacity)
        values = Array(repeating: nil, count: capacity)
        for (index, key) in oldKeys.enumerated() where key != Self.empty {
            var slot = Self.bucket(of: key, mask: capacity - 1)
            while keys[slot] != Self.empty { slot = (slot + 1) & (capacity - 1) }
            keys[slot] = key
            swap(&values[slot], &oldValues[index])
        }
    }
}
