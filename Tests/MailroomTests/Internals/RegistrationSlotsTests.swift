import Testing

@testable import Mailroom

@Suite("RegistrationSlots: registrations found by id, and only by their own id")
struct RegistrationSlotsTests {
    private struct Tick: Mail {}

    private static func registration() -> Registration {
        Registration.make(in: PostOffice(), Tick.self, .on(nil, throwing: Never.self) { _, _, _ in })
    }

    @Test("Random inserts and removals keep the same registrations, in the same orders, as a Dictionary by id")
    func randomOperationsMatchDictionary() {
        let slots = RegistrationSlots()
        var reference: [RecipientId: (registration: Registration, order: UInt)] = [:]
        var removed: [RecipientId] = []
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for step in 0..<5_000 * stressScale {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            if (state >> 40) % 3 != 0 || reference.isEmpty {
                let registration = Self.registration()
                let id = slots.insert(.passRetained(registration), order: UInt(step))
                #expect(reference[id] == nil)
                reference[id] = (registration, UInt(step))
            } else {
                let id = reference.keys.sorted { $0.number < $1.number }[Int(state >> 33) % reference.count]
                #expect(slots.find(id)?.order == reference[id]?.order)
                #expect(slots.remove(id) === reference[id]?.registration)
                reference[id] = nil
                removed.append(id)
            }
        }
        #expect(slots.count == reference.count)
        for (id, expected) in reference {
            #expect(slots[id]?.registration === expected.registration)
            #expect(slots[id]?.order == expected.order)
        }
        #expect(Set(slots.all.map(\.id)) == Set(reference.keys))
        // Every removed id finds nothing, though most of their slots hold other registrations now.
        for id in removed {
            #expect(slots[id] == nil)
            #expect(slots.find(id) == nil)
        }
    }

    @Test("A slot freed by a removal is reused, and the old id does not find the registration that reuses it")
    func reusedSlotIgnoresOldId() {
        let slots = RegistrationSlots()
        let first = slots.insert(.passRetained(Self.registration()), order: 1)
        _ = slots.remove(first)
        let second = slots.insert(.passRetained(Self.registration()), order: 2)
        #expect(second.slot == first.slot)
        #expect(second != first)
        #expect(slots[first] == nil)
        #expect(slots.find(first) == nil)
        #expect(slots[second]?.order == 2)
        #expect(slots.count == 1)
    }

    @Test("An id from another office, with a slot this one never handed out, finds nothing")
    func foreignIdFindsNothing() {
        let slots = RegistrationSlots()
        let other = RegistrationSlots()
        for order in 0..<10 {
            _ = other.insert(.passRetained(Self.registration()), order: UInt(order))
        }
        let foreign = other.insert(.passRetained(Self.registration()), order: 10)
        _ = slots.insert(.passRetained(Self.registration()), order: 0)
        #expect(slots[foreign] == nil)
        #expect(slots.find(foreign) == nil)
        #expect(slots.count == 1)
    }

    @Test("A chain lists its registrations in the order they joined, whichever leave and whichever slots they reuse")
    func chainKeepsJoinOrder() {
        let slots = RegistrationSlots()
        var chain = RegistrationSlots.Chain()
        var members: [RecipientId] = []
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for step in 0..<2_000 * stressScale {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            if (state >> 40) % 5 < 3 || members.isEmpty {
                let id = slots.insert(.passRetained(Self.registration()), order: UInt(step))
                slots.append(id, to: &chain)
                members.append(id)
            } else {
                // First, last or any other member leaves: each end of the chain and its middle are unlinked.
                let position =
                    switch (state >> 20) % 3 {
                    case 0: 0
                    case 1: members.count - 1
                    default: Int(state >> 33) % members.count
                    }
                let id = members.remove(at: position)
                slots.unchain(id, from: &chain)
                _ = slots.remove(id)
            }
            #expect(slots.records(in: chain).map(\.id) == members)
        }
    }
}
