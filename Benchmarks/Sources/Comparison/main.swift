// Mailroom against its peers, side by side in one process: NotificationCenter's block observers, Foundation's
// typed messages (NotificationCenter.MainActorMessage and AsyncMessage), AsyncStream, and a bare loop.
//
// Every scenario is measured in several rounds; within a round each system (Mailroom, its peer, the bare floor,
// and the reference the target compares with) is measured once, in an order that alternates from round to round.
// Each measurement runs for about 60 ms; the table shows the median of the rounds. Ratios are taken within this
// one run, never across runs: wall-clock time on a shared machine moves by several percent from run to run. Two
// kinds of figure are read instead in a fresh child process of this tool, one child per round: the memory
// scenario's (`--memory-child KIND`), in the first 3 rounds only, since a child's figure hardly moves and takes a
// fraction of a second; and the main-actor scenario's post from a `@MainActor` async function
// (`--main-actor-task-child`), in every round, since it needs the main thread parked and this process's rounds run
// on the main thread (the child times its posts the same way, about 60 ms per measurement).
//
//   Comparison [--rounds N] [--curve] [--results DIR] [--only NAME] [--variant NAME]
//   Comparison --memory-child KIND
//   Comparison --main-actor-task-child
//
//   --rounds N      rounds per scenario (default 9)
//   --curve         also measure the cost of a post against the number of recipients
//   --results DIR   write the table to DIR/comparison.md and, with --curve, the curve to DIR/curve.csv
//   --only NAME     only the scenario named NAME, or if none is, those whose name contains NAME (one-closure,
//                   1000-closures, 1000-methods, other-types, other-senders, million-others, exact-sender,
//                   subclass, register-unregister, queue, two-threads, main-actor, async-recipient, mail-sequence,
//                   typed-register-unregister, memory), for profiling
//   --variant NAME  only the variant named NAME, or if none is, those whose name starts with NAME (Mailroom,
//                   NotificationCenter, Foundation, bare), for profiling one system alone
//   --memory-child  the memory scenario's child: makes the registrations of one KIND (see MemoryScenario.swift) and
//                   prints the resident and heap bytes they added per registration
//   --main-actor-task-child
//                   the main-actor scenario's child: posts from a main-actor task with the main thread parked (see
//                   MainActorScenarios.swift) and prints whether a post delivered at once and the nanoseconds per
//                   post
//
// The exit status is 0 whatever the results: this is a report, not a gate.
import Dispatch
import Foundation
import Mailroom

// MARK: - Mail, recipients and sinks

struct Ping: Mail {
    let value: Int
}

/// A distinct mail type for each `Tag`; `Other<Other<Ping>>` and so on make as many types as needed.
struct Other<Tag>: Mail {}

/// Class mail: `Leaf` has three superclasses, each a mail type with recipients of its own.
class Rank0: Mail, @unchecked Sendable {
    let value: Int

    init(value: Int) {
        self.value = value
    }
}

class Rank1: Rank0, @unchecked Sendable {}

class Rank2: Rank1, @unchecked Sendable {}

final class Leaf: Rank2, @unchecked Sendable {}

/// Class mail with no superclass, for the same number of recipients as `Leaf`.
final class Solo: Mail {
    let value: Int

    init(value: Int) {
        self.value = value
    }
}

/// An object whose method is registered; the office holds it weakly.
final class Recipient: Sendable {
    let offset: Int

    init(offset: Int) {
        self.offset = offset
    }

    func receive(_ ping: Ping) {
        consume(ping.value &+ offset)
    }
}

/// A sender for exact-sender registrations.
final class Sender: Sendable {}

/// Takes a value so that the optimizer cannot drop the work that produced it.
@inline(never) @_optimize(none)
func consume(_ value: Int) {}

/// `iterations` rounds of four independent multiply-add and shift chains: about as many instructions per cycle
/// as a core retires, with no memory shared.
@inline(never)
func busyLoop(_ iterations: Int) -> Int {
    var (a, b, c, d): (UInt64, UInt64, UInt64, UInt64) = (1, 2, 3, 4)
    for index in 0..<UInt64(iterations) {
        a = a &* 6_364_136_223_846_793_005 &+ index
        b = b &* 1_442_695_040_888_963_407 &+ index
        c = (c ^ (c >> 7)) &+ index
        d = (d &+ (d << 3)) ^ index
    }
    return Int(truncatingIfNeeded: a ^ b ^ c ^ d)
}

/// The recipients' work, as closures in an array for the bare loop. Mailroom and NotificationCenter get the
/// same closures written as closure literals at the call, the way their users write them: a closure value
/// taken from an array (a generic container) would reach Mailroom's generic `register` through two
/// reabstraction thunks, which the "closure values" variant of the 1000-recipient scenario measures.
func makeHandlers(_ count: Int) -> [@Sendable (Ping) -> Void] {
    (0..<count).map { offset in { (ping: Ping) in consume(ping.value &+ offset) } }
}

let pingName = Notification.Name("Ping")
let mailKey = "mail"

