#if Postgres
import MailroomTestSupport
import Testing

@testable import MailroomPostgres

/// One channel of a named subscription, driven through each of its transitions without a database.
@Suite("Subscription state machine")
struct SubscriptionStateMachineTests {
    func row(_ sequence: Int64) -> Outbox.Row {
        Outbox.Row(sequence: sequence, origin: "o", link: 9, echo: false, linkedName: "N", body: "\(sequence)")
    }

    func rows(_ sequences: ClosedRange<Int64>) -> [Outbox.Row] {
        sequences.map(row)
    }

    func stepOver(_ sequences: ClosedRange<Int64>) -> SubscriptionStateMachine.Action {
        .stepOver(
            PostgresLinkError(.missedMail, channel: "c", sequences: sequences), from: sequences.lowerBound - 1,
            to: sequences.upperBound)
    }

    @Test("it starts by reading after its stored position")
    func startsWithARead() {
        var machine = SubscriptionStateMachine(channel: "c", position: 7)
        #expect(machine.start() == .read(after: 7))
    }

    @Test("read mail is handled one at a time, in order, and the position follows each, stored before a wait")
    func handlesInOrder() {
        var machine = SubscriptionStateMachine(channel: "c", position: 4, storeEvery: 10)
        _ = machine.start()
        #expect(machine.read(rows(5...7), complete: true) == .handle(row(5), attempt: 1))
        #expect(machine.position == 4)
        #expect(machine.handled() == .handle(row(6), attempt: 1))
        #expect(machine.position == 5)
        #expect(machine.handled() == .handle(row(7), attempt: 1))
        #expect(machine.handled() == .store(from: 4, to: 7))
        #expect(machine.position == 7)
        #expect(machine.stored() == .wait(beyond: 7))
    }

    @Test("the position is stored after every so many mail, and after each one when that is 1")
    func storesPerBatch() {
        var machine = SubscriptionStateMachine(channel: "c", position: 0, storeEvery: 2)
        _ = machine.start()
        #expect(machine.read(rows(1...5), complete: true) == .handle(row(1), attempt: 1))
        #expect(machine.handled() == .handle(row(2), attempt: 1))
        #expect(machine.handled() == .store(from: 0, to: 2))
        #expect(machine.stored() == .handle(row(3), attempt: 1))
        #expect(machine.handled() == .handle(row(4), attempt: 1))
        #expect(machine.handled() == .store(from: 2, to: 4))
        #expect(machine.stored() == .handle(row(5), attempt: 1))
        #expect(machine.handled() == .store(from: 4, to: 5))
        #expect(machine.stored() == .wait(beyond: 5))
        var single = SubscriptionStateMachine(channel: "c", position: 0)
        _ = single.start()
        #expect(single.read(rows(1...2), complete: true) == .handle(row(1), attempt: 1))
        #expect(single.handled() == .store(from: 0, to: 1))
        #expect(single.stored() == .handle(row(2), attempt: 1))
    }

    @Test("after a page that was not the whole of it, the position is stored and the next page is read")
    func readsPageAfterPage() {
        var machine = SubscriptionStateMachine(channel: "c", position: 0, storeEvery: 10)
        _ = machine.start()
        #expect(machine.read(rows(1...2), complete: false) == .handle(row(1), attempt: 1))
        #expect(machine.handled() == .handle(row(2), attempt: 1))
        #expect(machine.handled() == .store(from: 0, to: 2))
        #expect(machine.stored() == .read(after: 2))
        #expect(machine.read([], complete: true) == .wait(beyond: 2))
    }

    @Test("a failure is counted, and mail buried, only once the mail handled before it is stored")
    func storesBeforeAFailure() {
        var machine = SubscriptionStateMachine(channel: "c", position: 0, maximumAttempts: 2, storeEvery: 10)
        _ = machine.start()
        #expect(machine.read(rows(1...4), complete: true) == .handle(row(1), attempt: 1))
        #expect(machine.handled() == .handle(row(2), attempt: 1))
        #expect(machine.failed() == .store(from: 0, to: 1))
        #expect(machine.stored() == .countFailure(row(2)))
        #expect(machine.counted(attempts: 1) == .retry(row(2), attempt: 2, after: .milliseconds(20)))
        #expect(machine.handled() == .handle(row(3), attempt: 1))
        #expect(machine.undecodable() == .store(from: 1, to: 2))
        #expect(machine.stored() == .bury(row(3), attempts: 1))
        #expect(machine.buried() == .handle(row(4), attempt: 1))
        #expect(machine.handled() == .store(from: 3, to: 4), "the dead letter stored its number")
    }

