extension Registration {
    /// How a registration ends, and where it stands, in one atomic word: registered; spent, once the one delivery
    /// of a one-shot registration was claimed; or removed. A delivery that waits runs only if, when its turn
    /// comes, the registration was not removed: a spent one-shot's claimed delivery still runs.
    ///
    /// Also where and when its handler runs, and what a failure of its handler is reported with: the office, the
    /// registration's id and its rank.
    final class Lifecycle: Sendable {
        private static let registered: UInt = 0
        private static let spent: UInt = 1
        private static let removed: UInt = 2

        /// Where it stands; allocated with ``backlog`` after it.
        private let word: AtomicWord
        /// For a main-actor registration, how many of its deliveries wait on the main queue: while any does, a
        /// post made on the main actor waits its turn there too.
        let backlog: AtomicWord
        /// Where and when the registration's handler runs.
        let schedule: Schedule
        /// True for a registration made in ``PostOffice/oneShot(_:)``, which ends once it was delivered.
        let isOneShot: Bool
        /// True for a registration made in ``PostOffice/tie(to:_:)``, which ends when its owner goes.
        let isTied: Bool
        /// The office that reports the failures of the registration's handler.
        weak let office: SortingOffice?
        /// The registration's id and rank (see ``Priority``) in its office: set once, when the office adds it,
        /// before any post can reach it; read by its deliveries, to report failures. See `docs/design.md`.
        nonisolated(unsafe) private(set) var enrolment: (id: RecipientId, rank: UInt)?

        init(schedule: Schedule, oneShot: Bool, tied: Bool, office: SortingOffice) {
            self.schedule = schedule
            let words = UnsafeMutablePointer<UInt>.allocate(capacity: 2)
            words.initialize(repeating: 0, count: 2)
            words.pointee = Self.registered
            word = AtomicWord(words)
            backlog = AtomicWord(words + 1)
            isOneShot = oneShot
            isTied = tied
            self.office = office
        }

        deinit { word.deallocate() }

        /// Records the registration's id and rank; called by its office, under its lock, as it adds it.
        @inline(__always)
        func enrol(id: RecipientId, rank: UInt) {
            enrolment = (id, rank)
        }

        /// False once the registration was removed.
        var isStanding: Bool { word.loadAcquire() != Self.removed }

        /// True once a one-shot registration's delivery was claimed, until it is removed.
        var isSpent: Bool { word.loadAcquire() == Self.spent }

        /// Claims the one delivery of a one-shot registration: true for exactly one caller, however many
        /// threads post at once, and for none once it was removed.
        func claim() -> Bool {
            word.loadAcquire() == Self.registered
                && word.compareExchange(expected: Self.registered, desired: Self.spent)
        }

        func remove() {
            word.storeRelease(Self.removed)
        }
    }
}
