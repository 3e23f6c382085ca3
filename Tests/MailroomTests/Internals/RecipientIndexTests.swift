import Testing

@testable import Mailroom

@Suite("RecipientIndex: the registrations filed under each object, found by the object's key")
struct RecipientIndexTests {
    @Test("An object's entries are all found, and only its own, after inserts and removals across collisions")
    func entriesUnderAKey() {
        // Keys 1...3 for three objects; each entry's key is looked up in this table, as the office reads it from
        // the registration in the entry's slot.
        var keys: [RecipientIndex.Entry: UInt64] = [:]
        let keyOf = { (entry: RecipientIndex.Entry) in keys[entry]! }
        var index = RecipientIndex()
        let entries = (0..<9).map { RecipientIndex.Entry(slot: $0 / 2, isOwner: $0 % 2 == 1) }
        for (position, entry) in entries.enumerated() {
            keys[entry] = UInt64(position % 3 + 1)
            index.insert(entry, under: keys[entry]!, keyOf: keyOf)
        }
        #expect(index.count == 9)
        #expect(Set(index.entries(under: 1, keyOf: keyOf)) == [entries[0], entries[3], entries[6]])
        #expect(Set(index.entries(under: 2, keyOf: keyOf)) == [entries[1], entries[4], entries[7]])
        index.remove(entries[3], under: 1, keyOf: keyOf)
        #expect(Set(index.entries(under: 1, keyOf: keyOf)) == [entries[0], entries[6]])
        #expect(index.entries(under: 4, keyOf: keyOf).isEmpty)
        #expect(index.count == 8)
    }

    @Test("Random inserts and removals keep the same entries under each key as a dictionary of sets")
    func randomOperationsMatchDictionary() {
        var keys: [RecipientIndex.Entry: UInt64] = [:]
        var reference: [UInt64: Set<RecipientIndex.Entry>] = [:]
        var index = RecipientIndex()
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var nextSlot = 0
        for _ in 0..<4_000 * stressScale {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            if (state >> 40) % 3 != 0 || keys.isEmpty {
                // Few keys, so that most have several entries and their probe sequences overlap.
                let key = (state >> 20) % 40 + 1
                let entry = RecipientIndex.Entry(slot: nextSlot, isOwner: (state >> 50) % 2 == 1)
                nextSlot += 1
                keys[entry] = key
                index.insert(entry, under: key, keyOf: { [keys] in keys[$0]! })
                reference[key, default: []].insert(entry)
            } else {
                let entry = keys.keys.sorted { $0.slot < $1.slot }[Int(state >> 33) % keys.count]
                let key = keys[entry]!
                index.remove(entry, under: key, keyOf: { [keys] in keys[$0]! })
                reference[key]?.remove(entry)
                keys[entry] = nil
            }
            let probe = (state >> 10) % 40 + 1
            let found = Set(index.entries(under: probe, keyOf: { [keys] in keys[$0]! }))
            let expected: Set<RecipientIndex.Entry> = reference[probe] ?? []
            #expect(found == expected)
        }
        #expect(index.count == keys.count)
    }

    @Test("An entry keeps its slot and says whether it is filed under the registration's owner")
    func entryBits() {
        let entry = RecipientIndex.Entry(slot: RegistrationSlots.maximumCount - 1, isOwner: true)
        #expect(entry.slot == RegistrationSlots.maximumCount - 1)
        #expect(entry.isOwner)
        #expect(!RecipientIndex.Entry(slot: 0, isOwner: false).isOwner)
    }
}