    @Test("a failed mail is counted, then tried again after a back-off that grows, and the position waits for it")
    func retriesWithBackOff() {
        var machine = SubscriptionStateMachine(channel: "c", position: 0, maximumAttempts: 4)
        _ = machine.start()
        #expect(machine.read(rows(1...2), complete: true) == .handle(row(1), attempt: 1))
        #expect(machine.failed() == .countFailure(row(1)))
        #expect(machine.counted(attempts: 1) == .retry(row(1), attempt: 2, after: .milliseconds(20)))
        #expect(machine.failed() == .countFailure(row(1)))
        #expect(machine.counted(attempts: 2) == .retry(row(1), attempt: 3, after: .milliseconds(40)))
        #expect(machine.position == 0)
        #expect(machine.handled() == .store(from: 0, to: 1))
        #expect(machine.stored() == .handle(row(2), attempt: 1))
        #expect(machine.failed() == .countFailure(row(2)))
        #expect(machine.counted(attempts: 1) == .retry(row(2), attempt: 2, after: .milliseconds(20)))
    }

    @Test("at the maximum of failed attempts, the mail goes to the dead letters and the next one is handled")
    func buriesAfterTheMaximum() {
        var machine = SubscriptionStateMachine(channel: "c", position: 0, maximumAttempts: 3)
        _ = machine.start()
        #expect(machine.read(rows(1...2), complete: true) == .handle(row(1), attempt: 1))
        #expect(machine.failed() == .countFailure(row(1)))
        #expect(machine.counted(attempts: 3) == .bury(row(1), attempts: 3), "the count is the database's")
        #expect(machine.buried() == .handle(row(2), attempt: 1))
        #expect(machine.position == 1)
    }

    @Test("the attempts stored before a restart go on counting; mail that does not decode is buried at once")
    func storedAttemptsCount() {
        var machine = SubscriptionStateMachine(channel: "c", position: 4, failures: 2, maximumAttempts: 3)
        _ = machine.start()
        #expect(machine.read(rows(5...6), complete: true) == .handle(row(5), attempt: 3))
        #expect(machine.failed() == .countFailure(row(5)))
        #expect(machine.counted(attempts: 3) == .bury(row(5), attempts: 3))
        #expect(machine.buried() == .handle(row(6), attempt: 1))
        #expect(machine.undecodable() == .bury(row(6), attempts: 1))
        var pruned = SubscriptionStateMachine(channel: "c", position: 4, failures: 2, maximumAttempts: 3)
        _ = pruned.start()
        #expect(pruned.read(rows(7...7), complete: true) == stepOver(5...6))
        #expect(pruned.stepped() == .handle(row(7), attempt: 1), "the failures were the pruned mail's")
    }

    @Test("waking for mail beyond the position reads it; waking for less waits on")
    func wakesForNewMail() {
        var machine = SubscriptionStateMachine(channel: "c", position: 3)
        _ = machine.start()
        #expect(machine.read([], complete: true) == .wait(beyond: 3))
        #expect(machine.woke(latest: 3) == .wait(beyond: 3))
        #expect(machine.woke(latest: 5) == .read(after: 3))
        #expect(machine.read(rows(4...5), complete: true) == .handle(row(4), attempt: 1))
    }

    @Test("a reader that waited a heartbeat with no word of mail reads the outbox once more")
    func readsAgainAfterAHeartbeat() {
        var machine = SubscriptionStateMachine(channel: "c", position: 3)
        _ = machine.start()
        #expect(machine.read([], complete: true) == .wait(beyond: 3))
        #expect(machine.waitedLong() == .read(after: 3))
        #expect(machine.read([], complete: true) == .wait(beyond: 3))
        #expect(machine.waitedLong() == .read(after: 3))
        #expect(machine.read(rows(4...4), complete: true) == .handle(row(4), attempt: 1))
        #expect(machine.waitedLong() == .handle(row(4), attempt: 1), "not while there is mail in hand")
    }

    @Test("mail pruned before the first read is stepped over and reported as missed")
    func stepsOverPrunedFront() {
        var machine = SubscriptionStateMachine(channel: "c", position: 2)
        _ = machine.start()
        #expect(machine.read(rows(6...7), complete: true) == stepOver(3...5))
        #expect(machine.position == 5)
        #expect(machine.stepped() == .handle(row(6), attempt: 1))
    }

