import Testing

@testable import Mailroom

@Suite("RouteTable: the lock-free table from two-word keys to routes")
struct RouteTableTests {
    private typealias Key = RouteTable.Key

    /// The value `table` holds under `key`, read as a post reads it; 0 if none.
    private static func value(_ key: Key, in table: RouteTable) -> UInt {
        RouteTable.value(for: key, in: table.address)
    }

    /// `count` distinct keys that share one home bucket in a table of `mask + 1` buckets.
    private static func collidingKeys(_ count: Int, mask: UInt) -> [Key] {
        var keys: [Key] = []
        var first: UInt = 16
        let home = RouteTable.home(of: Key(first: first, second: 0), mask: mask)
        while keys.count < count {
            let key = Key(first: first, second: 0)
            if RouteTable.home(of: key, mask: mask) == home {
                keys.append(key)
            }
            first += 16
        }
        return keys
    }

    @Test("A value is found under the key it was inserted under, and no other key finds anything")
    func insertedValuesAreFoundByTheirKeys() {
        let table = RouteTable()
        #expect(table.insert(0x1000, for: Key(first: 1, second: 0)))
        #expect(table.insert(0x2000, for: Key(first: 1, second: 2)))
        #expect(table.insert(0x3000, for: Key(first: 2, second: 1)))
        #expect(Self.value(Key(first: 1, second: 0), in: table) == 0x1000)
        #expect(Self.value(Key(first: 1, second: 2), in: table) == 0x2000)
        #expect(Self.value(Key(first: 2, second: 1), in: table) == 0x3000)
        #expect(Self.value(Key(first: 2, second: 0), in: table) == 0)
        #expect(Self.value(Key(first: 0, second: 0), in: table) == 0)
        #expect(table.count == 3)
    }

    @Test("Keys with the same home bucket take the buckets after it, in the order they came, and are all found")
    func collidingKeysProbeToTheNextBuckets() {
        let table = RouteTable()
        let keys = Self.collidingKeys(3, mask: 7)
        for (offset, key) in keys.enumerated() {
            #expect(table.insert(UInt(0x1000 * (offset + 1)), for: key))
        }
        let home = RouteTable.home(of: keys[0], mask: 7)
        let buckets = RouteTable.Buckets(address: table.address)
        for (offset, key) in keys.enumerated() {
            let index = (home + UInt(offset)) & 7
            #expect(buckets.holds(key, at: index))
            #expect(buckets.value(at: index) == UInt(0x1000 * (offset + 1)))
            #expect(Self.value(key, in: table) == UInt(0x1000 * (offset + 1)))
        }
    }

    @Test("Removing a key marks its bucket removed, so a key that probed past it is still found")
    func removalLeavesAMarkerInTheProbeRun() {
        let table = RouteTable()
        let keys = Self.collidingKeys(2, mask: 7)
        #expect(table.insert(0x1000, for: keys[0]))
        #expect(table.insert(0x2000, for: keys[1]))
        table.remove(keys[0])
        let home = RouteTable.home(of: keys[0], mask: 7)
        #expect(RouteTable.Buckets(address: table.address).value(at: home) == RouteTable.removed)
        #expect(RouteTable.Buckets(address: table.address).holds(keys[0], at: home))
        #expect(Self.value(keys[0], in: table) == 0)
        #expect(Self.value(keys[1], in: table) == 0x2000)
        #expect(table.count == 1)
    }

    @Test("Removing a key that is not in the table, or removing one twice, changes nothing")
    func removingAnAbsentKeyChangesNothing() {
        let table = RouteTable()
        #expect(table.insert(0x1000, for: Key(first: 1, second: 0)))
        table.remove(Key(first: 9, second: 9))
        #expect(table.count == 1)
        table.remove(Key(first: 1, second: 0))
        table.remove(Key(first: 1, second: 0))
        #expect(table.count == 0)
        #expect(Self.value(Key(first: 1, second: 0), in: table) == 0)
    }

