// A randomized stress test with a reference computation of what must, may and must not be delivered.
//
// Worker threads (real threads) make seeded random mixes of every register form, posts with and without a
// sender, unregisters by id and by object, and drops of the last reference to recipients, senders and offices,
// on a shared office and on offices of their own. A clock (one lock, one counter) is read just before and just
// after every call; from those times the check afterwards decides, for each registration R and each post P
// that R accepts:
//
// - R must have received P exactly once when R's register returned before P's post began and nothing that
//   ends R (unregister, unregister(object), dropping its recipient, releasing its office) began before P's post
//   returned; for a queued R, when moreover nothing ended R before its queue was drained at the end;
// - R must not have received P when P's post returned before R's register began, or P's post began after
//   R's unregister returned or after R's recipient began to deinitialize;
// - otherwise R received P at most once.
//
// Handlers also check, as they run, that a synchronous one runs on the thread making that post, that a queued
// one never runs on a posting thread, and that none runs on its own thread after that thread's unregister of
// it returned. Every call of a recipient's method and every recipient's deinit is logged by the clock, under
// its one lock, so a call that began after the deinit began is seen.

import Dispatch
import Foundation
import Mailroom
import Testing

@Suite("A randomized stress checked against a reference computation")
struct StressTests {
    @Test(
        "8 threads mixing every register form, posts, unregisters and dropped references deliver exactly what the reference computation requires"
    )
    func randomizedMixMatchesReference() {
        let run = StressRun(threads: 8, operationsPerThread: 5_000 * stressScale, seed: stressSeed)
        guard run.execute() else { return }
        let outcome = run.verify()
        print(outcome.summary)
        #expect(outcome.postCount > 0 && outcome.registrationCount > 0, "the run made no posts or registrations")
        #expect(outcome.determinedPairs > 0, "the run determined no delivery at all: \(outcome.summary)")
        #expect(
            outcome.problemCount == 0,
            "\(outcome.problemCount) problems (seed \(run.seed), rerun with MAILROOM_STRESS_SEED=\(run.seed)):\n\(outcome.problems.joined(separator: "\n"))"
        )
        let leftovers = run.releaseEverything()
        #expect(leftovers.isEmpty, "after releasing everything: \(leftovers.joined(separator: "; "))")
    }
}

// MARK: - The model

/// The registration forms of the stress test (the sender class `S` is chosen separately).
private enum StressForm: Int, CaseIterable {
    case mail
    case typed
    case optional
    case noArgument
    case exact
    case exactTyped
    case exactNoArgument

    var isExact: Bool { self == .exact || self == .exactTyped || self == .exactNoArgument }
    var isNoArgument: Bool { self == .noArgument || self == .exactNoArgument }
}

private enum StressFilter: Equatable, CustomStringConvertible {
    case any
    case kind(StressSenderKind, orNoSender: Bool)
    case exact(serial: Int)

    var description: String {
        switch self {
        case .any: "any sender"
        case .kind(let senderClass, let orNoSender): "sender \(senderClass)\(orNoSender ? " or none" : "")"
        case .exact(let serial): "exactly sender \(serial)"
        }
    }
}

/// One post: what was posted, where, by whom, and the clock just before and just after the call.
private struct StressPost {
    let number: Int
    let office: Int
    let kind: StressMailKind
    /// The sender's serial, or -1 without a sender.
    let sender: Int
    let senderKind: StressSenderKind?
    let start: Int
    let end: Int

    var description: String {
        "post \(number) (\(kind), office \(office), sender \(sender), times \(start)...\(end))"
    }
}

/// One registration and what it received.
private final class StressRegistration: @unchecked Sendable {
    let serial: Int
    let owner: Int
    let office: Int
    let kind: StressMailKind
    let form: StressForm
    let filter: StressFilter
    let queued: Bool
    /// The serial of the recipient of a method registration.
    let probe: Int?

    // Written by the owner thread while it runs, read once every thread has finished.
    var registerStart = 0
    var registerEnd = 0
    /// When the first call that ends the registration began (unregister, drop of its recipient, release of
    /// its office); `Int.max` if none did.
    var endStart = Int.max
    /// When an unregister or the release of its office returned; `Int.max` if none did.
    var unregisterEnd = Int.max
    var id: RecipientId?