/// Adds a block observer the way NotificationCenter's users write it: the mail travels in `userInfo` and is
/// cast back in the observer.
/// Posts `iterations` pings to `center` the way its users do: the value in userInfo, under `pingName`.
func postPings(_ iterations: Int, to center: NotificationCenter, object: AnyObject? = nil) {
    for index in 0..<iterations {
        center.post(name: pingName, object: object, userInfo: [mailKey: Ping(value: index)])
    }
}

func observe(
    _ center: NotificationCenter,
    name: Notification.Name = pingName,
    object: AnyObject? = nil,
    _ handler: @escaping @Sendable (Ping) -> Void
) -> NSObjectProtocol {
    center.addObserver(forName: name, object: object, queue: nil) { note in
        if let ping = note.userInfo?[mailKey] as? Ping {
            handler(ping)
        }
    }
}

/// Registers a closure for each of `count` distinct mail types, `Other<Ping>`, `Other<Other<Ping>>`, ...
func registerOtherTypes(_ office: PostOffice, count: Int) {
    func register<Tag>(_: Tag.Type, remaining: Int) {
        guard remaining > 0 else { return }
        office.register { (_: Other<Tag>) in consume(0) }
        register(Other<Tag>.self, remaining: remaining - 1)
    }
    register(Ping.self, remaining: count)
}

/// Keeps objects alive for the whole run (weak recipients, exact senders, observer tokens).
final class KeepAlive: @unchecked Sendable {
    var objects: [AnyObject] = []
    var tokens: [NotificationCenter.ObservationToken] = []
    func hold(_ object: AnyObject) { objects.append(object) }
    func hold(_ list: [AnyObject]) { objects.append(contentsOf: list) }
    func hold(_ token: NotificationCenter.ObservationToken) { tokens.append(token) }
}

let keepAlive = KeepAlive()

// MARK: - Measuring

/// What a variant's samples are.
enum Quantity {
    /// Timed: nanoseconds per operation.
    case nanoseconds
    /// Read, not timed: bytes per live registration.
    case bytes
}

/// One thing to time: `run(n)` performs `n` iterations of `operationsPerIteration` operations each. Or one thing
/// to read, in a child process: `sample()` returns its bytes per registration (the memory scenario) or its
/// nanoseconds per operation (the main-actor scenario's post from a main-actor task).
final class Variant {
    let name: String
    let operationsPerIteration: Int
    let run: (Int) -> Void
    let quantity: Quantity
    /// Takes one sample of a variant that is read rather than timed here.
    private let sample: (() -> Double)?
    /// Rounds after which the variant stops taking samples: some read samples (a memory child's) move little.
    private let maximumSamples: Int
    private var iterations = 0
    private(set) var samples: [Double] = []

    init(_ name: String, operationsPerIteration: Int = 1, run: @escaping (Int) -> Void) {
        self.name = name
        self.operationsPerIteration = operationsPerIteration
        self.run = run
        quantity = .nanoseconds
        sample = nil
        maximumSamples = .max
    }

    /// A variant read rather than timed here: each round until `maximumSamples` calls `sample`, which returns the
    /// figure in `quantity` (NaN if it could not be read).
    init(_ name: String, quantity: Quantity, maximumSamples: Int = .max, sample: @escaping () -> Double) {
        self.name = name
        operationsPerIteration = 1
        run = { _ in }
        self.quantity = quantity
        self.sample = sample
        self.maximumSamples = maximumSamples
    }

    static let targetNanoseconds = 60_000_000.0

    /// Chooses the iteration count that takes about 60 ms (and warms up on the way).
    func calibrate() {
        var count = 1
        while true {
            let elapsed = Self.time { run(count) }
            if elapsed >= 20_000_000 {
                iterations = max(1, Int(Double(count) * Self.targetNanoseconds / elapsed))
                return
            }
            count *= elapsed < 1_000_000 ? 10 : 2
        }
    }

    /// Times one measurement and records its nanoseconds per operation (or reads one sample).
    func measure() {
        guard samples.count < maximumSamples else { return }
        if let sample {
            samples.append(sample())
            return
        }
        if iterations == 0 { calibrate() }
        let elapsed = Self.time { run(iterations) }
        samples.append(elapsed / Double(iterations * operationsPerIteration))
    }

    /// The median sample: nanoseconds per operation, or bytes per registration.
    var median: Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    var operationsPerSecond: Double { 1e9 / median }

    static func time(_ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        return Double(DispatchTime.now().uptimeNanoseconds - start)
    }
}

/// Runs this tool again as a child with `arguments` (a child measures one thing, prints numbers separated by
/// white space, and exits) and returns the numbers it printed: nil if it could not be started, did not exit with
/// status 0, or printed anything that is not a number.
func childOutput(_ arguments: [String]) -> [Double]? {
    let process = Process()
    process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    do {
        try process.run()
    } catch {
        return nil
    }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let words = output.split(whereSeparator: \.isWhitespace)
    let numbers = words.compactMap { Double($0) }
    guard process.terminationStatus == 0, numbers.count == words.count else { return nil }
    return numbers
}

enum Target {
    /// Mailroom at least `x` times faster than the reference: reference time ÷ Mailroom time ≥ x.
    case faster(Double)
    /// Mailroom costs at most `x` times the reference: Mailroom time (or bytes) ÷ the reference's ≤ x.
    case cost(Double)
    /// No target: the ratio is shown as a cost, and the row is not counted among the targets.
    case reportOnly

