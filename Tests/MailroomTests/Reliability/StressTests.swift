// A randomized stress test with a reference computation of what must, may and must not be delivered.
//
// Worker threads (real threads) make seeded random mixes of every register form at several priorities (some
// closures throwing on some posts, some interceptors consuming some), recipients of DeliveryFailure (some
// throwing, some consuming), posts with and without a sender, unregisters by id and by object, and drops of the
// last reference to recipients, senders and offices, on a shared office and on offices of their own. A clock (one lock, one counter) is read just before and just
// after every call; from those times the check afterwards decides, for each registration R and each post P
// that R accepts:
//
// - R must have received P exactly once when R's register returned before P's post began and nothing that
//   ends R (unregister, unregister(object), dropping its recipient, releasing its office) began before P's post
//   returned; for a queued R, when moreover nothing ended R before its queue was drained at the end;
// - R must not have received P when P's post returned before R's register began, or P's post began after
//   R's unregister returned or after R's recipient began to deinitialize;
// - otherwise R received P at most once;
// - but R must not have received P when an interceptor that surely ranks before R (a higher priority, or the
//   same and registered before R's register began) consumed P; and a P that an interceptor which may rank
//   before R consumed leaves the pair undetermined.
//
// Each post also records, on its thread, the synchronous handlers it called and the reports of failures made
// inside it: no handler was called before one it surely ranks after, nor after an interceptor consumed the post,
// and on the shared office the report of a failure reached the auditor (a recipient of DeliveryFailure ranked
// first, for the whole run) before the next recipient was called. Every failure was reported exactly once: on
// the shared office to its auditor; on a private office to the recipients of DeliveryFailure that received it,
// or else to the office's fallback; with the registration's id, the post's mail and sender, on the thread where
// the handler ran. Every failure of a recipient of DeliveryFailure went to the fallback, once.
//
// Handlers also check, as they run, that a synchronous one runs on the thread making that post, that a queued
// one never runs on a posting thread, and that none runs on its own thread after that thread's unregister of
// it returned. Every call of a recipient's method and every recipient's deinit is logged by the clock, under
// its one lock, so a call that began after the deinit began is seen.

import Dispatch
import Foundation
import Mailroom
import MailroomTestSupport
import Testing