    private let lock = NSLock()
    /// (post number or -1 when the handler cannot know it, sender serial or -1 for none or -2 when the
    /// handler receives no sender).
    private var received: [(post: Int, sender: Int)] = []
    private var unregisteredOnOwner = false
    private var handlerProblems: [(category: String, detail: String)] = []

    init(
        serial: Int, owner: Int, office: Int, kind: StressMailKind, form: StressForm, filter: StressFilter,
        queued: Bool, probe: Int?
    ) {
        self.serial = serial
        self.owner = owner
        self.office = office
        self.kind = kind
        self.form = form
        self.filter = filter
        self.queued = queued
        self.probe = probe
    }

    var description: String {
        let recipient = probe.map { "method of probe \($0)" } ?? "closure"
        return
            "registration \(serial) (\(recipient), \(form) \(kind) \(filter), \(queued ? "queued" : "sync"), office \(office), register \(registerStart)...\(registerEnd), end \(endStart == .max ? "-" : "\(endStart)")...\(unregisterEnd == .max ? "-" : "\(unregisterEnd)"))"
    }

    /// Whether a post reaches this registration, by office, mail type and sender.
    func accepts(_ post: StressPost) -> Bool {
        guard post.office == office, post.kind.reaches(kind) else { return false }
        switch filter {
        case .any: return true
        case .kind(let senderClass, let orNoSender):
            return post.senderKind.map { $0.isAdmitted(by: senderClass) } ?? orNoSender
        case .exact(let serial): return post.sender == serial
        }
    }

    /// Called by the owner thread once its unregister of this registration returned.
    func markUnregistered() {
        lock.withLock { unregisteredOnOwner = true }
    }

    /// Records a delivery; called by the handler. `post` is nil for the no-argument forms.
    func deliver(post: Int?, sender: Int) {
        let worker = StressWorker.current
        lock.withLock {
            if queued {
                if let worker {
                    handlerProblems.append(
                        ("queued delivery ran inline on a posting thread", "post \(post ?? -1), thread \(worker.index)")
                    )
                }
                received.append((post ?? -1, sender))
            } else if let worker {
                if worker.index == owner, unregisteredOnOwner {
                    handlerProblems.append(
                        ("called on its own thread after its unregister returned there", "post \(post ?? -1)"))
                }
                if let post, post != worker.currentPost {
                    handlerProblems.append(
                        (
                            "synchronous delivery on a thread making another post",
                            "post \(post), thread's post \(worker.currentPost)"
                        ))
                }
                received.append((post ?? worker.currentPost, sender))
            } else {
                handlerProblems.append(("synchronous delivery on a thread that was not posting", "post \(post ?? -1)"))
                received.append((post ?? -1, sender))
            }
        }
    }

    var deliveries: [(post: Int, sender: Int)] { lock.withLock { received } }
    var problems: [(category: String, detail: String)] { lock.withLock { handlerProblems } }
}

/// A method recipient: every method looks up the registration it was registered with (one per form, mail
/// type and sender class), logs the call with the clock, and records the delivery.
private final class StressProbe: Sendable {
    let serial: Int
    private let clock: StressClock
    private let slots = Shared<[Int: StressRegistration]>([:])
    private let strayCalls: Shared<[String]>

    /// Calls of methods this probe never registered are reported to `strayCalls`.
    init(serial: Int, clock: StressClock, strayCalls: Shared<[String]>) {
        self.serial = serial
        self.clock = clock
        self.strayCalls = strayCalls
    }

    deinit {
        clock.logDeinit(of: serial)
    }

    static func slot(_ form: StressForm, _ kind: StressMailKind, _ senderKind: StressSenderKind?) -> Int {
        form.rawValue * 100 + kind.rawValue * 10 + (senderKind?.rawValue ?? 9)
    }

    func isFree(_ slot: Int) -> Bool {
        slots.value[slot] == nil
    }

    func claim(_ slot: Int, for registration: StressRegistration) {
        slots.update { $0[slot] = registration }
    }