    @Test("mail known to exist that a complete read does not return was pruned: it is reported as missed")
    func stepsOverPrunedTail() {
        var machine = SubscriptionStateMachine(channel: "c", position: 2)
        _ = machine.start()
        #expect(machine.read([], complete: true) == .wait(beyond: 2))
        #expect(machine.woke(latest: 9) == .read(after: 2))
        #expect(machine.read([], complete: true) == stepOver(3...9))
        #expect(machine.stepped() == .wait(beyond: 9))
    }

    @Test("mail that commits after a read asked for is read again, not reported")
    func mailCommittedDuringAReadIsRead() {
        // The read was asked for when nothing was known beyond 2; 3 and 4 committed after its snapshot.
        var machine = SubscriptionStateMachine(channel: "c", position: 2)
        _ = machine.start()
        #expect(machine.read([], complete: true) == .wait(beyond: 2))
        #expect(machine.woke(latest: 4) == .read(after: 2))
        #expect(machine.read(rows(3...4), complete: true) == .handle(row(3), attempt: 1))
    }

    @Test("rows at or before the position are ignored")
    func oldRowsAreIgnored() {
        var machine = SubscriptionStateMachine(channel: "c", position: 5)
        _ = machine.start()
        #expect(machine.read(rows(4...6), complete: true) == .handle(row(6), attempt: 1))
    }
}

/// The subscription's machine against a model of the database, through random interleavings: commits, pruning,
/// recipients that throw now and then or always (poison), wakes, batches of every size, and crashes that restart the
/// reader from the stored position and attempts. Whatever happens, each committed mail is handled (at least once,
/// and more than once only when a crash came between its handling and the storing of its position), buried after
/// the maximum of attempts counted across crashes, or reported as missed (and only if it was pruned), in order; and
/// when the handlers write in the transaction that stores the position, each mail's write commits exactly once.
@Suite("The subscription's machine against a model database")
struct SubscriptionModelTests {
    static let pageSize = 3
    static let maximumAttempts = 4

    /// Whether mail `sequence` always fails.
    static func isPoison(_ sequence: Int64) -> Bool { sequence % 13 == 0 }

    struct Model {
        var random: SplitMix64
        var outbox: [Int64: Outbox.Row] = [:]
        var last: Int64 = 0
        var pruned: Set<Int64> = []
        var stored: Int64 = 0
        /// The failed attempts at the mail after `stored`, as the database counts them.
        var storedAttempts = 0
        var buried: [Int64] = []
        let storeEvery: Int
        var machine: SubscriptionStateMachine
        var action: SubscriptionStateMachine.Action
        /// Every handling that returned, in order (a mail twice only across a crash).
        var handled: [Int64] = []
        /// What the handlers wrote in the batch's transaction, not yet committed.
        var uncommitted: [Int64] = []
        /// What the handlers wrote, committed with the position.
        var committed: [Int64] = []
        var missed: [Int64] = []
        var crashes = 0

        init(seed: UInt64) {
            random = SplitMix64(seed: seed)
            storeEvery = Int(seed % 5) + 1
            machine = SubscriptionStateMachine(
                channel: "c", position: 0, maximumAttempts: SubscriptionModelTests.maximumAttempts,
                storeEvery: storeEvery)
            action = machine.start()
        }

        mutating func commit() {
            last += 1
            outbox[last] = Outbox.Row(
                sequence: last, origin: "o", link: 1, echo: false, linkedName: "N", body: "\(last)")
        }

        mutating func prune() {
            guard let oldest = outbox.keys.min() else { return }
            outbox[oldest] = nil
            pruned.insert(oldest)
        }

        mutating func crash() {
            crashes += 1
            uncommitted = []
            machine = SubscriptionStateMachine(
                channel: "c", position: stored, failures: storedAttempts,
                maximumAttempts: SubscriptionModelTests.maximumAttempts, storeEvery: storeEvery)
            action = machine.start()
        }