@Suite("A randomized stress checked against a reference computation")
struct StressTests {
    @Test(
        "8 threads mixing every register form at several priorities, throwing handlers, interceptors, recipients of DeliveryFailure, posts, unregisters and dropped references deliver and report exactly what the reference computation requires"
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

    /// Whether a post from `sender` (a serial, -1 for none) of class `senderKind` passes the filter.
    func admits(sender: Int, senderKind: StressSenderKind?) -> Bool {
        switch self {
        case .any: true
        case .kind(let senderClass, let orNoSender): senderKind.map { $0.isAdmitted(by: senderClass) } ?? orNoSender
        case .exact(let serial): sender == serial
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
    /// What the post did on its thread, in order.
    let steps: [StressStep]

    var description: String {
        "post \(number) (\(kind), office \(office), sender \(sender), times \(start)...\(end))"
    }

    /// The worker thread that made the post.
    var thread: Int { number / 1_000_000 }
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
    let priority: Int16
    /// The posts the handler throws on, after recording the delivery (closures only).
    let throwsOn: StressTrigger
    /// The posts the handler consumes when it does not throw: an interceptor (`intercept`, closures only); `nil`
    /// for a registration made with `register`.
    let consumesOn: StressTrigger?

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
    /// The posts the handler threw on.
    private var thrown: [Int] = []

    init(
        serial: Int, owner: Int, office: Int, kind: StressMailKind, form: StressForm, filter: StressFilter,
        queued: Bool, probe: Int?, priority: Int16, throwsOn: StressTrigger, consumesOn: StressTrigger?
    ) {
        self.serial = serial
        self.owner = owner
        self.office = office
        self.kind = kind
        self.form = form
        self.filter = filter
        self.queued = queued
        self.probe = probe
        self.priority = priority
        self.throwsOn = throwsOn
        self.consumesOn = consumesOn
    }

    var description: String {
        let recipient =
            probe.map { "method of probe \($0)" } ?? consumesOn.map { "interceptor consuming \($0)" } ?? "closure"
        let throwing = if case .never = throwsOn { "" } else { ", throwing on \(throwsOn)" }
        return
            "registration \(serial) (\(recipient), \(form) \(kind) \(filter), \(queued ? "queued" : "sync"), priority \(priority)\(throwing), office \(office), register \(registerStart)...\(registerEnd), end \(endStart == .max ? "-" : "\(endStart)")...\(unregisterEnd == .max ? "-" : "\(unregisterEnd)"))"
    }

    /// Whether a post reaches this registration, by office, mail type and sender.
    func accepts(_ post: StressPost) -> Bool {
        post.office == office && post.kind.reaches(kind)
            && filter.admits(sender: post.sender, senderKind: post.senderKind)
    }

    /// Whether the office surely calls this registration before `other` in a post that reaches both: it has a
    /// higher priority, or the same and its register returned before `other`'s began. (With the same priority
    /// and overlapping registers, the order is not known.)
    func surelyRanks(before other: StressRegistration) -> Bool {
        priority != other.priority ? priority > other.priority : registerEnd < other.registerStart
    }

    /// Called by the owner thread once its unregister of this registration returned.
    func markUnregistered() {
        lock.withLock { unregisteredOnOwner = true }
    }

    /// Records a delivery and answers as the registration's triggers say: passes the mail on, consumes it, or
    /// throws `StressFailure`. `E` is the handler's error type: `StressFailure`, or `Never` for a handler that
    /// cannot throw.
    func answer<E: Error>(_: E.Type, post: Int?, sender: Int) throws(E) -> Consumption {
        let (number, threw, consumed) = deliver(post: post, sender: sender)
        if threw {
            throw StressFailure(serial: serial, post: number) as! E
        }
        return consumed ? .consumed : .passOn
    }

    /// Records a delivery, called by the handler, and appends it to the steps of its posting thread's post.
    /// `post` is nil for the no-argument forms. Returns the post's number as far as the handler knows it (-1:
    /// not at all), and whether the handler throws on it, or consumes it.
    @discardableResult
    func deliver(post: Int?, sender: Int) -> (post: Int, threw: Bool, consumed: Bool) {
        let worker = StressWorker.current
        let number = post ?? (queued ? -1 : worker?.currentPost ?? -1)
        let threw = number >= 0 && throwsOn.fires(on: number)
        let consumed = !threw && number >= 0 && consumesOn?.fires(on: number) == true
        if !queued, let worker {
            worker.steps.append(.delivered(serial: serial, threw: threw, consumed: consumed))
        }
        lock.withLock {
            if threw {
                thrown.append(number)
            }
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
        return (number, threw, consumed)
    }

    var deliveries: [(post: Int, sender: Int)] { lock.withLock { received } }
    /// The posts the handler threw on.
    var failures: [Int] { lock.withLock { thrown } }
    var problems: [(category: String, detail: String)] { lock.withLock { handlerProblems } }
}

/// A report of a failure, as a recipient of `DeliveryFailure` or an office's fallback got it.
private struct StressReport {
    /// The office it was posted on (or whose fallback got it).
    let office: Int
    /// Who got it: -1 the shared office's auditor, -2 the office's fallback, otherwise the serial of a recipient
    /// of `DeliveryFailure`.
    let by: Int
    let recipient: RecipientId
    /// The registration that threw and the post it threw on, from its `StressFailure` (-1: another error).
    let thrower: Int
    let post: Int
    /// The number of the mail in the report; for the failure of a recipient of `DeliveryFailure`, of the mail
    /// in the report it failed on.
    let mailPost: Int
    /// For the failure of a recipient of `DeliveryFailure`: the registration whose failure it was handling.
    let failedThrower: Int?
    /// The serial of the report's sender, -1 for none.
    let sender: Int
    /// The sender as the recipient's handler was passed it: -2 when its form passes none.
    let passedSender: Int
    /// The worker thread it was delivered on, and the post that thread was making; nil on a queue's thread.
    let thread: Int?
    let threadPost: Int

    init(_ failure: DeliveryFailure, office: Int, by: Int, passedSender: Int = -2) {
        self.office = office
        self.by = by
        recipient = failure.recipient
        let error = failure.error as? StressFailure
        thrower = error?.serial ?? -1
        post = error?.post ?? -1
        let inner = failure.mail as? DeliveryFailure
        mailPost = ((inner?.mail ?? failure.mail) as? any StressMail)?.n ?? -1
        failedThrower = inner.map { ($0.error as? StressFailure)?.serial ?? -1 }
        sender = (failure.sender as? any StressSender)?.stressSerial ?? -1
        self.passedSender = passedSender
        let worker = StressWorker.current
        thread = worker?.index
        threadPost = worker?.currentPost ?? -1
    }

    var description: String {
        let who = by == -1 ? "the auditor" : by == -2 ? "the fallback" : "report recipient \(by)"
        let of = failedThrower.map { " (of its report of \($0)'s failure)" } ?? ""
        return
            "\(who) got the failure of \(thrower)\(of) on post \(post) (mail \(mailPost), sender \(sender), office \(office), thread \(thread.map { "\($0)" } ?? "none") at post \(threadPost))"
    }
}

/// A recipient of `DeliveryFailure` made by a worker thread: a closure on the posting thread, for every report,
/// or those of a sender class, or of one exact sender. Some throw (their failure goes to the fallback), and
/// some are interceptors that consume the report.
private final class StressReportRecipient: @unchecked Sendable {
    let serial: Int
    let office: Int
    let filter: StressFilter
    let priority: Int16
    /// The reports it throws on, by the number of the failed post.
    let throwsOn: StressTrigger
    /// Registered with `intercept`, consuming every report it does not throw on.
    let consumes: Bool
    var id: RecipientId?

    private let lock = NSLock()
    private var got: [StressReport] = []
    /// The failures (thrower, post) whose reports it threw on.
    private var thrown: [(thrower: Int, post: Int)] = []

    init(serial: Int, office: Int, filter: StressFilter, priority: Int16, throwsOn: StressTrigger, consumes: Bool) {
        self.serial = serial
        self.office = office
        self.filter = filter
        self.priority = priority
        self.throwsOn = throwsOn
        self.consumes = consumes
    }

    var description: String {
        "report recipient \(serial) (\(filter), priority \(priority), throwing on \(throwsOn)\(consumes ? ", consuming" : ""), office \(office))"
    }

    /// Records the report and answers: throws `StressFailure` on the reports of the posts of `throwsOn`, or
    /// consumes it if it is an interceptor. `sender` is the sender its handler was passed, -2 for none.
    func receive<E: Error>(_: E.Type, _ failure: DeliveryFailure, sender: Int) throws(E) -> Consumption {
        let report = StressReport(failure, office: office, by: serial, passedSender: sender)
        let threw = throwsOn.fires(on: report.mailPost)
        StressWorker.current?.steps.append(.report(by: serial, thrower: report.thrower))
        lock.withLock {
            got.append(report)
            if threw { thrown.append((report.thrower, report.post)) }
        }
        if threw {
            throw StressFailure(serial: serial, post: report.post) as! E
        }
        return consumes ? .consumed : .passOn
    }

    var reports: [StressReport] { lock.withLock { got } }
    var failures: [(thrower: Int, post: Int)] { lock.withLock { thrown } }
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

    /// The "no argument" forms: a method that takes the mail and ignores it (the handler named its mail type).
    func arrived<M: StressMail>(_: M) {
        receive(.noArgument, M.stressKind, nil, post: nil, sender: -2)
    }

    func exactArrived<M: StressMail>(_: M) {
        receive(.exactNoArgument, M.stressKind, nil, post: nil, sender: -2)
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

    var priority: Priority { Priority(record.priority) }
}

private func register<M: StressMail>(_ mailType: M.Type, _ request: StressRegistrationRequest) -> RecipientId {
    if request.form.isExact {
        switch request.exactSender! {
        case .device(let device): return register(mailType, exactly: device, request)
        case .phone(let phone): return register(mailType, exactly: phone, request)
        case .stranger(let stranger): return register(mailType, exactly: stranger, request)
        }
    }
    switch request.senderKind {
    case .device: return register(mailType, Device.self, exactly: nil, request)
    case .phone: return register(mailType, Phone.self, exactly: nil, request)
    case .stranger: return register(mailType, Stranger.self, exactly: nil, request)
    }
}

private func register<M: StressMail, S: StressSender>(
    _: M.Type, exactly sender: S, _ request: StressRegistrationRequest
) -> RecipientId {
    register(M.self, S.self, exactly: sender, request)
}

/// Registers the request's form with sender class `S` (or exact sender `sender`): a method of its probe, or a
/// closure that may throw or consume the mail.
private func register<M: StressMail, S: StressSender>(
    _: M.Type, _: S.Type, exactly sender: S?, _ request: StressRegistrationRequest
) -> RecipientId {
    if let probe = request.probe {
        return registerMethod(M.self, S.self, exactly: sender, of: probe, request)
    }
    let throwing = if case .never = request.record.throwsOn { false } else { true }
    switch (request.record.consumesOn != nil, throwing) {
    case (false, false): return registerClosure(M.self, S.self, Never.self, exactly: sender, request)
    case (false, true): return registerClosure(M.self, S.self, StressFailure.self, exactly: sender, request)
    case (true, false): return interceptClosure(M.self, S.self, Never.self, exactly: sender, request)
    case (true, true): return interceptClosure(M.self, S.self, StressFailure.self, exactly: sender, request)
    }
}

private func registerMethod<M: StressMail, S: StressSender>(
    _: M.Type, _: S.Type, exactly sender: S?, of probe: StressProbe, _ request: StressRegistrationRequest
) -> RecipientId {
    let (office, queue, priority) = (request.office, request.queue, request.priority)
    switch (request.form, sender) {
    case (.mail, _):
        let method: @Sendable (StressProbe) -> (M) -> Void = StressProbe.mail
        return office.register(queue: queue, priority: priority, probe, method)
    case (.typed, _):
        let method: @Sendable (StressProbe) -> (M, S) -> Void = StressProbe.typed
        return office.register(queue: queue, priority: priority, probe, method)
    case (.optional, _):
        let method: @Sendable (StressProbe) -> (M, S?) -> Void = StressProbe.optional
        return office.register(queue: queue, priority: priority, probe, method)
    case (.noArgument, _):
        let method: @Sendable (StressProbe) -> (M) -> Void = StressProbe.arrived
        return office.register(queue: queue, priority: priority, probe, method)
    case (.exact, let sender?):
        let method: @Sendable (StressProbe) -> (M) -> Void = StressProbe.exact
        return office.register(queue: queue, priority: priority, sender: sender, probe, method)
    case (.exactTyped, let sender?):
        let method: @Sendable (StressProbe) -> (M, S) -> Void = StressProbe.exactTyped
        return office.register(queue: queue, priority: priority, sender: sender, probe, method)
    case (.exactNoArgument, let sender?):
        let method: @Sendable (StressProbe) -> (M) -> Void = StressProbe.exactArrived
        return office.register(queue: queue, priority: priority, sender: sender, probe, method)
    default:
        preconditionFailure("an exact form without its sender")
    }
}

/// A closure registered with `register`, whose handler throws `E` (`StressFailure`, or `Never`).
private func registerClosure<M: StressMail, S: StressSender, E: Error>(
    _: M.Type, _: S.Type, _: E.Type, exactly sender: S?, _ request: StressRegistrationRequest
) -> RecipientId {
    let (office, queue, priority, record) = (request.office, request.queue, request.priority, request.record)
    switch (request.form, sender) {
    case (.mail, _):
        return office.register(queue: queue, priority: priority) { (mail: M) throws(E) in
            _ = try record.answer(E.self, post: mail.n, sender: -2)
        }
    case (.typed, _):
        return office.register(queue: queue, priority: priority) { (mail: M, sender: S) throws(E) in
            _ = try record.answer(E.self, post: mail.n, sender: sender.stressSerial)
        }
    case (.optional, _):
        return office.register(queue: queue, priority: priority) { (mail: M, sender: S?) throws(E) in
            _ = try record.answer(E.self, post: mail.n, sender: sender?.stressSerial ?? -1)
        }
    case (.noArgument, _):
        return office.register(of: M.self, queue: queue, priority: priority) { (_: M) throws(E) in
            _ = try record.answer(E.self, post: nil, sender: -2)
        }
    case (.exact, let sender?):
        return office.register(queue: queue, priority: priority, sender: sender) { (mail: M) throws(E) in
            _ = try record.answer(E.self, post: mail.n, sender: -2)
        }
    case (.exactTyped, let sender?):
        return office.register(queue: queue, priority: priority, sender: sender) { (mail: M, sender: S) throws(E) in
            _ = try record.answer(E.self, post: mail.n, sender: sender.stressSerial)
        }
    case (.exactNoArgument, let sender?):
        return office.register(of: M.self, queue: queue, priority: priority, sender: sender) { (_: M) throws(E) in
            _ = try record.answer(E.self, post: nil, sender: -2)
        }
    default:
        preconditionFailure("an exact form without its sender")
    }
}

/// A closure registered with `intercept`, whose handler throws `E` (`StressFailure`, or `Never`).
private func interceptClosure<M: StressMail, S: StressSender, E: Error>(
    _: M.Type, _: S.Type, _: E.Type, exactly sender: S?, _ request: StressRegistrationRequest
) -> RecipientId {
    let (office, priority, record) = (request.office, request.priority, request.record)
    switch (request.form, sender) {
    case (.mail, _):
        return office.intercept(priority: priority) { (mail: M) throws(E) -> Consumption in
            try record.answer(E.self, post: mail.n, sender: -2)
        }
    case (.typed, _):
        return office.intercept(priority: priority) { (mail: M, sender: S) throws(E) -> Consumption in
            try record.answer(E.self, post: mail.n, sender: sender.stressSerial)
        }
    case (.optional, _):
        return office.intercept(priority: priority) { (mail: M, sender: S?) throws(E) -> Consumption in
            try record.answer(E.self, post: mail.n, sender: sender?.stressSerial ?? -1)
        }
    case (.noArgument, _):
        return office.intercept(of: M.self, priority: priority) { (_: M) throws(E) -> Consumption in
            try record.answer(E.self, post: nil, sender: -2)
        }
    case (.exact, let sender?):
        return office.intercept(priority: priority, sender: sender) { (mail: M) throws(E) -> Consumption in
            try record.answer(E.self, post: mail.n, sender: -2)
        }
    case (.exactTyped, let sender?):
        return office.intercept(priority: priority, sender: sender) { (mail: M, sender: S) throws(E) -> Consumption in
            try record.answer(E.self, post: mail.n, sender: sender.stressSerial)
        }
    case (.exactNoArgument, let sender?):
        return office.intercept(of: M.self, priority: priority, sender: sender) { (_: M) throws(E) -> Consumption in
            try record.answer(E.self, post: nil, sender: -2)
        }
    default:
        preconditionFailure("an exact form without its sender")
    }
}

/// Registers `recipient` for `DeliveryFailure` on `office`, with its filter; `exactSender` is the sender of an
/// exact filter.
private func register(
    _ recipient: StressReportRecipient, on office: PostOffice, senderKind: StressSenderKind,
    exactSender: StressSenderObject?
) -> RecipientId {
    let throwing = if case .never = recipient.throwsOn { false } else { true }
    if throwing {
        return register(recipient, StressFailure.self, on: office, senderKind: senderKind, exactSender: exactSender)
    }
    return register(recipient, Never.self, on: office, senderKind: senderKind, exactSender: exactSender)
}

private func register<E: Error>(
    _ recipient: StressReportRecipient, _: E.Type, on office: PostOffice, senderKind: StressSenderKind,
    exactSender: StressSenderObject?
) -> RecipientId {
    let priority = Priority(recipient.priority)
    switch recipient.filter {
    case .any:
        if recipient.consumes {
            return office.intercept(priority: priority) { (failure: DeliveryFailure) throws(E) -> Consumption in
                try recipient.receive(E.self, failure, sender: -2)
            }
        }
        return office.register(priority: priority) { (failure: DeliveryFailure) throws(E) in
            _ = try recipient.receive(E.self, failure, sender: -2)
        }
    case .kind(_, let orNoSender):
        switch senderKind {
        case .device: return register(recipient, E.self, Device.self, orNoSender: orNoSender, on: office)
        case .phone: return register(recipient, E.self, Phone.self, orNoSender: orNoSender, on: office)
        case .stranger: return register(recipient, E.self, Stranger.self, orNoSender: orNoSender, on: office)
        }
    case .exact:
        switch exactSender! {
        case .device(let device): return register(recipient, E.self, exactly: device, on: office)
        case .phone(let phone): return register(recipient, E.self, exactly: phone, on: office)
        case .stranger(let stranger): return register(recipient, E.self, exactly: stranger, on: office)
        }
    }
}

private func register<E: Error, S: StressSender>(
    _ recipient: StressReportRecipient, _: E.Type, _: S.Type, orNoSender: Bool, on office: PostOffice
) -> RecipientId {
    let priority = Priority(recipient.priority)
    if orNoSender {
        return office.register(priority: priority) { (failure: DeliveryFailure, sender: S?) throws(E) in
            _ = try recipient.receive(E.self, failure, sender: sender?.stressSerial ?? -1)
        }
    }
    return office.register(priority: priority) { (failure: DeliveryFailure, sender: S) throws(E) in
        _ = try recipient.receive(E.self, failure, sender: sender.stressSerial)
    }
}

private func register<E: Error, S: StressSender>(
    _ recipient: StressReportRecipient, _: E.Type, exactly sender: S, on office: PostOffice
) -> RecipientId {
    office.register(priority: Priority(recipient.priority), sender: sender) { (failure: DeliveryFailure) throws(E) in
        _ = try recipient.receive(E.self, failure, sender: -2)
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
    var reportRecipients: [StressReportRecipient] = []
    var liveReportRecipients: [StressReportRecipient] = []
    var operations: [String: Int] = [:]
    var problems: [(category: String, detail: String)] = []
}

private final class StressRun: @unchecked Sendable {
    let threads: Int
    let operationsPerThread: Int
    let seed: UInt64
    let clock = StressClock()
    /// What the offices' fallbacks and the shared office's auditor got.
    let reports = Shared<[StressReport]>([])
    /// Office 0. Its auditor, a recipient of `DeliveryFailure` ranked before every other, hears every failure;
    /// so its fallback gets only the failures of recipients of `DeliveryFailure`.
    let shared: PostOffice
    let auditor: RecipientId
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
    static let maximumReportRecipients = 4
    /// The priorities of the registrations: mostly equal ones, so that the order of ties is exercised.
    static let priorities: [Int16] = [0, 0, 0, 5, -5, 50]

    init(threads: Int, operationsPerThread: Int, seed: UInt64) {
        self.threads = threads
        self.operationsPerThread = operationsPerThread
        self.seed = seed
        shared = Self.makeOffice(key: 0, reports: reports)
        let reports = reports
        auditor = shared.register(priority: Priority(Int16.max)) { (failure: DeliveryFailure) in
            let report = StressReport(failure, office: 0, by: -1)
            StressWorker.current?.steps.append(.report(by: -1, thrower: report.thrower))
            reports.update { $0.append(report) }
        }
        pool = Shared(
            (0..<poolSize).map { StressSenderObject(kind: StressSenderKind.allCases[$0 % 3], serial: 9_000_000 + $0) })
        queues = (0..<threads).map { thread in
            (0..<2).map { DispatchQueue(label: "mailroom.tests.reliability.stress.\(thread).\($0)") }
        }
    }

    /// An office whose fallback records the failures it gets as those of office `key`.
    static func makeOffice(key: Int, reports: Shared<[StressReport]>) -> PostOffice {
        PostOffice(unheardFailures: { failure in
            reports.update { $0.append(StressReport(failure, office: key, by: -2)) }
        })
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
        var privateKey = 1 + thread * 1_000_000
        var privateOffice = Self.makeOffice(key: privateKey, reports: reports)
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
                let index = random.below(result.live.count + result.liveReportRecipients.count)
                guard index < result.live.count else {
                    let recipient = result.liveReportRecipients.remove(at: index - result.live.count)
                    (recipient.office == 0 ? shared : privateOffice).unregister(recipient.id!)
                    count("unregister a recipient of DeliveryFailure")
                    continue
                }
                let registration = result.live.remove(at: index)
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
                    privateOffice = Self.makeOffice(key: 1 + thread * 1_000_000 + privateGeneration, reports: reports)
                }
                result.live.removeAll { $0.office == privateKey }
                result.liveReportRecipients.removeAll { $0.office == privateKey }
                privateKey = 1 + thread * 1_000_000 + privateGeneration
                if released != nil {
                    result.problems.append(("a released private office is still alive", "thread \(thread)"))
                }
                count("release office")
            } else if roll < 34, result.liveReportRecipients.count < Self.maximumReportRecipients {
                let recipient = makeReportRecipient(
                    thread, &random, &result, privateOffice: privateOffice, privateKey: privateKey)
                result.liveReportRecipients.append(recipient)
                result.reportRecipients.append(recipient)
                count("register for DeliveryFailure")
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
                worker.steps.removeAll(keepingCapacity: true)
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
                        senderKind: sender?.kind, start: start, end: end, steps: worker.steps))
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
        let priority = random.pick(Self.priorities)
        // Closures may throw, or consume the mail. A queued handler that is not passed the mail cannot know
        // the post, so throws on every one or none; one on a private office does not throw, as that office
        // may be released while it runs (its failure then goes to standard error).
        var throwsOn = StressTrigger.never
        var consumesOn: StressTrigger?
        if probe == nil {
            if random.chance(20), queue == nil || onShared {
                throwsOn = queue != nil && form.isNoArgument || random.chance(30) ? .always : .oddPosts
            }
            if queue == nil, random.chance(12) {
                consumesOn = random.chance(70) ? .oddPosts : .always
            }
        }
        let record = StressRegistration(
            serial: thread * 1_000_000 + result.registrations.count, owner: thread,
            office: onShared ? 0 : privateKey, kind: kind, form: form, filter: filter, queued: queue != nil,
            probe: probe?.serial, priority: priority, throwsOn: throwsOn, consumesOn: consumesOn)
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

    private func makeReportRecipient(
        _ thread: Int, _ random: inout SplitMix64, _ result: inout StressThreadResult, privateOffice: PostOffice,
        privateKey: Int
    ) -> StressReportRecipient {
        let onShared = random.chance(60)
        let senderKind = StressSenderKind.allCases[random.below(3)]
        let exactSender: StressSenderObject? = random.chance(20) ? pool.value[random.below(poolSize)] : nil
        let filter: StressFilter =
            if let exactSender {
                .exact(serial: exactSender.stressSerial)
            } else {
                [.any, .any, .kind(senderKind, orNoSender: false), .kind(senderKind, orNoSender: true)][random.below(4)]
            }
        let throwsOn: StressTrigger = random.chance(20) ? (random.chance(50) ? .always : .oddPosts) : .never
        let recipient = StressReportRecipient(
            serial: thread * 1_000_000 + 500_000 + result.reportRecipients.count, office: onShared ? 0 : privateKey,
            filter: filter, priority: random.pick(Self.priorities), throwsOn: throwsOn,
            consumes: filter == .any && random.chance(25))
        recipient.id = register(
            recipient, on: onShared ? shared : privateOffice, senderKind: senderKind, exactSender: exactSender)
        withExtendedLifetime(exactSender) {}
        return recipient
    }

    // MARK: Checking

    struct Outcome {
        var postCount = 0
        var registrationCount = 0
        var operationCounts: [String: Int] = [:]
        var deliveries = 0
        var determinedPairs = 0
        var undeterminedPairs = 0
        /// Pairs of synchronous deliveries of one post whose order the priorities and register times fix.
        var orderedPairs = 0
        var consumedPosts = 0
        var failuresThrown = 0
        var failuresToAuditor = 0
        /// Reports of failures on private offices that recipients of `DeliveryFailure` received.
        var failuresHeard = 0
        var failuresToFallback = 0
        /// Failures of recipients of `DeliveryFailure`, each to the fallback.
        var reportFailures = 0
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

        var bySerial: [Int: StressRegistration] = [:]
        for registration in registrations { bySerial[registration.serial] = registration }
        var consumers: [Int: StressRegistration] = [:]
        for post in posts {
            checkSteps(of: post, bySerial: bySerial, consumers: &consumers, into: &outcome)
        }
        outcome.consumedPosts = consumers.count

        for registration in registrations {
            for problem in registration.problems {
                outcome.problem(problem.category, "\(registration.description): \(problem.detail)")
            }
            check(
                registration, byNumber: byNumber, byKind: byKind, deinitTimes: deinitTimes, consumers: consumers,
                into: &outcome)
        }
        checkFailures(
            registrations: registrations, reportRecipients: results.values.flatMap(\.reportRecipients),
            byNumber: byNumber, into: &outcome)

        let operations = outcome.operationCounts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        outcome.summary =
            "Reliability stress (seed \(seed), MAILROOM_STRESS_SCALE \(stressScale)): \(threads) threads, \(threads * operationsPerThread) operations (\(operations.joined(separator: ", "))); \(outcome.postCount) posts, \(outcome.registrationCount) registrations; \(outcome.deliveries) deliveries checked; \(outcome.determinedPairs) determined (registration, post) pairs that had to be delivered exactly once, \(outcome.undeterminedPairs) undetermined pairs (0 or 1); \(outcome.orderedPairs) pairs of synchronous deliveries of a post checked for order by priority; \(outcome.consumedPosts) posts consumed by an interceptor; \(outcome.failuresThrown) failures thrown, each reported exactly once (\(outcome.failuresToAuditor) to the shared office's auditor, \(outcome.failuresHeard) heard by recipients of DeliveryFailure on private offices, \(outcome.failuresToFallback) to the fallback), and \(outcome.reportFailures) failures of recipients of DeliveryFailure, each to the fallback; \(outcome.problemCount) problems"
        return outcome
    }

    /// Checks what a post did on its thread: its synchronous recipients were called by rank; the
    /// `DeliveryFailure` of one that threw on the shared office reached the auditor before the next recipient
    /// was called; nothing was called after an interceptor consumed it. Records the interceptor in `consumers`.
    private func checkSteps(
        of post: StressPost, bySerial: [Int: StressRegistration], consumers: inout [Int: StressRegistration],
        into outcome: inout Outcome
    ) {
        var called: [StressRegistration] = []
        var consumer: StressRegistration?
        for (index, step) in post.steps.enumerated() {
            if let consumer {
                outcome.problem(
                    "called after an interceptor consumed the post",
                    "\(post.description), consumed by \(consumer.description)"
                )
            }
            guard case .delivered(let serial, let threw, let consumed) = step else { continue }
            guard let registration = bySerial[serial] else {
                outcome.problem("a step of an unknown registration", "\(post.description): \(serial)")
                continue
            }
            for earlier in called {
                if registration.surelyRanks(before: earlier) {
                    outcome.problem(
                        "called after a recipient it ranks before",
                        "\(post.description): \(registration.description) after \(earlier.description)")
                } else if earlier.surelyRanks(before: registration) {
                    outcome.orderedPairs += 1
                }
            }
            called.append(registration)
            if threw, post.office == 0 {
                let next = index + 1 < post.steps.count ? post.steps[index + 1] : nil
                guard case .report(by: -1, thrower: serial)? = next else {
                    outcome.problem(
                        "the failure of a synchronous handler was not reported before the next recipient",
                        "\(registration.description): \(post.description), then \(next.map { "\($0)" } ?? "nothing")")
                    continue
                }
            }
            if consumed {
                consumer = registration
                consumers[post.number] = registration
            }
        }
    }

    /// Checks that every failure was reported exactly once: on the shared office to its auditor, on a private
    /// office to the recipients of `DeliveryFailure` that received it or else to the fallback; with the
    /// registration's id, the post's mail and sender, on the thread where the handler ran. Every failure of a
    /// recipient of `DeliveryFailure` went to the fallback, once, and was not posted again.
    private func checkFailures(
        registrations: [StressRegistration], reportRecipients: [StressReportRecipient], byNumber: [Int: StressPost],
        into outcome: inout Outcome
    ) {
        struct Failure: Hashable {
            let thrower: Int
            let post: Int
            /// For a failure of a recipient of `DeliveryFailure`: the registration whose failure it handled.
            let failed: Int?
        }
        var reported: [Failure: [StressReport]] = [:]
        for report in reports.value + reportRecipients.flatMap(\.reports) {
            if report.failedThrower != nil, report.by != -2 {
                outcome.problem("the failure of a recipient of DeliveryFailure was posted again", report.description)
            }
            reported[Failure(thrower: report.thrower, post: report.post, failed: report.failedThrower), default: []]
                .append(report)
        }
        for recipient in reportRecipients {
            for report in recipient.reports where report.failedThrower == nil {
                let post = byNumber[report.post]
                if post?.office != recipient.office
                    || !recipient.filter.admits(sender: report.sender, senderKind: post?.senderKind)
                {
                    outcome.problem(
                        "a recipient of DeliveryFailure got a report it does not accept",
                        "\(recipient.description): \(report.description)")
                }
            }
        }

        for registration in registrations {
            for number in registration.failures {
                outcome.failuresThrown += 1
                let reports =
                    reported.removeValue(forKey: Failure(thrower: registration.serial, post: number, failed: nil)) ?? []
                let toAuditor = reports.filter { $0.by == -1 }.count
                let toFallback = reports.filter { $0.by == -2 }.count
                let heard = reports.filter { $0.by >= 0 }
                outcome.failuresToAuditor += toAuditor
                outcome.failuresToFallback += toFallback
                if registration.office != 0 { outcome.failuresHeard += heard.isEmpty ? 0 : 1 }
                let once =
                    registration.office == 0
                    ? toAuditor == 1 && toFallback == 0
                    : toFallback == (heard.isEmpty ? 1 : 0) && Set(heard.map(\.by)).count == heard.count
                if !once {
                    outcome.problem(
                        "a failure not reported exactly once",
                        "\(registration.description) on post \(number): \(reports.map(\.description))")
                }
                guard let post = byNumber[number] else { continue }
                for report in reports {
                    let thread = registration.queued ? nil : post.thread
                    let threadPost = registration.queued ? -1 : number
                    if report.recipient != registration.id || report.mailPost != number
                        || report.office != registration.office || report.sender != post.sender
                        || (report.passedSender != -2 && report.passedSender != post.sender)
                        || report.thread != thread || report.threadPost != threadPost
                    {
                        outcome.problem(
                            "a report that does not describe the failure, or was delivered elsewhere",
                            "\(registration.description), \(post.description): \(report.description)")
                    }
                }
            }
        }
        for recipient in reportRecipients {
            for failure in recipient.failures {
                outcome.reportFailures += 1
                let key = Failure(thrower: recipient.serial, post: failure.post, failed: failure.thrower)
                let reports = reported.removeValue(forKey: key) ?? []
                if reports.count != 1 || reports[0].recipient != recipient.id || reports[0].office != recipient.office {
                    outcome.problem(
                        "the failure of a recipient of DeliveryFailure did not go to the fallback exactly once",
                        "\(recipient.description) on the report of \(failure.thrower)'s failure on post \(failure.post): \(reports.map(\.description))"
                    )
                }
            }
        }
        for reports in reported.values {
            outcome.problem(
                "a report of a failure no handler threw", reports.map(\.description).joined(separator: "; "))
        }
    }

    private func check(
        _ registration: StressRegistration, byNumber: [Int: StressPost],
        byKind: [Int: (posts: [StressPost], maxEnd: [Int])], deinitTimes: [Int: Int],
        consumers: [Int: StressRegistration], into outcome: inout Outcome
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
            if let consumer = consumers[post.number], consumer.surelyRanks(before: registration) {
                outcome.problem(
                    "received a post that an interceptor ranked before it consumed",
                    "\(registration.description): \(post.description), consumed by \(consumer.description)")
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
                // An interceptor that may rank before it and consumed the post leaves it undetermined.
                let mayBeConsumed = consumers[post.number].map {
                    $0 !== registration && !registration.surelyRanks(before: $0)
                }
                let isDetermined =
                    mayBeConsumed != true && post.start > registration.registerEnd
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
        for recipient in results.values.flatMap(\.liveReportRecipients) where recipient.office == 0 {
            shared.unregister(recipient.id!)
        }
        shared.unregister(auditor)
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
