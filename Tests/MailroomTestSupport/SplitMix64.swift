// The seeded random generator of the randomized tests, shared by the test targets.

/// SplitMix64: a tiny deterministic generator, so that a seed names the same sequence on every platform and
/// Swift version (the standard library's `random(in:using:)` does not promise that).
package struct SplitMix64 {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    package mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// True with probability `percent` / 100.
    package mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }

    package mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[below(elements.count)]
    }

    /// An index of `weights`, each with probability in proportion to its weight.
    package mutating func index(weights: [Int]) -> Int {
        var total = 0
        for weight in weights {
            total += weight
        }
        var roll = below(total)
        for (index, weight) in weights.enumerated() {
            if roll < weight { return index }
            roll -= weight
        }
        return weights.count - 1
    }

}