    var description: String {
        switch self {
        case .faster(let x): return "≥ \(format(x))x faster"
        case .cost(let x): return "≤ \(format(x))x the cost"
        case .reportOnly: return "— (report only)"
        }
    }

    func ratio(mailroom: Double, reference: Double) -> Double {
        switch self {
        case .faster: return reference / mailroom
        case .cost, .reportOnly: return mailroom / reference
        }
    }

    func isMet(by ratio: Double) -> Bool {
        switch self {
        case .faster(let x): return ratio >= x
        case .cost(let x): return ratio <= x
        case .reportOnly: return true
        }
    }

    var isCounted: Bool {
        if case .reportOnly = self { return false }
        return true
    }

    private func format(_ x: Double) -> String {
        x == x.rounded() ? String(Int(x)) : String(x)
    }
}

/// One line of the table: one target of one scenario.
struct Row {
    let scenario: String
    let mailroom: Variant
    /// The system Mailroom replaces, for reference (`peerName` says which), whether or not the ratio is taken
    /// against it.
    let peer: Variant?
    var peerName = "NotificationCenter"
    let bare: Variant?
    /// What the ratio compares Mailroom with.
    let referenceLabel: String
    let reference: Variant
    let target: Target
    /// A check made during the run (FIFO order) that the row also needs to pass.
    var check: (() -> Bool)?
}

struct Scenario {
    let variants: [Variant]
    let rows: [Row]
    /// Lines printed under the table, made after the rounds.
    var notes: [() -> String] = []
}

/// How many cores a measured stretch of posting threads had: their CPU time over the wall time.
final class CoreUsage: @unchecked Sendable {
    private let lock = NSLock()
    private var cpuNanoseconds = 0.0
    private var samples: [Double] = []

    /// Runs `body` on `threads` threads at once and records their CPU time over the wall time (for runs
    /// of 20 ms or more: calibration's short runs are left out).
    func run(threads: Int, _ body: @escaping @Sendable () -> Void) {
        cpuNanoseconds = 0
        let start = DispatchTime.now().uptimeNanoseconds
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            let before = Self.threadCPUTime()
            body()
            let spent = Self.threadCPUTime() - before
            lock.withLock { cpuNanoseconds += spent }
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start)
        if wall >= 20_000_000 {
            samples.append(cpuNanoseconds / wall)
        }
    }

    var median: Double {
        let sorted = samples.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    private static func threadCPUTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
    }
}

// MARK: - Scenarios

/// Post to `count` closure recipients: Mailroom, NotificationCenter and the bare loop over the same closures.
/// Per delivery when `perDelivery`, else per post.
func recipientsVariants(_ count: Int, perDelivery: Bool) -> (mailroom: Variant, center: Variant, bare: Variant) {
    let unit = perDelivery ? count : 1

    let office = PostOffice()
    for offset in 0..<count {
        office.register { (ping: Ping) in consume(ping.value &+ offset) }
    }
    office.post(Ping(value: 0))
    let mailroom = Variant("Mailroom", operationsPerIteration: unit) { iterations in
        for index in 0..<iterations { office.post(Ping(value: index)) }
    }

    let center = NotificationCenter()
    for offset in 0..<count {
        keepAlive.hold(observe(center) { ping in consume(ping.value &+ offset) })
    }
    let notificationCenter = Variant("NotificationCenter", operationsPerIteration: unit) { iterations in
        postPings(iterations, to: center)
    }

    return (mailroom, notificationCenter, bareLoop(over: makeHandlers(count), operationsPerIteration: unit))
}

/// The floor: a loop calling the same closures from an array. (Swift retains and releases each closure's
/// context around the call, which Mailroom's delivery does not.)
func bareLoop(over handlers: [@Sendable (Ping) -> Void], operationsPerIteration: Int = 1) -> Variant {
    Variant("bare loop", operationsPerIteration: operationsPerIteration) { iterations in
        for index in 0..<iterations {
            let ping = Ping(value: index)
            for handler in handlers { handler(ping) }
        }
    }
}

func oneClosure() -> Scenario {
    let (mailroom, center, bare) = recipientsVariants(1, perDelivery: false)
    return Scenario(
        variants: [mailroom, center, bare],
        rows: [
            Row(
                scenario: "post to 1 closure recipient", mailroom: mailroom, peer: center, bare: bare,
                referenceLabel: "NotificationCenter", reference: center, target: .faster(20))
        ]
    )
}

