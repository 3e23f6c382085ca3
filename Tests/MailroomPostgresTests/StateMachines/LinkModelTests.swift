#if Postgres
import MailroomTestSupport
import Testing

@testable import MailroomPostgres

/// The sender's and the listener's machines against a model of the database, through random interleavings: writes
/// that answer, fail before their commit, fail after it, or commit after the sender gave up on them; lookups and
/// confirmations that fail; notifications that arrive out of order, twice, or not at all; lost listening
/// connections; and pruning. Whatever happens, no mail is written twice or lost, none is delivered twice or out of
/// order, and what is not delivered is reported as missed, and only if it was pruned.
@Suite("The link's machines against a model database")
struct LinkModelTests {
    static let channels = ["alpha", "beta"]
    static let tag = "00c0ffee"
    /// Small, so that reads take several pages.
    static let pageSize = 3
    /// A notification carries mail whose body is shorter than this; longer mail is read from the outbox.
    static let notificationLimit = 6

    /// The database: committed mail, by channel and number, and what was pruned of it.
    struct Database {
        var lastSequence: [String: Int64] = [:]
        var outbox: [String: [Int64: Outbox.Row]] = [:]
        var committed: [String: [Int64: Outbox.Row]] = [:]
        var pruned: [String: Set<Int64>] = [:]
        var keys: Set<[Int64]> = []
        /// The notifications of the listening connection, in commit order, by channel.
        var notifications: [String: [String]] = [:]

        /// Commits `batch` unless one of its numbers is in the outbox already (PostgreSQL's unique constraint).
        mutating func commit(_ batch: Outbox.Batch) -> Bool {
            guard batch.numbers.allSatisfy({ !keys.contains([batch.link, $0]) }) else { return false }
            let base = lastSequence[batch.channel, default: 0]
            for index in batch.bodies.indices {
                keys.insert([batch.link, batch.numbers[index]])
                let row = Outbox.Row(
                    sequence: base + Int64(index) + 1, origin: batch.origin, link: batch.link, echo: batch.echo,
                    linkedName: batch.linkedNames[index], body: batch.bodies[index])
                outbox[batch.channel, default: [:]][row.sequence] = row
                committed[batch.channel, default: [:]][row.sequence] = row
                let tag = LinkModelTests.tag
                let whole =
                    "\(tag)\n\(row.sequence)\n\(row.link)\n\(row.echo ? "t" : "f")\n\(row.origin)\n\(row.linkedName)\n\(row.body)"
                notifications[batch.channel, default: []].append(
                    row.body.count < LinkModelTests.notificationLimit ? whole : "\(tag)\n\(row.sequence)")
            }
            lastSequence[batch.channel] = base + Int64(batch.bodies.count)
            return true
        }

        func rows(of channel: String, after sequence: Int64) -> [Outbox.Row] {
            Array(
                (outbox[channel] ?? [:]).values.filter { $0.sequence > sequence }.sorted { $0.sequence < $1.sequence }
                    .prefix(LinkModelTests.pageSize))
        }

        func committedNumbers(_ numbers: [Int64], of link: Int64) -> Set<Int64> {
            Set(numbers.filter { keys.contains([link, $0]) })
        }

        mutating func prune(_ channel: String, through sequence: Int64) {
            for number in (outbox[channel] ?? [:]).keys where number <= sequence {
                outbox[channel]?[number] = nil
                pruned[channel, default: []].insert(number)
            }
        }
    }

    /// One run: a sender and a listener against one database.
    struct Run {
        var random: SplitMix64
        var database = Database()
        var sender = SenderStateMachine(origin: "model", link: 5, limit: 1_000)
        var machines = Dictionary(
            uniqueKeysWithValues: LinkModelTests.channels.map {
                ($0, ChannelStateMachine(channel: $0, tag: LinkModelTests.tag))
            })
        /// Writes that failed and may still commit, as a statement can after its connection was given up.
        var ghosts: [Outbox.Batch] = []
        var posted: [String: [String]] = [:]
        var delivered: [String: [Int64]] = [:]
        var missed: [String: [Int64]] = [:]
        var problems: [String] = []
        var nextMail = 0

        init(seed: UInt64) {
            random = SplitMix64(seed: seed)
        }

        mutating func post() {
            let channel = random.pick(LinkModelTests.channels)
            let body = "m\(nextMail)" + String(repeating: "x", count: random.chance(30) ? 10 : 0)
            nextMail += 1
            if sender.enqueue(Outgoing(channel: channel, linkedName: "N", body: body)) == .queued {
                posted[channel, default: []].append(body)
            }
        }

        /// One action of the sender, with random outcomes unless `reliable`; returns whether the sender finished.
        @discardableResult
        mutating func sendStep(reliable: Bool = false) -> Bool {
            let failing = reliable ? 0 : 15
            switch sender.next() {
            case .finish:
                return true
            case .wait:
                return false
            case .lookUp(let numbers):
                if random.chance(failing) {
                    sender.failed()
                } else {
                    sender.lookedUp(database.committedNumbers(numbers, of: sender.link))
                }
            case .confirm:
                if random.chance(failing) { sender.failed() } else { sender.succeeded() }
            case .write(let batches):
                for batch in batches {
                    let outcome = reliable ? 0 : random.below(100)
                    let failed: Bool
                    if outcome < 70 {
                        failed = !database.commit(batch)
                    } else if outcome < 80 {
                        failed = true
                    } else if outcome < 90 {
                        _ = database.commit(batch)
                        failed = true
                    } else {
                        ghosts.append(batch)
                        failed = true
                    }
                    if failed {
                        sender.failed()
                        return false
                    }
                }
                sender.succeeded()
            }
            return false
        }

