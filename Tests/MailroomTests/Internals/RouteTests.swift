import Testing

@testable import Mailroom

@Suite("Route: entries that writers append to and clear while posts read them without a lock")
struct RouteTests {
    private struct Tick: Mail {}

    private static func registrations(_ count: Int) -> [Registration] {
        (0..<count).map { _ in
            Registration.make(in: PostOffice(), Tick.self, .on(nil, throwing: Never.self) { _, _, _ in })
        }
    }

    /// Each entry of `words`, as a post reads it: its rank, and its registration's address or 0.
    private static func contents(_ words: Route.EntryWords) -> [(rank: UInt, registration: UInt)] {
        (0..<words.limit).map { (words.rank(at: $0), words.registration(at: $0)) }
    }

    /// Entries of `capacity` holding `registrations`, registered 10th, 20th, 30th...
    private static func entries(capacity: Int, _ registrations: [Registration]) -> Route.Entries {
        var entries = Route.Entries(capacity: capacity)
        for (offset, registration) in registrations.enumerated() {
            let appended = entries.append(rank: UInt(10 * (offset + 1)), registration)
            #expect(appended)
        }
        return entries
    }

    private static func route(_ registrations: [Registration], attention: Route.Attention = []) -> Route {
        Route(
            mailTypes: [ObjectIdentifier(Tick.self)], senderClass: nil, attention: attention,
            registrations: registrations.enumerated().map { (UInt(10 * ($0.offset + 1)), $0.element) }
        )
    }

    @Test("Appended entries are published in rank, each with its rank and its registration's address")
    func appendedEntriesAreReadBackInOrder() {
        let registrations = Self.registrations(3)
        let entries = Self.entries(capacity: 4, registrations)
        defer { entries.deallocate() }
        let published = Route.EntryWords.published(at: entries.words.address)
        #expect(published.limit == 3)
        #expect(Self.contents(published).map(\.rank) == [10, 20, 30])
        #expect(Self.contents(published).map(\.registration) == registrations.map(\.address))
        #expect(entries.liveCount == 3)
        #expect(entries.clearedCount == 0)
    }

    @Test("Entries refuse an append beyond their capacity, changing nothing")
    func fullEntriesRefuseAnAppend() {
        let registrations = Self.registrations(3)
        var entries = Self.entries(capacity: 2, Array(registrations.prefix(2)))
        defer { entries.deallocate() }
        let appended = entries.append(rank: 30, registrations[2])
        #expect(!appended)
        #expect(entries.words.count == 2)
        #expect(entries.liveCount == 2)
        #expect(Self.contents(.published(at: entries.words.address)).map(\.rank) == [10, 20])
    }

    @Test("Clearing an entry zeroes its registration, keeps its rank, and moves it from live to cleared")
    func clearingZeroesTheRegistrationOnly() {
        let registrations = Self.registrations(3)
        var entries = Self.entries(capacity: 4, registrations)
        defer { entries.deallocate() }
        entries.clear(rank: 20)
        let contents = Self.contents(.published(at: entries.words.address))
        #expect(contents.map(\.rank) == [10, 20, 30])
        #expect(contents.map(\.registration) == [registrations[0].address, 0, registrations[2].address])
        #expect(entries.liveCount == 2)
        #expect(entries.clearedCount == 1)
    }

    @Test("Clearing an rank that is not there, or one already cleared, changes nothing")
    func clearingAnAbsentOrderChangesNothing() {
        let registrations = Self.registrations(3)
        var entries = Self.entries(capacity: 4, registrations)
        defer { entries.deallocate() }
        entries.clear(rank: 25)
        entries.clear(rank: 40)
        entries.clear(rank: 5)
        #expect(entries.liveCount == 3)
        #expect(entries.clearedCount == 0)
        entries.clear(rank: 30)
        entries.clear(rank: 30)
        #expect(entries.liveCount == 2)
        #expect(entries.clearedCount == 1)
    }

    @Test("Every entry is found to clear, whether it is the last or found by binary search, in any rank")
    func everyEntryIsFoundToClear() {
        let registrations = Self.registrations(9)
        var entries = Self.entries(capacity: 9, registrations)
        defer { entries.deallocate() }
        var expected = registrations.map(\.address)
        for position in [4, 8, 0, 7, 1, 3, 6, 2, 5] {
            entries.clear(rank: UInt(10 * (position + 1)))
            expected[position] = 0
            #expect(Self.contents(.published(at: entries.words.address)).map(\.registration) == expected)
        }
        #expect(entries.liveCount == 0)
        #expect(entries.clearedCount == 9)
    }

    @Test("Copying the live entries puts them, in rank, at the front of the new entries, with no cleared ones")
    func copyLiveKeepsOnlyLiveEntries() {
        let registrations = Self.registrations(5)
        var entries = Self.entries(capacity: 5, registrations)
        defer { entries.deallocate() }
        entries.clear(rank: 20)
        entries.clear(rank: 50)
        var copy = Route.Entries(capacity: 4)
        defer { copy.deallocate() }
        entries.copyLive(to: &copy)
        let contents = Self.contents(.published(at: copy.words.address))
        #expect(contents.map(\.rank) == [10, 30, 40])
        #expect(contents.map(\.registration) == [registrations[0], registrations[2], registrations[3]].map(\.address))
        #expect(copy.liveCount == 3)
        #expect(copy.clearedCount == 0)
        let appended = copy.append(rank: 60, registrations[4])
        #expect(appended)
        #expect(copy.words.count == 4)
    }