func thousandClosures() -> Scenario {
    let (mailroom, center, bare) = recipientsVariants(1000, perDelivery: true)
    let scenario = "post to 1000 closure recipients (per delivery)"

    // Diagnostic: the same closures registered as values taken from the bare loop's array.
    let valuesOffice = PostOffice()
    for handler in makeHandlers(1000) { valuesOffice.register(handler) }
    valuesOffice.post(Ping(value: 0))
    let values = Variant("Mailroom, closure values from an array", operationsPerIteration: 1000) { iterations in
        for index in 0..<iterations { valuesOffice.post(Ping(value: index)) }
    }
    let note = {
        "1000 closure recipients registered as closure values taken from an array instead of closure literals: "
            + "\(formatRate(values.operationsPerSecond)) deliveries/s, "
            + formatRatio(values.median / bare.median) + " the bare loop's cost."
    }
    return Scenario(
        variants: [mailroom, center, bare, values],
        rows: [
            Row(
                scenario: scenario, mailroom: mailroom, peer: center, bare: bare,
                referenceLabel: "NotificationCenter", reference: center, target: .faster(15)),
            Row(
                scenario: scenario, mailroom: mailroom, peer: center, bare: bare,
                referenceLabel: "bare loop over the same closures", reference: bare, target: .cost(1.3)),
        ],
        notes: [note]
    )
}

func thousandMethods() -> Scenario {
    let count = 1000
    let recipients = (0..<count).map { Recipient(offset: $0) }
    keepAlive.hold(recipients)

    let office = PostOffice()
    for recipient in recipients { office.register(recipient, Recipient.receive) }
    office.post(Ping(value: 0))
    let mailroom = Variant("Mailroom", operationsPerIteration: count) { iterations in
        for index in 0..<iterations { office.post(Ping(value: index)) }
    }

    let center = NotificationCenter()
    for recipient in recipients {
        let token = center.addObserver(forName: pingName, object: nil, queue: nil) { [weak recipient] note in
            guard let recipient, let ping = note.userInfo?[mailKey] as? Ping else { return }
            recipient.receive(ping)
        }
        keepAlive.hold(token)
    }
    let notificationCenter = Variant("NotificationCenter", operationsPerIteration: count) { iterations in
        postPings(iterations, to: center)
    }

    let handlers: [(Ping) -> Void] = recipients.map { recipient in
        { [weak recipient] ping in recipient?.receive(ping) }
    }
    let bare = Variant("bare loop", operationsPerIteration: count) { iterations in
        for index in 0..<iterations {
            let ping = Ping(value: index)
            for handler in handlers { handler(ping) }
        }
    }
    return Scenario(
        variants: [mailroom, notificationCenter, bare],
        rows: [
            Row(
                scenario: "post to 1000 weak method recipients (per delivery)", mailroom: mailroom,
                peer: notificationCenter, bare: bare, referenceLabel: "NotificationCenter",
                reference: notificationCenter, target: .faster(5))
        ]
    )
}

/// One matching closure recipient, in an office (and a center) that also holds `others`; the reference is the
/// same post in an office with nothing else.
func oneAmongOthers(
    scenario: String,
    setUpOffice: (PostOffice) -> Void,
    setUpCenter: (NotificationCenter) -> Void,
    sender: Sender? = nil
) -> Scenario {
    func makeOffice(withOthers: Bool) -> PostOffice {
        let office = PostOffice()
        if withOthers { setUpOffice(office) }
        if let sender {
            office.register(sender: sender) { (ping: Ping) in consume(ping.value) }
        } else {
            office.register { (ping: Ping) in consume(ping.value) }
        }
        office.post(Ping(value: 0), sender: sender)
        return office
    }
    func postVariant(_ name: String, _ office: PostOffice) -> Variant {
        Variant(name) { iterations in
            for index in 0..<iterations { office.post(Ping(value: index), sender: sender) }
        }
    }
    let mailroom = postVariant("Mailroom", makeOffice(withOthers: true))
    let alone = postVariant("Mailroom, no other registrations", makeOffice(withOthers: false))

    let center = NotificationCenter()
    setUpCenter(center)
    keepAlive.hold(observe(center, object: sender) { ping in consume(ping.value) })
    let notificationCenter = Variant("NotificationCenter") { iterations in
        postPings(iterations, to: center, object: sender)
    }

    let bare = bareLoop(over: makeHandlers(1))
    return Scenario(
        variants: [mailroom, alone, notificationCenter, bare],
        rows: [
            Row(
                scenario: scenario, mailroom: mailroom, peer: notificationCenter, bare: bare,
                referenceLabel: "Mailroom, same post, no other registrations", reference: alone,
                target: .cost(1.25))
        ]
    )
}

func otherTypes() -> Scenario {
    oneAmongOthers(
        scenario: "1 matching recipient + 1024 recipients of 1024 other mail types",
        setUpOffice: { registerOtherTypes($0, count: 1024) },
        setUpCenter: { center in
            for index in 0..<1024 {
                keepAlive.hold(observe(center, name: Notification.Name("Other\(index)")) { _ in })
            }
        }
    )
}

func otherSenders() -> Scenario {
    let senders = (0..<1000).map { _ in Sender() }
    let sender = Sender()
    keepAlive.hold(senders)
    keepAlive.hold(sender)
    return oneAmongOthers(
        scenario: "1 matching exact-sender recipient + 1000 recipients of 1000 other senders (post with sender)",
        setUpOffice: { office in
            for other in senders { office.register(sender: other) { (_: Ping) in consume(0) } }
        },
        setUpCenter: { center in
            for other in senders { keepAlive.hold(observe(center, object: other) { _ in }) }
        },
        sender: sender
    )
}