    private func receive(
        _ form: StressForm, _ kind: StressMailKind, _ senderKind: StressSenderKind?, post: Int?, sender: Int
    ) {
        clock.logCall(of: serial)
        let slot = Self.slot(form, kind, senderKind)
        if let registration = slots.value[slot] {
            registration.deliver(post: post, sender: sender)
        } else {
            strayCalls.update { $0.append("probe \(serial): \(form) \(kind) \(senderKind.map { "\($0)" } ?? "")") }
        }
    }

    func mail<M: StressMail>(_ mail: M) {
        receive(.mail, M.stressKind, nil, post: mail.n, sender: -2)
    }

    func typed<M: StressMail, S: StressSender>(_ mail: M, _ sender: S) {
        receive(.typed, M.stressKind, senderKind(of: S.self), post: mail.n, sender: sender.stressSerial)
    }

    func optional<M: StressMail, S: StressSender>(_ mail: M, _ sender: S?) {
        receive(.optional, M.stressKind, senderKind(of: S.self), post: mail.n, sender: sender?.stressSerial ?? -1)
    }

    func exact<M: StressMail>(_ mail: M) {
        receive(.exact, M.stressKind, nil, post: mail.n, sender: -2)
    }

    func exactTyped<M: StressMail, S: StressSender>(_ mail: M, _ sender: S) {
        receive(.exactTyped, M.stressKind, senderKind(of: S.self), post: mail.n, sender: sender.stressSerial)
    }

    func pingArrived() { receive(.noArgument, .ping, nil, post: nil, sender: -2) }
    func pongArrived() { receive(.noArgument, .pong, nil, post: nil, sender: -2) }
    func memoArrived() { receive(.noArgument, .memo, nil, post: nil, sender: -2) }
    func urgentMemoArrived() { receive(.noArgument, .urgentMemo, nil, post: nil, sender: -2) }
    func exactPingArrived() { receive(.exactNoArgument, .ping, nil, post: nil, sender: -2) }
    func exactPongArrived() { receive(.exactNoArgument, .pong, nil, post: nil, sender: -2) }
    func exactMemoArrived() { receive(.exactNoArgument, .memo, nil, post: nil, sender: -2) }
    func exactUrgentMemoArrived() { receive(.exactNoArgument, .urgentMemo, nil, post: nil, sender: -2) }

    /// The no-argument method for mail of `kind`.
    static func noArgumentMethod(_ kind: StressMailKind, exact: Bool) -> @Sendable (StressProbe) -> () -> Void {
        switch (kind, exact) {
        case (.ping, false): StressProbe.pingArrived
        case (.pong, false): StressProbe.pongArrived
        case (.memo, false): StressProbe.memoArrived
        case (.urgentMemo, false): StressProbe.urgentMemoArrived
        case (.ping, true): StressProbe.exactPingArrived
        case (.pong, true): StressProbe.exactPongArrived
        case (.memo, true): StressProbe.exactMemoArrived
        case (.urgentMemo, true): StressProbe.exactUrgentMemoArrived
        }
    }
}

private func senderKind<S: StressSender>(of _: S.Type) -> StressSenderKind {
    if ObjectIdentifier(S.self) == ObjectIdentifier(Phone.self) { return .phone }
    if ObjectIdentifier(S.self) == ObjectIdentifier(Stranger.self) { return .stranger }
    return .device
}

// MARK: - Registering and posting, generically

/// What one registration call needs.
private struct StressRegistrationRequest {
    let office: PostOffice
    let queue: DispatchQueue?
    let form: StressForm
    let senderKind: StressSenderKind
    let exactSender: StressSenderObject?
    let probe: StressProbe?
    let record: StressRegistration
}

private func register<M: StressMail>(_ mailType: M.Type, _ request: StressRegistrationRequest) -> RecipientId {
    if request.form.isExact {
        switch request.exactSender! {
        case .device(let device): return registerExact(mailType, sender: device, request)
        case .phone(let phone): return registerExact(mailType, sender: phone, request)
        case .stranger(let stranger): return registerExact(mailType, sender: stranger, request)
        }
    }
    switch request.senderKind {
    case .device: return registerByClass(mailType, Device.self, request)
    case .phone: return registerByClass(mailType, Phone.self, request)
    case .stranger: return registerByClass(mailType, Stranger.self, request)
    }
}