    @Test("A table of 8 buckets takes 6 keys, then refuses a 7th, changing nothing")
    func aTableRefusesKeysBeyondThreeQuartersFull() {
        let table = RouteTable(capacity: 8)
        for first in 1...6 {
            #expect(table.insert(UInt(0x1000 * first), for: Key(first: UInt(first), second: 0)))
        }
        #expect(!table.insert(0x7000, for: Key(first: 7, second: 0)))
        #expect(table.count == 6)
        #expect(Self.value(Key(first: 7, second: 0), in: table) == 0)
        #expect(Self.value(Key(first: 6, second: 0), in: table) == 0x6000)
    }

    @Test("Removed buckets are never reused: they count toward the three quarters that make a table full")
    func removedBucketsStillFillTheTable() {
        let table = RouteTable(capacity: 8)
        for first in 1...6 {
            #expect(table.insert(UInt(0x1000 * first), for: Key(first: UInt(first), second: 0)))
        }
        for first in 1...3 {
            table.remove(Key(first: UInt(first), second: 0))
        }
        #expect(table.count == 3)
        #expect(!table.insert(0x7000, for: Key(first: 7, second: 0)))
    }

    @Test("A grown table holds every live key and no removed one, in a size at most half full")
    func grownTableKeepsLiveKeysOnly() {
        let table = RouteTable(capacity: 8)
        for first in 1...6 {
            #expect(table.insert(UInt(0x1000 * first), for: Key(first: UInt(first), second: 0)))
        }
        table.remove(Key(first: 2, second: 0))
        table.remove(Key(first: 5, second: 0))
        let grown = table.grown()
        #expect(grown.count == 4)
        #expect(RouteTable.Buckets(address: grown.address).mask == 15)
        for first in [1, 3, 4, 6] {
            #expect(Self.value(Key(first: UInt(first), second: 0), in: grown) == UInt(0x1000 * first))
        }
        #expect(Self.value(Key(first: 2, second: 0), in: grown) == 0)
        #expect(Self.value(Key(first: 5, second: 0), in: grown) == 0)
        // The old table is unchanged: posts may still be reading it.
        #expect(Self.value(Key(first: 3, second: 0), in: table) == 0x3000)
        #expect(table.count == 4)
    }

    @Test("Inserts and removals, growing whenever the table refuses, leave the same contents as a Dictionary")
    func randomOperationsMatchDictionary() {
        var table = RouteTable()
        var reference: [Key: UInt] = [:]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for step in 0..<5_000 * stressScale {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // Few distinct keys whose halves repeat, so that probe runs form and removed keys come back.
            let key = Key(first: UInt((state >> 33) % 61), second: UInt((state >> 45) % 3))
            if reference[key] == nil, (state >> 20) % 3 != 0 {
                let value = UInt(step + 2)
                if !table.insert(value, for: key) {
                    table = table.grown()
                    #expect(table.insert(value, for: key))
                }
                reference[key] = value
            } else if reference[key] != nil {
                table.remove(key)
                reference[key] = nil
            }
            #expect(Self.value(key, in: table) == reference[key] ?? 0)
        }
        #expect(table.count == reference.count)
        for (key, value) in reference {
            #expect(Self.value(key, in: table) == value)
        }
    }

    @Test("Inserting a value that is not an object's address stops the program")
    func valuesMustBeAddresses() async {
        await #expect(processExitsWith: .failure) {
            _ = RouteTable().insert(RouteTable.removed, for: RouteTable.Key(first: 1, second: 0))
        }
    }

    #if DEBUG
    @Test("In a debug build, reaching a bucket beyond the table stops the program")
    func bucketsAreBoundsChecked() async {
        await #expect(processExitsWith: .failure) {
            let table = RouteTable(capacity: 8)
            _ = RouteTable.Buckets(address: table.address).value(at: 8)
        }
    }
    #endif
}