func millionOthers() -> Scenario {
    let count = 1_000_000
    return oneAmongOthers(
        scenario: "1 matching recipient + 1M live registrations of another type",
        setUpOffice: { office in
            for _ in 0..<count { office.register { (_: Other<Ping>) in consume(0) } }
        },
        setUpCenter: { center in
            let other = Notification.Name("Other")
            for _ in 0..<count { keepAlive.hold(observe(center, name: other) { _ in }) }
        }
    )
}

func exactSender() -> Scenario {
    let sender = Sender()
    keepAlive.hold(sender)

    let office = PostOffice()
    office.register(sender: sender) { (ping: Ping) in consume(ping.value) }
    office.post(Ping(value: 0), sender: sender)
    let mailroom = Variant("Mailroom") { iterations in
        for index in 0..<iterations { office.post(Ping(value: index), sender: sender) }
    }

    let plainOffice = PostOffice()
    plainOffice.register { (ping: Ping) in consume(ping.value) }
    plainOffice.post(Ping(value: 0))
    let plain = Variant("Mailroom, 1 unfiltered recipient, no sender") { iterations in
        for index in 0..<iterations { plainOffice.post(Ping(value: index)) }
    }

    let center = NotificationCenter()
    keepAlive.hold(observe(center, object: sender) { ping in consume(ping.value) })
    let notificationCenter = Variant("NotificationCenter") { iterations in
        postPings(iterations, to: center, object: sender)
    }
    let bare = bareLoop(over: makeHandlers(1))
    return Scenario(
        variants: [mailroom, plain, notificationCenter, bare],
        rows: [
            Row(
                scenario: "post with a sender to 1 exact-sender recipient", mailroom: mailroom,
                peer: notificationCenter, bare: bare,
                referenceLabel: "Mailroom, post without sender to 1 unfiltered recipient", reference: plain,
                target: .cost(2))
        ]
    )
}

func subclassMail() -> Scenario {
    let leaf = Leaf(value: 1)
    let solo = Solo(value: 1)

    let office = PostOffice()
    office.register { (mail: Rank0) in consume(mail.value) }
    office.register { (mail: Rank1) in consume(mail.value &+ 1) }
    office.register { (mail: Rank2) in consume(mail.value &+ 2) }
    office.post(leaf)
    let mailroom = Variant("Mailroom") { iterations in
        for _ in 0..<iterations { office.post(leaf) }
    }

    let soloOffice = PostOffice()
    soloOffice.register { (mail: Solo) in consume(mail.value) }
    soloOffice.register { (mail: Solo) in consume(mail.value &+ 1) }
    soloOffice.register { (mail: Solo) in consume(mail.value &+ 2) }
    soloOffice.post(solo)
    let final = Variant("Mailroom, final class mail, 3 recipients") { iterations in
        for _ in 0..<iterations { soloOffice.post(solo) }
    }

    let center = NotificationCenter()
    let rankName = Notification.Name("Rank")
    keepAlive.hold(
        center.addObserver(forName: rankName, object: nil, queue: nil) { note in
            if let mail = note.userInfo?[mailKey] as? Rank0 { consume(mail.value) }
        })
    keepAlive.hold(
        center.addObserver(forName: rankName, object: nil, queue: nil) { note in
            if let mail = note.userInfo?[mailKey] as? Rank1 { consume(mail.value &+ 1) }
        })
    keepAlive.hold(
        center.addObserver(forName: rankName, object: nil, queue: nil) { note in
            if let mail = note.userInfo?[mailKey] as? Rank2 { consume(mail.value &+ 2) }
        })
    let notificationCenter = Variant("NotificationCenter") { iterations in
        for _ in 0..<iterations { center.post(name: rankName, object: nil, userInfo: [mailKey: leaf]) }
    }

    let handlers: [(Rank0) -> Void] = [
        { consume($0.value) }, { consume($0.value &+ 1) }, { consume($0.value &+ 2) },
    ]
    let bare = Variant("bare loop") { iterations in
        for _ in 0..<iterations {
            for handler in handlers { handler(leaf) }
        }
    }
    return Scenario(
        variants: [mailroom, final, notificationCenter, bare],
        rows: [
            Row(
                scenario: "subclass mail reaching recipients of its 3 superclasses (per post)", mailroom: mailroom,
                peer: notificationCenter, bare: bare,
                referenceLabel: "Mailroom, final class mail to 3 recipients", reference: final, target: .cost(1.25))
        ]
    )
}

/// Mailroom's register + unregister pairs of a closure, in an office with 1000 closures for the same type (its
/// route built by a post), for the rows against `NotificationCenter`'s block observer and Foundation's typed one.
func mailroomRegisterUnregister() -> Variant {
    let office = PostOffice()
    for offset in 0..<1000 {
        office.register { (ping: Ping) in consume(ping.value &+ offset) }
    }
    office.post(Ping(value: 0))
    let mailroom = Variant("Mailroom") { iterations in
        for _ in 0..<iterations {
            let id = office.register { (ping: Ping) in consume(ping.value) }
            office.unregister(id)
        }
    }
    return mailroom
}