private func registerByClass<M: StressMail, S: StressSender>(
    _: M.Type, _: S.Type, _ request: StressRegistrationRequest
) -> RecipientId {
    let (office, queue, record) = (request.office, request.queue, request.record)
    if let probe = request.probe {
        switch request.form {
        case .mail:
            let method: @Sendable (StressProbe) -> (M) -> Void = StressProbe.mail
            return office.register(queue: queue, probe, method)
        case .typed:
            let method: @Sendable (StressProbe) -> (M, S) -> Void = StressProbe.typed
            return office.register(queue: queue, probe, method)
        case .optional:
            let method: @Sendable (StressProbe) -> (M, S?) -> Void = StressProbe.optional
            return office.register(queue: queue, probe, method)
        default:
            return office.register(
                queue: queue, M.self, probe, StressProbe.noArgumentMethod(M.stressKind, exact: false))
        }
    }
    switch request.form {
    case .mail:
        return office.register(queue: queue) { (mail: M) in record.deliver(post: mail.n, sender: -2) }
    case .typed:
        return office.register(queue: queue) { (mail: M, sender: S) in
            record.deliver(post: mail.n, sender: sender.stressSerial)
        }
    case .optional:
        return office.register(queue: queue) { (mail: M, sender: S?) in
            record.deliver(post: mail.n, sender: sender?.stressSerial ?? -1)
        }
    default:
        return office.register(queue: queue, M.self) { record.deliver(post: nil, sender: -2) }
    }
}

private func registerExact<M: StressMail, S: StressSender>(
    _: M.Type, sender: S, _ request: StressRegistrationRequest
) -> RecipientId {
    let (office, queue, record) = (request.office, request.queue, request.record)
    if let probe = request.probe {
        switch request.form {
        case .exact:
            let method: @Sendable (StressProbe) -> (M) -> Void = StressProbe.exact
            return office.register(queue: queue, sender: sender, probe, method)
        case .exactTyped:
            let method: @Sendable (StressProbe) -> (M, S) -> Void = StressProbe.exactTyped
            return office.register(queue: queue, sender: sender, probe, method)
        default:
            return office.register(
                queue: queue, sender: sender, M.self, probe, StressProbe.noArgumentMethod(M.stressKind, exact: true))
        }
    }
    switch request.form {
    case .exact:
        return office.register(queue: queue, sender: sender) { (mail: M) in record.deliver(post: mail.n, sender: -2) }
    case .exactTyped:
        return office.register(queue: queue, sender: sender) { (mail: M, sender: S) in
            record.deliver(post: mail.n, sender: sender.stressSerial)
        }
    default:
        return office.register(queue: queue, sender: sender, M.self) { record.deliver(post: nil, sender: -2) }
    }
}

/// Posts `mail`; `variant` picks between equivalent spellings (`post(m)` or `post(m, sender: nil)`; a phone
/// as `Phone` or as `Device`).
private func post<M: Mail>(_ mail: M, on office: PostOffice, sender: StressSenderObject?, variant: Bool) {
    switch sender {
    case nil:
        if variant { office.post(mail, sender: Device?.none) } else { office.post(mail) }
    case .device(let device): office.post(mail, sender: device)
    case .phone(let phone):
        if variant { office.post(mail, sender: phone as Device) } else { office.post(mail, sender: phone) }
    case .stranger(let stranger): office.post(mail, sender: stranger)
    }
}

// MARK: - The run

/// What one worker thread did.
private struct StressThreadResult {
    var posts: [StressPost] = []
    var registrations: [StressRegistration] = []
    var live: [StressRegistration] = []
    var probesCreated = 0
    var operations: [String: Int] = [:]
    var problems: [(category: String, detail: String)] = []
}