        /// Performs the machine's action, as the reader does.
        mutating func perform() {
            switch action {
            case .read(let after):
                let rows = outbox.values.filter { $0.sequence > after }.sorted { $0.sequence < $1.sequence }
                let page = Array(rows.prefix(SubscriptionModelTests.pageSize))
                action = machine.read(page, complete: page.count < SubscriptionModelTests.pageSize)
            case .handle(let row, let attempt), .retry(let row, let attempt, _):
                #expect(row.sequence == machine.position + 1, "handled \(row.sequence) after \(machine.position)")
                let failures = row.sequence == stored + 1 ? storedAttempts : 0
                #expect(attempt == failures + 1, "attempt \(attempt) after \(failures) failures")
                if SubscriptionModelTests.isPoison(row.sequence) || random.next() % 5 == 0 {
                    action = machine.failed()
                    return
                }
                handled.append(row.sequence)
                uncommitted.append(row.sequence)
                action = machine.handled()
            case .store(let from, let to):
                #expect(from == stored && to == machine.position && to > from)
                if random.next() % 20 == 0 {
                    // The process dies between the recipients' return and the storing of the position.
                    crash()
                    return
                }
                stored = to
                storedAttempts = 0
                committed += uncommitted
                uncommitted = []
                action = machine.stored()
            case .countFailure(let row):
                #expect(row.sequence == stored + 1)
                storedAttempts += 1
                action = machine.counted(attempts: storedAttempts)
            case .bury(let row, let attempts):
                #expect(row.sequence == stored + 1)
                #expect(attempts == storedAttempts && attempts >= SubscriptionModelTests.maximumAttempts)
                buried.append(row.sequence)
                stored = row.sequence
                storedAttempts = 0
                action = machine.buried()
            case .stepOver(let error, let from, let to):
                #expect(from == stored)
                for sequence in error.sequences ?? 1...0 {
                    #expect(pruned.contains(sequence), "reported \(sequence) as missed, but it was not pruned")
                    missed.append(sequence)
                }
                stored = to
                storedAttempts = 0
                action = machine.stepped()
            case .wait(let beyond):
                if last > beyond {
                    // The listener has passed it on, or (one time in four) not yet: the reader finds it at a
                    // heartbeat.
                    action = random.next() % 4 == 0 ? machine.waitedLong() : machine.woke(latest: last)
                }
            }
        }
    }

    @Test("500 random interleavings: every mail handled in order at least once, buried, or missed only when pruned")
    func randomInterleavings() {
        for seed in UInt64(1)...500 {
            var model = Model(seed: seed)
            for _ in 0..<400 {
                switch model.random.next() % 10 {
                case 0, 1, 2: model.commit()
                case 3 where model.random.next() % 6 == 0: model.prune()
                case 4 where model.random.next() % 10 == 0: model.crash()
                default: model.perform()
                }
            }
            // Nothing more commits or is pruned: the reader catches up.
            for _ in 0..<2000 {
                if case .wait(let beyond) = model.action, beyond >= model.last { break }
                model.perform()
            }
            guard case .wait(let beyond) = model.action else {
                Issue.record("seed \(seed): the reader did not catch up")
                continue
            }
            #expect(beyond == model.last, "seed \(seed)")
            #expect(model.stored == model.last, "seed \(seed)")
            // Each number up to the last was handled or missed; missed ones never handled after they were missed.
            let handled = Set(model.handled)
            let (buried, missed) = (Set(model.buried), Set(model.missed))
            for sequence in 1...max(model.last, 1) where model.last > 0 {
                // Handled and then buried or missed only when a crash came between its handling and the storing of
                // its number.
                let (wasHandled, wasBuried) = (handled.contains(sequence), buried.contains(sequence))
                let wasMissed = missed.contains(sequence)
                #expect(
                    (wasHandled || wasBuried || wasMissed) && !(wasBuried && wasMissed),
                    "seed \(seed): mail \(sequence) is handled \(wasHandled), buried \(wasBuried), missed \(wasMissed)")
                if Self.isPoison(sequence) { #expect(!handled.contains(sequence), "seed \(seed)") }
            }
            #expect(model.buried.count == buried.count, "seed \(seed): a mail buried twice")
            #expect(Set(model.missed).count == model.missed.count, "seed \(seed): a mail reported missed twice")
            // More handlings than mail only through crashes: each crash repeats at most one batch.
            #expect(model.handled.count - handled.count <= model.crashes * model.storeEvery, "seed \(seed)")
            // Each mail's write committed once, unless it was buried or missed.
            let committed = Set(model.committed)
            #expect(committed.count == model.committed.count, "seed \(seed): a write committed twice")
            #expect(committed.isDisjoint(with: buried.union(missed)), "seed \(seed)")
            #expect(committed.union(buried).union(missed) == Set(1...max(model.last, 1)) || model.last == 0)
        }
    }
}
#endif