        /// A write given up on commits now, unless what it writes committed meanwhile.
        mutating func landGhost() {
            guard !ghosts.isEmpty else { return }
            _ = database.commit(ghosts.remove(at: random.below(ghosts.count)))
        }

        /// The listener receives a notification of `channel`: the next, a later one, or one again.
        mutating func notify(_ channel: String) {
            guard let pending = database.notifications[channel], !pending.isEmpty else { return }
            let choice = random.below(10)
            let index = choice < 7 ? 0 : random.below(pending.count)
            let payload = pending[index]
            if choice < 9 { database.notifications[channel]?.remove(at: index) }
            perform(machines[channel]!.notified(payload), on: channel)
        }

        /// The listening connection is lost: its notifications with it. The next one listens and reads.
        mutating func reconnect() {
            database.notifications = [:]
            for channel in LinkModelTests.channels { perform(machines[channel]!.listened(), on: channel) }
        }

        mutating func perform(_ actions: [ChannelStateMachine.Action], on channel: String) {
            var pending = actions[...]
            while let action = pending.popFirst() {
                switch action {
                case .deliver(let row):
                    if let last = delivered[channel]?.last, row.sequence <= last {
                        problems.append("\(channel) #\(row.sequence) delivered after #\(last)")
                    }
                    if database.committed[channel]?[row.sequence] != row {
                        problems.append("\(channel) #\(row.sequence) delivered as something that was not committed")
                    }
                    delivered[channel, default: []].append(row.sequence)
                case .report(let error):
                    guard error.code == .missedMail, let sequences = error.sequences else {
                        problems.append("unexpected report \(error)")
                        continue
                    }
                    missed[channel, default: []] += Array(sequences)
                case .read(let sequence):
                    let rows = database.rows(of: channel, after: sequence)
                    pending =
                        machines[channel]!.read(rows, complete: rows.count < LinkModelTests.pageSize)[...]
                        + pending
                }
            }
        }

        mutating func step() {
            switch random.below(100) {
            case 0..<30: post()
            case 30..<60: sendStep()
            case 60..<63: landGhost()
            case 63..<90: notify(random.pick(LinkModelTests.channels))
            case 90..<94: reconnect()
            case 94..<96:
                let channel = random.pick(LinkModelTests.channels)
                let last = database.lastSequence[channel, default: 0]
                if last > 0 { database.prune(channel, through: Int64(random.below(Int(last))) + 1) }
            default:
                break
            }
        }

        /// The database becomes reliable: the sender writes everything, the ghosts land or fail, and the listener
        /// reads everything on a new connection.
        mutating func settle() {
            while !ghosts.isEmpty { landGhost() }
            sender.stop()
            var steps = 0
            while !sendStep(reliable: true), steps < 10_000 { steps += 1 }
            if sender.unsent != 0 { problems.append("\(sender.unsent) unsent after settling") }
            reconnect()
            for channel in LinkModelTests.channels {
                while !(database.notifications[channel] ?? []).isEmpty { notify(channel) }
            }
        }

        /// What went wrong, checked against the model.
        mutating func check(from position: [String: Int64]) -> [String] {
            for channel in LinkModelTests.channels {
                let rows = (database.committed[channel] ?? [:]).values.sorted { $0.sequence < $1.sequence }
                let bodies = rows.map(\.body)
                if bodies != posted[channel, default: []] {
                    problems.append(
                        "\(channel): committed \(bodies.count) mail, posted \(posted[channel, default: []].count), "
                            + "or in another order")
                }
                let expected = rows.map(\.sequence).filter { $0 > position[channel, default: 0] }
                let received = delivered[channel, default: []] + missed[channel, default: []]
                if received.sorted() != expected {
                    problems.append("\(channel): delivered or missed \(received.sorted()), committed \(expected)")
                }
                let wronglyMissed = Set(missed[channel, default: []]).subtracting(database.pruned[channel] ?? [])
                if !wronglyMissed.isEmpty {
                    problems.append("\(channel): reported missed though in the outbox: \(wronglyMissed.sorted())")
                }
            }
            return problems
        }
    }

    @Test("500 random runs of 300 steps each: every mail committed once, delivered once in order or reported missed")
    func randomInterleavings() {
        var delivered = 0
        var missed = 0
        for seed in UInt64(1)...500 {
            var run = Run(seed: seed)
            // Mail committed before the listener first listens is not its to receive.
            for _ in 0..<run.random.below(20) { run.post() }
            for _ in 0..<run.random.below(20) { run.sendStep() }
            var position: [String: Int64] = [:]
            for channel in Self.channels {
                position[channel] = run.database.lastSequence[channel, default: 0]
                run.machines[channel]!.positioned(at: position[channel]!)
                run.database.notifications[channel] = []
            }
            run.reconnect()
            for _ in 0..<300 { run.step() }
            run.settle()
            let problems = run.check(from: position)
            #expect(problems.isEmpty, "seed \(seed): \(problems.prefix(5))")
            delivered += run.delivered.values.map(\.count).reduce(0, +)
            missed += run.missed.values.map(\.count).reduce(0, +)
        }
        // The runs exercise both outcomes: a model that delivered nothing, or never pruned, would prove little.
        #expect(delivered > 10_000)
        #expect(missed > 100)
    }
}
#endif