private final class StressRun: @unchecked Sendable {
    let threads: Int
    let operationsPerThread: Int
    let seed: UInt64
    let clock = StressClock()
    let shared = PostOffice()
    let poolSize = 12
    let pool: Shared<[StressSenderObject]>
    /// Each worker's private serial queues.
    let queues: [[DispatchQueue]]
    let results = Shared<[Int: StressThreadResult]>([:])
    /// What outlives the workers until the end of the check: their probes and private offices.
    let survivors = Shared<[AnyObject]>([])
    let survivorWatch = Shared<[WeakReference<AnyObject>]>([])
    let strayCalls = Shared<[String]>([])

    static let maximumLive = 24
    static let maximumProbes = 8

    init(threads: Int, operationsPerThread: Int, seed: UInt64) {
        self.threads = threads
        self.operationsPerThread = operationsPerThread
        self.seed = seed
        pool = Shared(
            (0..<poolSize).map { StressSenderObject(kind: StressSenderKind.allCases[$0 % 3], serial: 9_000_000 + $0) })
        queues = (0..<threads).map { thread in
            (0..<2).map { DispatchQueue(label: "mailroom.tests.reliability.stress.\(thread).\($0)") }
        }
    }

    /// Runs the workers, then drains every queue. False (with an issue recorded) if they did not finish.
    func execute() -> Bool {
        runOnThreads(threads, timeout: .seconds(120)) { thread in
            let worker = StressWorker(index: thread)
            worker.run { self.work(thread, worker) }
        }
        if results.value.count != threads {
            Issue.record("only \(results.value.count) of \(threads) workers finished")
            return false
        }
        for queue in queues.joined() {
            guard drain(queue) else { return false }
        }
        return true
    }

    // MARK: Working

    private func work(_ thread: Int, _ worker: StressWorker) {
        var random = SplitMix64(seed: seed &+ UInt64(thread) &* 0x1_0000_0001)
        var result = StressThreadResult()
        var privateGeneration = 0
        var privateOffice = PostOffice()
        var privateKey = 1 + thread * 1_000_000
        var probes: [StressProbe] = []
        var senderSerial = 0
        let myQueues = queues[thread]

        func count(_ operation: String) {
            result.operations[operation, default: 0] += 1
        }

        func endRegistrations(_ ending: [StressRegistration], by call: () -> Void) {
            let start = clock.tick()
            for registration in ending { registration.endStart = min(registration.endStart, start) }
            call()
            let end = clock.tick()
            for registration in ending {
                registration.unregisterEnd = end
                registration.markUnregistered()
            }
        }

        for _ in 0..<operationsPerThread {
            let roll = random.below(100)
            if !result.live.isEmpty, roll < 13 || result.live.count >= Self.maximumLive {
                // Unregister by id.
                let registration = result.live.remove(at: random.below(result.live.count))
                let office = registration.office == 0 ? shared : privateOffice
                endRegistrations([registration]) { office.unregister(registration.id!) }
                count("unregister by id")
            } else if roll < 17, !probes.isEmpty {
                // Unregister by object, on one office.
                let probe = probes[random.below(probes.count)]
                let key = random.chance(60) ? 0 : privateKey
                let office = key == 0 ? shared : privateOffice
                let ending = result.live.filter { $0.probe == probe.serial && $0.office == key }
                endRegistrations(ending) { office.unregister(probe) }
                result.live.removeAll { $0.probe == probe.serial && $0.office == key }
                count("unregister by object")
            } else if roll < 23, !probes.isEmpty {
                // Drop the last reference to a recipient.
                let index = random.below(probes.count)
                let serial = probes[index].serial
                let start = clock.tick()
                for registration in result.live where registration.probe == serial {
                    registration.endStart = min(registration.endStart, start)
                }
                probes.remove(at: index)
                result.live.removeAll { $0.probe == serial }
                count("drop recipient")
            } else if roll < 28 {
                // Drop a sender: replace it in the pool (other threads may hold it for a moment longer).
                senderSerial += 1
                let fresh = StressSenderObject(
                    kind: StressSenderKind.allCases[random.below(3)], serial: thread * 1_000_000 + senderSerial)
                let index = random.below(poolSize)
                let old = pool.update { pool in
                    defer { pool[index] = fresh }
                    return pool[index]
                }
                withExtendedLifetime(old) {}
                count("drop sender")
            } else if roll < 30 {
                // Release the private office: every registration on it ends.
                let ending = result.live.filter { $0.office == privateKey }
                weak let released = privateOffice
                endRegistrations(ending) {
                    privateGeneration += 1
                    privateOffice = PostOffice()
                }
                result.live.removeAll { $0.office == privateKey }
                privateKey = 1 + thread * 1_000_000 + privateGeneration
                if released != nil {
                    result.problems.append(("a released private office is still alive", "thread \(thread)"))
                }
                count("release office")
            } else if roll < 60 {
                let registration = makeRegistration(
                    thread, &random, &result, &probes, privateOffice: privateOffice, privateKey: privateKey,
                    queues: myQueues)
                result.live.append(registration)
                result.registrations.append(registration)
                count("register")
            } else {
                let onShared = random.chance(60)
                let office = onShared ? shared : privateOffice
                let kind = StressMailKind.allCases[random.below(4)]
                let sender: StressSenderObject? = random.chance(30) ? nil : pool.value[random.below(poolSize)]
                let variant = random.chance(50)
                let number = thread * 1_000_000 + result.posts.count
                worker.currentPost = number
                let start = clock.tick()
                if kind == .urgentMemo, variant {
                    let memo: StressMemo = StressUrgentMemo(n: number)
                    post(memo, on: office, sender: sender, variant: variant)
                } else {
                    withStressMailType(kind) { type in
                        post(type.init(n: number), on: office, sender: sender, variant: variant)
                    }
                }
                let end = clock.tick()
                worker.currentPost = -1
                result.posts.append(
                    StressPost(
                        number: number, office: onShared ? 0 : privateKey, kind: kind,
                        sender: sender?.stressSerial ?? -1,
                        senderKind: sender?.kind, start: start, end: end))
                count(sender == nil ? "post without sender" : "post with sender")
            }
        }

        survivors.update {
            $0.append(contentsOf: probes as [AnyObject])
            $0.append(privateOffice)
        }
        survivorWatch.update { watch in
            watch.append(contentsOf: probes.map { WeakReference<AnyObject>($0) })
            watch.append(WeakReference<AnyObject>(privateOffice))
        }
        let finished = result
        results.update { $0[thread] = finished }
    }