func registerUnregister() -> Scenario {
    let mailroom = mailroomRegisterUnregister()

    let center = NotificationCenter()
    for offset in 0..<1000 {
        keepAlive.hold(observe(center) { ping in consume(ping.value &+ offset) })
    }
    let notificationCenter = Variant("NotificationCenter") { iterations in
        for _ in 0..<iterations {
            let token = observe(center) { ping in consume(ping.value) }
            center.removeObserver(token)
        }
    }
    return Scenario(
        variants: [mailroom, notificationCenter],
        rows: [
            Row(
                scenario: "register + unregister pair, 1000 others registered", mailroom: mailroom,
                peer: notificationCenter, bare: nil, referenceLabel: "NotificationCenter",
                reference: notificationCenter, target: .faster(5))
        ]
    )
}

/// Records the order in which work ran on a serial queue; only touched on that queue.
final class OrderLog: @unchecked Sendable {
    var values: [Int] = []
}

func queueDelivery() -> Scenario {
    let queue = DispatchQueue(label: "Comparison.serial")
    let handler: @Sendable (Ping) -> Void = { consume($0.value) }

    let office = PostOffice()
    office.register(queue: queue) { (ping: Ping) in consume(ping.value) }
    office.post(Ping(value: 0))
    queue.sync {}
    let mailroom = Variant("Mailroom") { iterations in
        for index in 0..<iterations { office.post(Ping(value: index)) }
        queue.sync {}
    }

    let bare = Variant("bare DispatchQueue.async") { iterations in
        for index in 0..<iterations { queue.async { handler(Ping(value: index)) } }
        queue.sync {}
    }

    let operationQueue = OperationQueue()
    operationQueue.maxConcurrentOperationCount = 1
    let center = NotificationCenter()
    keepAlive.hold(
        center.addObserver(forName: pingName, object: nil, queue: operationQueue) { note in
            if let ping = note.userInfo?[mailKey] as? Ping { handler(ping) }
        })
    let notificationCenter = Variant("NotificationCenter, serial OperationQueue") { iterations in
        postPings(iterations, to: center)
        operationQueue.waitUntilAllOperationsAreFinished()
    }

    // FIFO: posts interleaved with other blocks enqueued on the same queue run in the order they were made.
    let fifo = {
        let log = OrderLog()
        let orderOffice = PostOffice()
        orderOffice.register(queue: queue) { (ping: Ping) in log.values.append(ping.value) }
        let count = 20_000
        for index in stride(from: 0, to: count, by: 2) {
            orderOffice.post(Ping(value: index))
            queue.async { log.values.append(index + 1) }
        }
        queue.sync {}
        let inOrder = log.values == Array(0..<count)
        fifoResult =
            "FIFO order on the serial queue: \(count / 2) posts interleaved with \(count / 2) other "
            + "blocks, \(inOrder ? "in order" : "OUT OF ORDER") (\(log.values.count) ran)"
        return inOrder
    }
    return Scenario(
        variants: [mailroom, bare, notificationCenter],
        rows: [
            Row(
                scenario: "queue delivery to 1 recipient on a serial queue (post N, then drain)",
                mailroom: mailroom, peer: notificationCenter, bare: bare,
                referenceLabel: "bare DispatchQueue.async of the same closure", reference: bare, target: .cost(1.5),
                check: fifo)
        ],
        notes: [{ fifoResult }]
    )
}

nonisolated(unsafe) var fifoResult = ""

func twoThreads() -> Scenario {
    let office = PostOffice()
    office.register { (ping: Ping) in consume(ping.value) }
    office.post(Ping(value: 0))
    let center = NotificationCenter()
    keepAlive.hold(observe(center) { ping in consume(ping.value) })

    @Sendable func officePosts(_ iterations: Int) {
        for index in 0..<iterations { office.post(Ping(value: index)) }
    }
    // Two threads each make `iterations` posts; the time is until both are done.
    let twoCores = CoreUsage()
    let oneCore = CoreUsage()
    let mailroom = Variant("Mailroom, 2 threads", operationsPerIteration: 2) { iterations in
        twoCores.run(threads: 2) { officePosts(iterations) }
    }
    let single = Variant("Mailroom, 1 thread") { iterations in
        oneCore.run(threads: 1) { officePosts(iterations) }
    }
    let notificationCenter = Variant("NotificationCenter, 2 threads", operationsPerIteration: 2) { iterations in
        DispatchQueue.concurrentPerform(iterations: 2) { _ in postPings(iterations, to: center) }
    }
    // Control: how this machine runs two threads that share nothing (a loop calling `consume`), against one.
    @Sendable func controlLoop(_ iterations: Int) {
        for index in 0..<iterations { consume(index) }
    }
    let controlTwo = Variant("control loop, 2 threads", operationsPerIteration: 2) { iterations in
        DispatchQueue.concurrentPerform(iterations: 2) { _ in controlLoop(iterations) }
    }
    let controlOne = Variant("control loop, 1 thread") { iterations in
        DispatchQueue.concurrentPerform(iterations: 1) { _ in controlLoop(iterations) }
    }
    // Second control: work that, like a post, keeps a core's execution units busy (several independent
    // arithmetic chains), sharing nothing. A guest's two cores may be two hardware threads of one physical core
    // on the host: then this scales like the posts do, and the call loop above (bound by latency) does not show it.
    let busyTwo = Variant("busy loop, 2 threads", operationsPerIteration: 2) { iterations in
        DispatchQueue.concurrentPerform(iterations: 2) { _ in consume(busyLoop(iterations)) }
    }
    let busyOne = Variant("busy loop, 1 thread") { iterations in
        DispatchQueue.concurrentPerform(iterations: 1) { _ in consume(busyLoop(iterations)) }
    }
    let note = {
        "Cores the posting threads had (their CPU time ÷ wall time, median of rounds): "
            + String(format: "%.2f with two threads, %.2f with one", twoCores.median, oneCore.median)
            + "; below 2.00 with two threads means other processes took CPU time from them. Controls that share "
            + "nothing, two threads' aggregate against one thread's: a loop calling an empty function "
            + formatRatio(controlOne.median / controlTwo.median)
            + ", independent arithmetic keeping the core busy "
            + formatRatio(busyOne.median / busyTwo.median) + "."
    }
    return Scenario(
        variants: [mailroom, single, notificationCenter, controlTwo, controlOne, busyTwo, busyOne],
        rows: [
            Row(
                scenario: "two threads posting to one office at once (aggregate)", mailroom: mailroom,
                peer: notificationCenter, bare: nil,
                referenceLabel: "Mailroom, one thread posting alone", reference: single, target: .faster(1.5))
        ],
        notes: [note]
    )
}

