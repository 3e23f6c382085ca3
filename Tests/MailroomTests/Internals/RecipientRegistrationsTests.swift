import Testing

@testable import Mailroom

@Suite("RecipientRegistrations: one recipient's method registrations, the first kept inline")
struct RecipientRegistrationsTests {
    private static func ids(_ count: Int) -> [RecipientId] {
        (0..<count).map { RecipientId.next(slot: $0) }
    }

    @Test("Ids come back in the order they were added, and the last removal says none is left")
    func orderAndEmptiness() {
        let ids = Self.ids(3)
        var registrations = RecipientRegistrations(ids[0])
        registrations.append(ids[1])
        registrations.append(ids[2])
        #expect(registrations.ids == ids)
        let emptiedBySecond = registrations.remove(ids[1])
        #expect(!emptiedBySecond)
        #expect(registrations.ids == [ids[0], ids[2]])
        let emptiedByFirst = registrations.remove(ids[0])
        #expect(!emptiedByFirst)
        #expect(registrations.ids == [ids[2]])
        let emptiedByLast = registrations.remove(ids[2])
        #expect(emptiedByLast)
    }

    @Test("Random appends and removals keep the same ids, in the same order, as an array")
    func randomOperationsMatchArray() {
        let pool = Self.ids(16)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<200 {
            var registrations = RecipientRegistrations(pool[0])
            var reference = [pool[0]]
            var next = 1
            while !reference.isEmpty && next < pool.count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                if (state >> 40) % 2 == 0 {
                    registrations.append(pool[next])
                    reference.append(pool[next])
                    next += 1
                } else {
                    let id = reference[Int(state >> 33) % reference.count]
                    reference.removeAll { $0 == id }
                    let emptied = registrations.remove(id)
                    #expect(emptied == reference.isEmpty)
                }
                if !reference.isEmpty {
                    #expect(registrations.ids == reference)
                }
            }
        }
    }
}