    private func makeRegistration(
        _ thread: Int, _ random: inout SplitMix64, _ result: inout StressThreadResult, _ probes: inout [StressProbe],
        privateOffice: PostOffice, privateKey: Int, queues: [DispatchQueue]
    ) -> StressRegistration {
        let onShared = random.chance(60)
        let form = StressForm.allCases[random.below(StressForm.allCases.count)]
        let kind = StressMailKind.allCases[random.below(4)]
        let senderKind = StressSenderKind.allCases[random.below(3)]
        let queue: DispatchQueue? = random.chance(20) ? queues[random.below(queues.count)] : nil
        let exactSender: StressSenderObject? = form.isExact ? pool.value[random.below(poolSize)] : nil
        let filter: StressFilter =
            switch form {
            case .mail, .noArgument: .any
            case .typed: .kind(senderKind, orNoSender: false)
            case .optional: .kind(senderKind, orNoSender: true)
            case .exact, .exactTyped, .exactNoArgument: .exact(serial: exactSender!.stressSerial)
            }
        var probe: StressProbe?
        var slot = 0
        if random.chance(50) {
            let slotSender: StressSenderKind? =
                switch form {
                case .typed, .optional: senderKind
                case .exactTyped: exactSender!.kind
                default: nil
                }
            slot = StressProbe.slot(form, kind, slotSender)
            let candidate = probes.isEmpty ? nil : probes[random.below(probes.count)]
            if let candidate, candidate.isFree(slot) {
                probe = candidate
            } else if probes.count < Self.maximumProbes {
                let fresh = StressProbe(
                    serial: thread * 1_000_000 + result.probesCreated, clock: clock, strayCalls: strayCalls)
                result.probesCreated += 1
                probes.append(fresh)
                probe = fresh
            }
        }
        let record = StressRegistration(
            serial: thread * 1_000_000 + result.registrations.count, owner: thread,
            office: onShared ? 0 : privateKey, kind: kind, form: form, filter: filter, queued: queue != nil,
            probe: probe?.serial)
        probe?.claim(slot, for: record)
        let request = StressRegistrationRequest(
            office: onShared ? shared : privateOffice, queue: queue, form: form, senderKind: senderKind,
            exactSender: exactSender, probe: probe, record: record)
        record.registerStart = clock.tick()
        record.id = withStressMailType(kind) { type in register(type, request) }
        record.registerEnd = clock.tick()
        withExtendedLifetime(exactSender) {}
        return record
    }