/// The scenarios by name, built only when they run (the setup of some takes seconds).
func allScenarios() -> [(String, () -> Scenario)] {
    [
        ("one-closure", oneClosure),
        ("1000-closures", thousandClosures),
        ("1000-methods", thousandMethods),
        ("other-types", otherTypes),
        ("other-senders", otherSenders),
        ("million-others", millionOthers),
        ("exact-sender", exactSender),
        ("subclass", subclassMail),
        ("register-unregister", registerUnregister),
        ("queue", queueDelivery),
        ("two-threads", twoThreads),
        ("main-actor", mainActor),
        ("async-recipient", asyncRecipient),
        ("mail-sequence", mailSequence),
        ("typed-register-unregister", typedRegisterUnregister),
        ("memory", memory),
    ]
}

// MARK: - Report

func formatRate(_ operationsPerSecond: Double) -> String {
    guard operationsPerSecond.isFinite else { return "—" }
    let (scaled, unit): (Double, String) =
        switch operationsPerSecond {
        case 1e9...: (operationsPerSecond / 1e9, " G")
        case 1e6...: (operationsPerSecond / 1e6, " M")
        case 1e3...: (operationsPerSecond / 1e3, " k")
        default: (operationsPerSecond, "")
        }
    let digits = scaled >= 100 ? 0 : scaled >= 10 ? 1 : 2
    return String(format: "%.\(digits)f", scaled) + unit
}

/// A variant's median as the table shows it: operations per second, or bytes per registration.
func formatFigure(_ variant: Variant) -> String {
    switch variant.quantity {
    case .nanoseconds: return formatRate(variant.operationsPerSecond)
    case .bytes: return variant.median.isFinite ? "\(Int(variant.median.rounded())) B/registration" : "—"
    }
}

func formatRatio(_ ratio: Double) -> String {
    String(format: ratio >= 10 ? "%.1fx" : "%.2fx", ratio)
}

