extension Registration {
    /// How a registration ends, and where it stands, in one atomic word: registered; spent, once the one delivery
    /// of a one-shot registration was claimed; or removed. A delivery that waits runs only if, when its turn
    /// comes, the registration was not removed: a spent one-shot's claimed delivery still runs.
    ///
    /// Also where and when its handler runs, what its deliveries are reported to (the office's instrumentation),
    /// and what a failure of its handler is reported with: the office, the registration's id and its rank.
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
        let place: Place
        /// What a post checks before it delivers: in one byte, so that a registration with none of them costs
        /// its posts one test.
        let conditions: Conditions
        /// The office's instrumentation, for a registration whose deliveries are reported to it.
        let instrumenter: Instrumenter?
        /// The office that reports the failures of the registration's handler.
        weak let office: SortingOffice?
        /// The registration's id and rank (see ``Priority``) in its office: set once, when the office adds it,
        /// before any post can reach it; read by its deliveries, to report failures. See `docs/design.md`. Until
        /// then the id is numbered 0, which no registration has: not an `Optional`, whose tag would take this
        /// object into the next size of memory block.
        nonisolated(unsafe) private(set) var enrolment = (id: RecipientId(number: 0, slot: 0), rank: UInt(0))

        /// What a post checks before it delivers.
        struct Conditions: OptionSet {
            let rawValue: UInt8

            /// Made with `once: true`: it ends once it was delivered.
            static let isOneShot = Conditions(rawValue: 1)
            /// Made with `tiedTo:`: it ends when its owner goes.
            static let isTied = Conditions(rawValue: 2)
            /// Its deliveries are reported to the office's instrumentation.
            static let isObserved = Conditions(rawValue: 4)
        }

        init(place: Place, oneShot: Bool, tied: Bool, observed: Bool, office: SortingOffice) {
            self.place = place
            let words = UnsafeMutablePointer<UInt>.allocate(capacity: 2)
            words.initialize(repeating: 0, count: 2)
            words.pointee = Self.registered
            word = AtomicWord(words)
            backlog = AtomicWord(words + 1)
            var conditions: Conditions = []
            if oneShot { conditions.insert(.isOneShot) }
            if tied { conditions.insert(.isTied) }
            if observed { conditions.insert(.isObserved) }
            self.conditions = conditions
            instrumenter = observed ? office.instrumenter : nil
            self.office = office
        }

        deinit { word.deallocate() }

        /// True for a registration made with `once: true`.
        var isOneShot: Bool { conditions.contains(.isOneShot) }
        /// True for a registration made with `tiedTo:`.
        var isTied: Bool { conditions.contains(.isTied) }
        /// True once the office added the registration (``enrol(id:rank:)``).
        var isEnrolled: Bool { enrolment.id.number != 0 }

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
