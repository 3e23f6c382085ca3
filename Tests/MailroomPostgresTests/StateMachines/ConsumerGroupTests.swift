#if Postgres
import Testing

@testable import MailroomPostgres

/// Which member of a subscription's group reads which channel: the same answer in every member, shares as equal as
/// the channels each reads allow.
@Suite("Consumer group")
struct ConsumerGroupTests {
    let eight = Set((1...8).map { "c\($0)" })

    func shares(_ group: ConsumerGroup) -> [String: Int] {
        group.owners.values.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    @Test("one member reads every channel")
    func oneMemberReadsAll() {
        let group = ConsumerGroup(members: ["a": eight])
        #expect(group.owners.count == 8)
        #expect(Set(group.owners.values) == ["a"])
    }

    @Test("members that read the same channels share them equally, give or take one")
    func equalShares() {
        #expect(shares(ConsumerGroup(members: ["a": eight, "b": eight])) == ["a": 4, "b": 4])
        #expect(shares(ConsumerGroup(members: ["a": eight, "b": eight, "c": eight])) == ["a": 3, "b": 3, "c": 2])
        let nine = ConsumerGroup(members: Dictionary(uniqueKeysWithValues: (1...9).map { ("m\($0)", eight) }))
        #expect(shares(nine).values.sorted() == Array(repeating: 1, count: 8), "one member has none")
        #expect(ConsumerGroup(members: ["b": ["x", "y"], "a": ["x", "y"]]).owners == ["x": "a", "y": "b"])
    }

    @Test("the answer does not depend on the order the members were listed in")
    func sameAnswerEverywhere() {
        let members = ["m3": eight, "m1": eight, "m2": Set(["c1", "c2"])]
        let shuffled = Dictionary(uniqueKeysWithValues: members.shuffled().map { ($0.key, $0.value) })
        #expect(ConsumerGroup(members: members).owners == ConsumerGroup(members: shuffled).owners)
    }

    @Test("a channel goes only to a member that reads it; one that nobody reads has no owner")
    func onlyReadersOwn() {
        let group = ConsumerGroup(members: ["a": ["x"], "b": ["y"], "c": ["x", "y", "z"]])
        #expect(group.owner(of: "x") == "a")
        #expect(group.owner(of: "y") == "b")
        #expect(group.owner(of: "z") == "c")
        #expect(group.owner(of: "w") == nil)
    }

    @Test("a member that joins takes a share; one that dies leaves its share to the others")
    func rebalances() {
        let two = ConsumerGroup(members: ["b": eight, "c": eight])
        let three = ConsumerGroup(members: ["a": eight, "b": eight, "c": eight])
        #expect(shares(two) == ["b": 4, "c": 4])
        #expect(shares(three) == ["a": 3, "b": 3, "c": 2])
        #expect(shares(ConsumerGroup(members: ["a": eight, "c": eight])) == ["a": 4, "c": 4])
    }
}
#endif