    @Test("A snapshot walks the entries it found: later appends are beyond its count, later removals read as 0")
    func aSnapshotKeepsItsCountAndSeesRemovals() {
        let registrations = Self.registrations(3)
        let route = Self.route(Array(registrations.prefix(2)))
        let snapshot = Route.Snapshot(published: route.published.address)
        route.insert(rank: 30, registrations[2])
        route.remove(rank: 10)
        #expect(snapshot.count == 2)
        #expect(snapshot.rank(at: 0) == 10)
        #expect(snapshot.registration(at: 0) == 0)
        #expect(snapshot.rank(at: 1) == 20)
        #expect(snapshot.registration(at: 1) == registrations[1].address)
        let later = Route.Snapshot(published: route.published.address)
        #expect(later.count == 3)
        #expect(later.registration(at: 2) == registrations[2].address)
    }

    @Test("A full route publishes new entries, and removals still clear the old ones a post is walking")
    func retiredEntriesAreClearedWhileAPostWalksThem() {
        let registrations = Self.registrations(9)
        // 4 registrations make entries of capacity 8, which the 9th no longer fits in.
        let route = Self.route(Array(registrations.prefix(4)))
        for position in 4..<8 {
            route.insert(rank: UInt(10 * (position + 1)), registrations[position])
        }
        // The open section keeps the old entries allocated, as it does for a post that is walking them.
        let section = ReadSection()
        defer { section.end() }
        let old = Route.Snapshot(published: route.published.address)
        route.insert(rank: 90, registrations[8])
        let new = Route.Snapshot(published: route.published.address)
        #expect(old.count == 8)
        #expect(new.count == 9)
        route.remove(rank: 30)
        #expect(old.registration(at: 2) == 0)
        #expect(new.registration(at: 2) == 0)
        #expect(old.registration(at: 3) == registrations[3].address)
        #expect(new.registration(at: 8) == registrations[8].address)
    }

    @Test(
        "A registration that ranks before an entry is inserted in its place in new entries, which a post walking the old ones does not see; cleared entries are left out"
    )
    func aRegistrationThatRanksEarlierIsInsertedInNewEntries() {
        let registrations = Self.registrations(4)
        let route = Self.route(Array(registrations.prefix(3)))
        route.remove(rank: 30)
        let section = ReadSection()
        defer { section.end() }
        let old = Route.Snapshot(published: route.published.address)
        route.insert(rank: 15, registrations[3])
        let new = Route.Snapshot(published: route.published.address)
        #expect(old.count == 3)
        #expect(
            (0..<old.count).map { old.registration(at: $0) } == [registrations[0].address, registrations[1].address, 0])
        #expect((0..<new.count).map { new.rank(at: $0) } == [10, 15, 20])
        #expect(
            (0..<new.count).map { new.registration(at: $0) }
                == [registrations[0].address, registrations[3].address, registrations[1].address])
        // A rank after every entry is appended in place: a snapshot taken before keeps its count.
        route.insert(rank: 40, registrations[2])
        #expect(new.count == 3)
        #expect(Route.Snapshot(published: route.published.address).count == 4)
    }

    @Test(
        "Once 16 or more entries are cleared and they outnumber the live ones, the route publishes only the live ones")
    func mostlyClearedEntriesAreCompacted() {
        let registrations = Self.registrations(40)
        let route = Self.route(registrations)
        // The 21st removal leaves 21 cleared and 19 live entries: the route copies the 19; 4 more are cleared.
        for position in 0..<25 {
            route.remove(rank: UInt(10 * (position + 1)))
        }
        let snapshot = Route.Snapshot(published: route.published.address)
        #expect(snapshot.count == 19)
        #expect(snapshot.rank(at: 0) == 220)
        #expect((0..<snapshot.count).filter { snapshot.registration(at: $0) != 0 }.count == 15)
        #expect(snapshot.registration(at: 18) == registrations[39].address)
    }

    @Test("The published words say what a post does besides delivering: keep sticky mail, report to instrumentation")
    func publishedWordsCarryAttention() {
        let sticky = Self.route([], attention: .keepsMail)
        let both = Self.route([], attention: [.keepsMail, .isObserved])
        let plain = Self.route([])
        #expect(Route.attention(published: sticky.published.address) == .keepsMail)
        #expect(Route.attention(published: both.published.address) == [.keepsMail, .isObserved])
        #expect(Route.attention(published: plain.published.address).isEmpty)
        #expect(Route.Snapshot(published: plain.published.address).count == 0)
    }

    #if DEBUG
    @Test("In a debug build, reading an entry at or beyond the count a post loaded stops the program")
    func entriesAreBoundsCheckedForPosts() async {
        await #expect(processExitsWith: .failure) {
            let words = Route.EntryWords.allocate(capacity: 4)
            _ = Route.EntryWords.published(at: words.address).rank(at: 0)
        }
    }

    @Test("In a debug build, writing an entry beyond the capacity stops the program")
    func entriesAreBoundsCheckedForWriters() async {
        await #expect(processExitsWith: .failure) {
            let words = Route.EntryWords.allocate(capacity: 2)
            words.initialize(at: 2, rank: 1, registration: 2)
        }
    }
    #endif
}