    // MARK: Checking

    struct Outcome {
        var postCount = 0
        var registrationCount = 0
        var operationCounts: [String: Int] = [:]
        var deliveries = 0
        var determinedPairs = 0
        var undeterminedPairs = 0
        var problemCount = 0
        /// Problems by category: how many, and the first few.
        var problemsByCategory: [String: (count: Int, examples: [String])] = [:]
        var summary = ""

        mutating func problem(_ category: String, _ detail: @autoclosure () -> String) {
            problemCount += 1
            var entry = problemsByCategory[category] ?? (0, [])
            entry.count += 1
            if entry.examples.count < 3 { entry.examples.append(detail()) }
            problemsByCategory[category] = entry
        }

        var problems: [String] {
            problemsByCategory.sorted { $0.key < $1.key }.map { category, entry in
                "\(entry.count) × \(category), e.g.:\n    " + entry.examples.joined(separator: "\n    ")
            }
        }
    }

    func verify() -> Outcome {
        var outcome = Outcome()
        let results = self.results.value
        let posts = results.values.flatMap(\.posts)
        let registrations = results.values.flatMap(\.registrations)
        outcome.postCount = posts.count
        outcome.registrationCount = registrations.count
        for result in results.values {
            for problem in result.problems { outcome.problem(problem.category, problem.detail) }
            outcome.operationCounts.merge(result.operations, uniquingKeysWith: +)
        }

        // Posts by number, and by (office, mail kind) sorted by start with the running maximum of their ends.
        var byNumber: [Int: StressPost] = [:]
        for post in posts { byNumber[post.number] = post }
        var byKind: [Int: (posts: [StressPost], maxEnd: [Int])] = [:]
        for (key, group) in Dictionary(grouping: posts, by: { $0.office * 8 + $0.kind.rawValue }) {
            let sorted = group.sorted { $0.start < $1.start }
            var maxEnd: [Int] = []
            maxEnd.reserveCapacity(sorted.count)
            for post in sorted { maxEnd.append(max(maxEnd.last ?? 0, post.end)) }
            byKind[key] = (sorted, maxEnd)
        }

        for stray in strayCalls.value { outcome.problem("method called for a form never registered", stray) }

        // Recipients: no call after the deinit began; when each deinit began.
        var deinitTimes: [Int: Int] = [:]
        for event in clock.log {
            if event.isDeinit {
                if deinitTimes[event.probe] != nil {
                    outcome.problem("recipient deinitialized twice", "probe \(event.probe)")
                }
                deinitTimes[event.probe] = event.time
            } else if let deinitTime = deinitTimes[event.probe] {
                outcome.problem(
                    "method called after its recipient began to deinitialize",
                    "probe \(event.probe): a call at \(event.time), its deinit began at \(deinitTime)")
            }
        }

        for registration in registrations {
            for problem in registration.problems {
                outcome.problem(problem.category, "\(registration.description): \(problem.detail)")
            }
            check(registration, byNumber: byNumber, byKind: byKind, deinitTimes: deinitTimes, into: &outcome)
        }

        let operations = outcome.operationCounts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        outcome.summary =
            "Reliability stress (seed \(seed), MAILROOM_STRESS_SCALE \(stressScale)): \(threads) threads, \(threads * operationsPerThread) operations (\(operations.joined(separator: ", "))); \(outcome.postCount) posts, \(outcome.registrationCount) registrations; \(outcome.deliveries) deliveries checked; \(outcome.determinedPairs) determined (registration, post) pairs that had to be delivered exactly once, \(outcome.undeterminedPairs) undetermined pairs (0 or 1); \(outcome.problemCount) problems"
        return outcome
    }

