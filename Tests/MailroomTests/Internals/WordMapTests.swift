import Testing

@testable import Mailroom

@Suite("WordMap: the writers' hash map agrees with Dictionary")
struct WordMapTests {
    @Test("Random inserts, updates and removals over a small key range leave the same contents as a Dictionary")
    func randomOperationsMatchDictionary() {
        var map = WordMap<Int>()
        var reference: [UInt64: Int] = [:]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for step in 0..<20_000 * stressScale {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // Few distinct keys, many of them colliding, so probe runs form and removals shift entries back.
            let key = (state >> 33) % 97 * 1024
            switch (state >> 20) % 4 {
            case 0, 1:
                map[key] = step
                reference[key] = step
            case 2:
                map[key] = nil
                reference[key] = nil
            default:
                map.modify(key, default: 0) { $0 += 1 }
                reference[key, default: 0] += 1
            }
            #expect(map[key] == reference[key])
        }
        #expect(map.count == reference.count)
        for key in reference.keys {
            #expect(map[key] == reference[key])
        }
        #expect(Set(map.allValues) == Set(reference.values))
    }
}