func readFile(_ path: String) -> String {
    (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
}

func machineDescription() -> String {
    let model =
        readFile("/proc/cpuinfo").split(separator: "\n")
        .first { $0.hasPrefix("model name") }
        .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
        ?? "unknown CPU"
    return "\(model), \(ProcessInfo.processInfo.activeProcessorCount) cores"
}

func swiftVersion() -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["swift", "--version"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    do {
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        if let line = text.split(separator: "\n").first(where: { $0.contains("Swift version") }) {
            return String(line)
        }
    } catch {}
    return "Swift version unknown (`swift --version` failed)"
}

func loadAverage() -> String {
    readFile("/proc/loadavg").split(separator: " ").prefix(3).joined(separator: " ")
}

// MARK: - Curve

/// The cost of one post against the number of recipients (1, 10, 100, 1000), as CSV: synchronous closure
/// recipients (Mailroom, NotificationCenter, the bare loop), then main-actor recipients posted to on the main
/// actor (Mailroom, Foundation's `MainActorMessage` observers).
func measureCurve(rounds: Int) -> String {
    var lines = [
        "recipients,mailroom_ns_per_post,notificationcenter_ns_per_post,bare_ns_per_post,"
            + "mailroom_main_actor_ns_per_post,foundation_main_actor_message_ns_per_post"
    ]
    var rows: [(Int, [Variant])] = []
    for count in [1, 10, 100, 1000] {
        let (mailroom, center, bare) = recipientsVariants(count, perDelivery: false)
        let (mainActorMailroom, mainActorFoundation) = mainActorVariants(count)
        rows.append((count, [mailroom, center, bare, mainActorMailroom, mainActorFoundation]))
    }
    for round in 0..<rounds {
        for (_, order) in rows {
            for variant in round % 2 == 0 ? order : order.reversed() { variant.measure() }
        }
    }
    for (count, variants) in rows {
        let values = variants.map { String(format: "%.2f", $0.median) }
        lines.append("\(count),\(values.joined(separator: ","))")
    }
    return lines.joined(separator: "\n") + "\n"
}

// MARK: - Main

func main() {
    var rounds = 9
    var curve = false
    var resultsDirectory: String?
    var only: String?
    var variantPrefix: String?
    var arguments = CommandLine.arguments.dropFirst()
    while let argument = arguments.popFirst() {
        switch argument {
        case "--rounds": rounds = arguments.popFirst().flatMap { Int($0) } ?? rounds
        case "--curve": curve = true
        case "--results": resultsDirectory = arguments.popFirst()
        case "--only": only = arguments.popFirst()
        case "--variant": variantPrefix = arguments.popFirst()
        case "--memory-child":
            // A child of the memory scenario: nothing else runs in this process.
            memoryChild(arguments.popFirst() ?? "")
        case "--main-actor-task-child":
            // A child of the main-actor scenario: parks the main thread, which the other scenarios need.
            mainActorTaskChild()
        default:
            print("usage: Comparison [--rounds N] [--curve] [--results DIR] [--only NAME] [--variant NAME]")
            print("       Comparison --memory-child KIND")
            print("       Comparison --main-actor-task-child")
            return
        }
    }

    let machine = machineDescription()
    let swift = swiftVersion()
    let loadBefore = loadAverage()
    print("Setting up the scenarios (1M registrations take a few seconds)...")

    // `--only register-unregister` is that scenario, not also typed-register-unregister, which contains its name.
    let exactScenario = allScenarios().contains { $0.0 == only }
    let scenarios = allScenarios().filter { name, _ in
        only.map { exactScenario ? name == $0 : name.contains($0) } ?? true
    }.map { $1() }
    for round in 0..<rounds {
        print("round \(round + 1) of \(rounds)")
        for scenario in scenarios {
            let order = round % 2 == 0 ? scenario.variants : scenario.variants.reversed()
            let exact = scenario.variants.contains { $0.name == variantPrefix }
            for variant in order
            where variantPrefix.map({ exact ? variant.name == $0 : variant.name.hasPrefix($0) }) ?? true {
                variant.measure()
            }
        }
    }
    let checks = scenarios.flatMap(\.rows).map { $0.check?() ?? true }

    var table = [
        "| scenario | Mailroom ops/s | peer | peer ops/s | bare loop ops/s (floor) | ratio against | "
            + "reference ops/s | ratio | target | result |",
        "| --- | ---: | --- | ---: | ---: | --- | ---: | ---: | --- | --- |",
    ]
    var met = 0
    let rows = scenarios.flatMap(\.rows)
    for (row, check) in zip(rows, checks) {
        let ratio = row.target.ratio(
            mailroom: row.mailroom.median, reference: row.reference.median)
        let pass = row.target.isMet(by: ratio) && check  // false when a variant was left out (NaN)
        if pass && row.target.isCounted { met += 1 }
        let result = row.target.isCounted ? (pass ? "PASS" : "FAIL") : (check ? "—" : "FAIL")
        let cells = [
            row.scenario,
            formatFigure(row.mailroom),
            row.peer == nil ? "—" : row.peerName,
            row.peer.map(formatFigure) ?? "—",
            row.bare.map(formatFigure) ?? "—",
            row.referenceLabel,
            formatFigure(row.reference),
            formatRatio(ratio),
            row.target.description,
            result,
        ]
        table.append("| " + cells.joined(separator: " | ") + " |")
    }
    let counted = rows.filter(\.target.isCounted).count
    var curveText: String?
    if curve {
        print("measuring the curve (cost per post against the number of recipients)")
        curveText = measureCurve(rounds: rounds)
    }
    let loadAfter = loadAverage()
    let report =
        [
            "Machine: \(machine); \(swift)",
            "Load average (1, 5, 15 min) before: \(loadBefore); after: \(loadAfter)",
            "Median of \(rounds) interleaved rounds, about 60 ms per measurement; ops/s per delivery where the "
                + "scenario says so, per mail handled for the asynchronous recipients, per register + unregister "
                + "pair for those rows, else per post."
                + (rows.contains { $0.mailroom.quantity == .bytes }
                    ? " Memory rows: resident bytes per live registration, median of "
                        + "\(min(rounds, memorySamples)) child processes (one per round, first rounds only)." : ""),
            "",
        ] + table + [""] + scenarios.flatMap(\.notes).map { $0() } + ["", "targets met: \(met) of \(counted)"]
    let text = report.joined(separator: "\n") + "\n"

    if let resultsDirectory {
        let directory = URL(fileURLWithPath: resultsDirectory)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? text.write(to: directory.appendingPathComponent("comparison.md"), atomically: true, encoding: .utf8)
        if let curveText {
            try? curveText.write(to: directory.appendingPathComponent("curve.csv"), atomically: true, encoding: .utf8)
        }
    }
    if let curveText {
        print("\nCost per post (ns) against the number of recipients:")
        print(curveText, terminator: "")
    }
    print("")
    print(text, terminator: "")
}

main()