    private func check(
        _ registration: StressRegistration, byNumber: [Int: StressPost],
        byKind: [Int: (posts: [StressPost], maxEnd: [Int])], deinitTimes: [Int: Int], into outcome: inout Outcome
    ) {
        // Posts that began after this time must not reach the registration.
        let bound = min(registration.unregisterEnd, registration.probe.flatMap { deinitTimes[$0] } ?? .max)
        let anonymous = registration.queued && registration.form.isNoArgument
        let deliveries = registration.deliveries
        outcome.deliveries += deliveries.count
        var seen = Set<Int>()
        var anonymousCount = 0
        for delivery in deliveries {
            guard delivery.post >= 0 else {
                anonymousCount += 1
                if !anonymous { outcome.problem("delivery of an unknown post", registration.description) }
                continue
            }
            guard let post = byNumber[delivery.post] else {
                outcome.problem("received a post never made", "\(registration.description): post \(delivery.post)")
                continue
            }
            if !seen.insert(post.number).inserted {
                outcome.problem("duplicate delivery", "\(registration.description): \(post.description)")
            }
            if !registration.accepts(post) {
                outcome.problem(
                    "received mail it does not accept", "\(registration.description): \(post.description)")
            }
            if post.end < registration.registerStart {
                outcome.problem(
                    "received a post that returned before its register began",
                    "\(registration.description): \(post.description)")
            }
            if post.start > bound {
                outcome.problem(
                    "received a post that began after its unregister returned or its recipient began to deinitialize",
                    "\(registration.description): \(post.description), ended at \(bound)")
            }
            if delivery.sender != -2, delivery.sender != post.sender {
                outcome.problem(
                    "wrong sender delivered",
                    "\(registration.description): \(post.description), got sender \(delivery.sender)")
            }
        }

        var determined = 0
        var undetermined = 0
        for kind in registration.kind.reachedBy {
            guard let (posts, maxEnd) = byKind[registration.office * 8 + kind.rawValue] else { continue }
            // The first post that may have returned after the register began.
            var low = 0
            var high = posts.count
            while low < high {
                let middle = (low + high) / 2
                if maxEnd[middle] < registration.registerStart { low = middle + 1 } else { high = middle }
            }
            for post in posts[low...] {
                if post.start > bound { break }
                if post.end < registration.registerStart || !registration.accepts(post) { continue }
                let isDetermined =
                    post.start > registration.registerEnd
                    && (registration.queued ? registration.endStart == .max : post.end < registration.endStart)
                if isDetermined {
                    determined += 1
                    if !anonymous, !seen.contains(post.number) {
                        outcome.problem(
                            "lost delivery (a determined post not received)",
                            "\(registration.description): \(post.description)")
                    }
                } else {
                    undetermined += 1
                }
            }
        }
        if anonymous, anonymousCount < determined || anonymousCount > determined + undetermined {
            outcome.problem(
                "queued no-argument registration received a count outside the possible range",
                "\(registration.description): \(anonymousCount) deliveries, not in \(determined)...\(determined + undetermined)"
            )
        }
        outcome.determinedPairs += determined
        outcome.undeterminedPairs += undetermined
    }

    // MARK: Cleaning up

    /// Unregisters what is left, releases every recipient, sender and private office, and returns what did not
    /// go away.
    func releaseEverything() -> [String] {
        var leftovers: [String] = []
        let results = self.results.value
        for registration in results.values.flatMap(\.live) where registration.office == 0 && registration.probe == nil {
            shared.unregister(registration.id!)
        }
        survivors.update { $0.removeAll() }
        pool.update { $0.removeAll() }
        let alive = survivorWatch.value.filter { $0.object != nil }.count
        if alive > 0 { leftovers.append("\(alive) recipients or private offices are still alive") }
        let probesCreated = results.values.map(\.probesCreated).reduce(0, +)
        let deinits = clock.log.filter(\.isDeinit).count
        if deinits != probesCreated { leftovers.append("\(probesCreated) recipients made, \(deinits) deinitialized") }
        let count = shared.registrationCount
        if count != 0 { leftovers.append("the shared office still counts \(count) registrations") }
        return leftovers
    }
}
