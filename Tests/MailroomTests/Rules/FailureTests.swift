import Dispatch
import Foundation
import Mailroom
import Testing

/// A report as a recipient of `DeliveryFailure` received it, and where that recipient ran.
private struct HeardReport: Sendable {
    let failure: DeliveryFailure
    let onMainQueue: Bool
    let onFormQueue: Bool
}

/// A recipient of reports, registered by its method.
private final class ReportDesk: Sendable {
    let log: Log

    init(log: Log) {
        self.log = log
    }

    func receive(_ failure: DeliveryFailure) {
        log.record("desk: \(failure)")
    }
}

@Suite("A recipient that throws is reported, and never silences the others")
struct FailureTests {
    // MARK: - Every form

    /// Five posts: without a sender, by the exact sender, by another courier, by a subclass, by a stranger. A
    /// recipient of `DeliveryFailure` registered before the failing form, a plain recipient after it.
    @Test(
        "A handler of every form that throws is reported, as DeliveryFailure mail and by deliver, and the recipient after it is still served",
        arguments: RegisterForm.allCases)
    func failingFormIsReportedAndTheOthersServed(form: RegisterForm) async {
        let (office, unheard) = officeCollectingUnheardFailures()
        let posts = FivePosts()
        let log = FormLog()
        let recipients = FormRecipients<ProbeParcel, ProbeCourier>(log: log)
        let queue = MarkedQueue("failure-form")
        let reports = Shared<[HeardReport]>([])
        office.register { (failure: DeliveryFailure) in
            let report = HeardReport(
                failure: failure, onMainQueue: isOnMainQueue(), onFormQueue: queue.currentLabel != nil)
            reports.update { $0.append(report) }
        }
        let id = form.registerFailing(
            on: office, ProbeParcel.self, sender: posts.exact, queue: queue.queue, recipients: recipients, log: log)
        let after = Shared<[Int]>([])
        office.register { (parcel: ProbeParcel) in after.update { $0.append(parcel.n) } }

        var thrown: [[DeliveryFailure]?] = []
        for n in FivePosts.numbers {
            thrown.append(await posts.deliver(n, on: office))
        }

        let expected = FivePosts.numbers.map { Self.failure(of: form, onPost: $0) }
        #expect(thrown.map { $0 != nil } == expected.map { $0 != nil }, "the posts whose deliver threw")
        for (index, failures) in thrown.enumerated() {
            guard let failures, let failure = expected[index] else { continue }
            #expect(failures.map(\.recipient) == [id], "post \(index + 1)")
            #expect(failures.map { $0.error as? FormFailure } == [failure], "post \(index + 1)")
            #expect(failures.map { ($0.mail as? ProbeParcel)?.n } == [index + 1], "post \(index + 1)")
            #expect(failures.allSatisfy { $0.sender === posts.sender(index + 1) }, "post \(index + 1)")
        }

        let onMain: Bool? = Self.runsOnMainActor(form) ? true : nil
        #expect(
            log.entries == expected.compactMap { $0.map { FormDelivery(n: $0.n, sender: $0.sender, onMain: onMain) } })
        #expect(after.value == [1, 2, 3, 4, 5])

        let heard = reports.value
        let thrownInOrder = thrown.compactMap { $0 }.flatMap { $0 }
        #expect(heard.map(\.failure.recipient) == thrownInOrder.map(\.recipient))
        #expect(
            heard.map { ($0.failure.mail as? ProbeParcel)?.n } == thrownInOrder.map { ($0.mail as? ProbeParcel)?.n })
        #expect(heard.map { $0.failure.error as? FormFailure } == thrownInOrder.map { $0.error as? FormFailure })
        #expect(
            heard.count == thrownInOrder.count
                && zip(heard, thrownInOrder).allSatisfy { $0.failure.sender === $1.sender })
        if Self.runsOnMainActor(form) {
            #expect(heard.allSatisfy { $0.onMainQueue }, "reports of a main-actor handler are posted on the main actor")
        } else if form.takesQueue {
            #expect(heard.allSatisfy { $0.onFormQueue }, "reports of a queue handler are posted on its queue")
        }
        #expect(unheard.value.isEmpty)
        withExtendedLifetime(recipients) {}
    }

    /// A handler that threw has received the mail, whatever its form.
    @Test(
        "A handler of every form that threw has received the mail: no UndeliveredMail", arguments: RegisterForm.allCases
    )
    func failingFormHasReceivedTheMail(form: RegisterForm) async {
        let office = PostOffice()
        let posts = FivePosts()
        let log = FormLog()
        let recipients = FormRecipients<ProbeParcel, ProbeCourier>(log: log)
        let queue = DispatchQueue(label: "failure-form.undelivered")
        office.register { (_: DeliveryFailure) in }
        let undelivered = Shared<[Int]>([])
        office.register { (lost: UndeliveredMail) in
            undelivered.update { $0.append((lost.mail as? ProbeParcel)?.n ?? 0) }
        }
        form.registerFailing(
            on: office, ProbeParcel.self, sender: posts.exact, queue: queue, recipients: recipients, log: log)

        for n in FivePosts.numbers {
            _ = await posts.deliver(n, on: office)
        }

        let accepted = FivePosts.numbers.filter { Self.failure(of: form, onPost: $0) != nil }
        #expect(log.entries.count == accepted.count, "the failing handler ran for every post it accepts")
        // Catch-alls are wiretaps: they never count as receiving, whether they throw or not.
        let unreceived = FivePosts.numbers.filter { Self.isCatchAll(form) || !accepted.contains($0) }
        #expect(undelivered.value == unreceived)
        withExtendedLifetime(recipients) {}
    }

    /// What `form`'s failing handler throws for post `n` of the five, or nil when its filter refuses that post.
    private static func failure(of form: RegisterForm, onPost n: Int) -> FormFailure? {
        FivePosts.received(by: form.filter, post: n).map { FormFailure(n: $0.n, sender: $0.sender) }
    }

    private static func runsOnMainActor(_ form: RegisterForm) -> Bool {
        [.mainActorClosure, .mainActorMethod, .mainActorProtocol].contains(form.kind)
    }

    private static func isCatchAll(_ form: RegisterForm) -> Bool {
        [
            .catchAll, .catchAllWithSender, .mainActorCatchAll, .mainActorCatchAllWithSender, .asyncCatchAll,
            .asyncCatchAllWithSender,
        ]
        .contains(form)
    }

    // MARK: - Order

    @Test("When the second of three synchronous recipients throws, its report is received before the third runs")
    func reportComesBetweenTheFailureAndTheNextRecipient() {
        let office = PostOffice()
        let log = Log()
        office.register { (failure: DeliveryFailure) in log.record("report: \(failure)") }
        office.register { (ping: Ping) in log.record("first \(ping.n)") }
        let second = office.register { (ping: Ping) throws(Oops) in
            log.record("second \(ping.n)")
            throw Oops(tag: "second")
        }
        office.register { (ping: Ping) in log.record("third \(ping.n)") }

        office.post(Ping(n: 1))
        office.post(Ping(n: 2))

        #expect(
            log.events == [
                "first 1", "second 1", "report: \(second) threw Oops(tag: \"second\") on Ping(n: 1)", "third 1",
                "first 2", "second 2", "report: \(second) threw Oops(tag: \"second\") on Ping(n: 2)", "third 2",
            ])
    }

    @Test(
        "A main-actor handler that a post on the main actor calls at once reports its failure there, before the next recipient runs"
    )
    func mainActorFailureOnTheMainActor() async {
        let office = PostOffice()
        let log = Log()
        office.register { (failure: DeliveryFailure) in
            log.record("report of \(failure.error)\(isOnMainQueue() ? "" : " OFF MAIN")")
        }
        office.register(on: .mainActor) { (ping: Ping) throws(Oops) in
            log.record("main actor \(ping.n)")
            throw Oops(tag: "main actor")
        }
        office.register { (ping: Ping) in log.record("after \(ping.n)") }

        await MainActor.run { office.post(Ping(n: 1)) }

        #expect(log.events == ["main actor 1", "report of Oops(tag: \"main actor\")", "after 1"])
    }

    @Test(
        "deliver lists the failures in recipient order, priority then registration, whichever route, queue or task each ran on"
    )
    func deliverListsFailuresInRecipientOrder() async {
        let office = PostOffice()
        let device = Device("device")
        let queue = DispatchQueue(label: "failure.order")
        let lowReported = AsyncGate()
        let recorded = Log()
        // The async handler throws only once the queue handler's failure was recorded: the failures are recorded
        // in the order high, exact, low, normal.
        office.register { (failure: DeliveryFailure) in
            recorded.record("\(failure.error)")
            if (failure.error as? Oops)?.tag == "low" {
                lowReported.open()
            }
        }
        let low = office.register(queue: queue, priority: .low) { (_: Ping) throws(Oops) in throw Oops(tag: "low") }
        let normal = office.register { (_: Ping) async throws(Oops) in
            await lowReported.wait()
            throw Oops(tag: "normal")
        }
        let exact = office.register(priority: 50, sender: device) { (_: Ping) throws(Oops) in throw Oops(tag: "exact") }
        let high = office.register(priority: .high) { (_: Ping) throws(Oops) in throw Oops(tag: "high") }
        defer { lowReported.open() }

        let thrown =
            await finish("deliver(Ping 1)") {
                await thrownFailures(delivering: Ping(n: 1), sender: device, on: office)
            } ?? nil

        #expect(recorded.events == ["high", "exact", "low", "normal"].map { "Oops(tag: \"\($0)\")" })
        #expect(thrown?.map(\.recipient) == [high, exact, normal, low])
        #expect(thrown?.map { ($0.error as? Oops)?.tag } == ["high", "exact", "normal", "low"])
    }

    @Test("deliver's failures are only those of the mail it delivered, not those of the reports' recipients")
    func deliverThrowsOnlyTheFailuresOfItsMail() async {
        let office = PostOffice(unheardFailures: { _ in })
        let pinger = office.register { (_: Ping) throws(Oops) in throw Oops(tag: "ping") }
        office.register { (_: DeliveryFailure) throws(Snag) in throw Snag(tag: "report") }
        office.register { [unowned office] (pong: Pong) in office.post(Ping(n: pong.n)) }

        let fromPing = await thrownFailures(delivering: Ping(n: 1), on: office)
        let fromPong = await thrownFailures(delivering: Pong(n: 2), on: office)

        #expect(
            fromPing?.map(FailureSummary.init) == [
                FailureSummary(mail: Ping(n: 1), recipient: pinger, error: Oops(tag: "ping"))
            ])
        #expect(fromPong == nil, "the Ping that Pong's handler posted failed, not Pong's")
    }

    // MARK: - Posting the reports

    @Test(
        "Reports are posted from the failed mail's sender: sender filters and exact senders select them, and catch-alls see them"
    )
    func reportsAreReceivableBySender() {
        let (office, unheard) = officeCollectingUnheardFailures()
        let log = Log()
        let device = Device("device")
        let phone = Phone("phone")
        let stranger = Stranger("stranger")
        office.register { (failure: DeliveryFailure, sender: Device) in
            log.record("from a device: \(Self.describe(failure)) from \(sender.name)")
        }
        office.register(sender: phone) { (failure: DeliveryFailure) in
            log.record("from the phone: \(Self.describe(failure))")
        }
        office.register(conformingTo: (any Mail).self) { (mail: any Mail, sender: (any AnyObject & Sendable)?) in
            log.record("catch-all: \(Self.describe(mail)) from \(senderName(sender))")
        }
        let pinger = office.register { (ping: Ping) throws(Oops) in throw Oops(tag: "ping \(ping.n)") }

        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: device)
        office.post(Ping(n: 3), sender: phone)
        office.post(Ping(n: 4), sender: stranger)

        #expect(
            log.events == [
                "catch-all: Ping 1 from nil",
                "catch-all: report on Ping 1 from nil",
                "catch-all: Ping 2 from device",
                "from a device: report on Ping 2 from device",
                "catch-all: report on Ping 2 from device",
                "catch-all: Ping 3 from phone",
                "from a device: report on Ping 3 from phone",
                "from the phone: report on Ping 3",
                "catch-all: report on Ping 3 from phone",
                "catch-all: Ping 4 from stranger",
                "catch-all: report on Ping 4 from stranger",
            ])
        // The reports of posts 1 and 4 reached only the catch-all, which does not count.
        #expect(
            unheard.value.map(FailureSummary.init) == [
                FailureSummary(mail: Ping(n: 1), recipient: pinger, error: Oops(tag: "ping 1")),
                FailureSummary(mail: Ping(n: 4), sender: "stranger", recipient: pinger, error: Oops(tag: "ping 4")),
            ])
    }

    private static func describe(_ mail: any Mail) -> String {
        switch mail {
        case let ping as Ping: "Ping \(ping.n)"
        case let failure as DeliveryFailure: "report on \(describe(failure.mail))"
        default: typeName(mail)
        }
    }

    @Test(
        "A report an interceptor consumes was heard: the recipients after it are not called, and the fallback gets nothing"
    )
    func consumedReportWasHeard() {
        let (office, unheard) = officeCollectingUnheardFailures()
        let log = Log()
        office.intercept { (failure: DeliveryFailure) in
            log.record("interceptor: \(failure.error)")
            return .consumed
        }
        office.register { (failure: DeliveryFailure) in log.record("after: \(failure.error)") }
        office.register { (_: Ping) throws(Oops) in throw Oops(tag: "ping") }

        office.post(Ping(n: 1))

        #expect(log.events == ["interceptor: Oops(tag: \"ping\")"])
        #expect(unheard.value.isEmpty)
    }

    // MARK: - No loops

    @Test("A recipient of DeliveryFailure that throws is not reported again: its failure goes to the fallback, once")
    func failingReportRecipientGoesToTheFallback() async {
        let (office, unheard) = officeCollectingUnheardFailures()
        let log = Log()
        let queue = DispatchQueue(label: "failure.report-on-queue")
        let pinger = office.register { (_: Ping) throws(Oops) in throw Oops(tag: "ping") }
        let reporter = office.register { (failure: DeliveryFailure) throws(Snag) in
            log.record("reporter: \(failure)")
            throw Snag(tag: "reporter")
        }
        let queuedReporter = office.register(queue: queue) { (failure: DeliveryFailure) throws(Snag) in
            log.record("queued reporter: \(failure)")
            throw Snag(tag: "queued reporter")
        }
        office.register { (failure: DeliveryFailure) in log.record("last reporter: \(failure)") }

        let thrown = await thrownFailures(delivering: Ping(n: 1), on: office)
        await queueDrained(queue)

        let report = DeliveryFailure(mail: Ping(n: 1), sender: nil, recipient: pinger, error: Oops(tag: "ping"))
        #expect(thrown?.map(FailureSummary.init) == [FailureSummary(report)])
        #expect(log.count == 3)
        #expect(log.events.filter { $0.hasPrefix("reporter") } == ["reporter: \(report)"])
        #expect(log.events.filter { $0.hasPrefix("queued reporter") } == ["queued reporter: \(report)"])
        #expect(log.events.filter { $0.hasPrefix("last reporter") } == ["last reporter: \(report)"])
        #expect(
            unheard.value.map(FailureSummary.init) == [
                FailureSummary(mail: report, recipient: reporter, error: Snag(tag: "reporter")),
                FailureSummary(mail: report, recipient: queuedReporter, error: Snag(tag: "queued reporter")),
            ])
    }

    @Test(
        "A catch-all that throws on everything: its failure is reported once, and its failure on that report goes to the fallback once"
    )
    func throwingCatchAllDoesNotLoop() async {
        let (office, unheard) = officeCollectingUnheardFailures()
        let log = Log()
        office.register { (failure: DeliveryFailure) in log.record("report: \(failure)") }
        let catchAll = office.register(conformingTo: (any Mail).self) { (mail: any Mail) throws(Oops) in
            log.record("catch-all: \(typeName(mail))")
            throw Oops(tag: typeName(mail))
        }
        office.register { (ping: Ping) in log.record("ping \(ping.n)") }

        let thrown = await thrownFailures(delivering: Ping(n: 1), on: office)

        let report = DeliveryFailure(mail: Ping(n: 1), sender: nil, recipient: catchAll, error: Oops(tag: "Ping"))
        #expect(log.events == ["catch-all: Ping", "report: \(report)", "catch-all: DeliveryFailure", "ping 1"])
        #expect(thrown?.map(FailureSummary.init) == [FailureSummary(report)])
        #expect(
            unheard.value.map(FailureSummary.init) == [
                FailureSummary(mail: report, recipient: catchAll, error: Oops(tag: "DeliveryFailure"))
            ])
    }

    @Test(
        "A catch-all that throws on everything, with no recipient of DeliveryFailure: both failures go to the fallback, once each"
    )
    func throwingCatchAllWithoutReportRecipients() {
        let (office, unheard) = officeCollectingUnheardFailures()
        let log = Log()
        let catchAll = office.register(conformingTo: (any Mail).self) { (mail: any Mail) throws(Oops) in
            log.record("catch-all: \(typeName(mail))")
            throw Oops(tag: typeName(mail))
        }

        office.post(Ping(n: 1))

        let report = DeliveryFailure(mail: Ping(n: 1), sender: nil, recipient: catchAll, error: Oops(tag: "Ping"))
        #expect(log.events == ["catch-all: Ping", "catch-all: DeliveryFailure"])
        // Which of the two the fallback gets first is not specified.
        let expected = [
            FailureSummary(report),
            FailureSummary(mail: report, recipient: catchAll, error: Oops(tag: "DeliveryFailure")),
        ]
        let fallback = unheard.value.map(FailureSummary.init)
        #expect(fallback.map(\.description).sorted() == expected.map(\.description).sorted())
    }

    // MARK: - The fallback

    @Test("With no recipient of DeliveryFailure, the office's unheardFailures handler gets every failure, each time")
    func unheardFailuresGetsEveryFailure() {
        let (office, unheard) = officeCollectingUnheardFailures()
        let device = Device("device")
        let pinger = office.register { (ping: Ping) throws(Oops) in throw Oops(tag: "ping \(ping.n)") }
        let ponger = office.register { (_: Pong, sender: Device?) throws(Snag) in
            throw Snag(tag: "pong from \(sender?.name ?? "nil")")
        }

        office.post(Ping(n: 1))
        office.post(Ping(n: 1))
        office.post(Ping(n: 2), sender: device)
        office.post(Pong(n: 1), sender: device)
        office.post(Pong(n: 1))

        let failures = unheard.value
        #expect(
            failures.map(FailureSummary.init) == [
                FailureSummary(mail: Ping(n: 1), recipient: pinger, error: Oops(tag: "ping 1")),
                FailureSummary(mail: Ping(n: 1), recipient: pinger, error: Oops(tag: "ping 1")),
                FailureSummary(mail: Ping(n: 2), sender: "device", recipient: pinger, error: Oops(tag: "ping 2")),
                FailureSummary(
                    mail: Pong(n: 1), sender: "device", recipient: ponger, error: Snag(tag: "pong from device")),
                FailureSummary(mail: Pong(n: 1), recipient: ponger, error: Snag(tag: "pong from nil")),
            ])
        #expect(failures.map { $0.sender === device } == [false, false, true, true, false])
    }

    @Test(
        "A catch-all is not a recipient of DeliveryFailure: it sees the report, and the fallback gets the failure too")
    func catchAllDoesNotHearReports() {
        let (office, unheard) = officeCollectingUnheardFailures()
        let log = Log()
        office.register(conformingTo: (any Mail).self) { (mail: any Mail) in log.record(typeName(mail)) }
        let pinger = office.register { (_: Ping) throws(Oops) in throw Oops(tag: "ping") }

        office.post(Ping(n: 1))

        #expect(log.events == ["Ping", "DeliveryFailure"])
        #expect(
            unheard.value.map(FailureSummary.init) == [
                FailureSummary(mail: Ping(n: 1), recipient: pinger, error: Oops(tag: "ping"))
            ])
    }

    @Test("A report whose only recipient has deallocated goes to the fallback")
    func reportToAGoneRecipientGoesToTheFallback() {
        let (office, unheard) = officeCollectingUnheardFailures()
        let log = Log()
        let pinger = office.register { (ping: Ping) throws(Oops) in throw Oops(tag: "ping \(ping.n)") }
        do {
            let desk = ReportDesk(log: log)
            office.register(desk, ReportDesk.receive)
            withExtendedLifetime(desk) { office.post(Ping(n: 1)) }
        }

        office.post(Ping(n: 2))

        #expect(log.events == ["desk: \(pinger) threw Oops(tag: \"ping 1\") on Ping(n: 1)"])
        #expect(
            unheard.value.map(FailureSummary.init) == [
                FailureSummary(mail: Ping(n: 2), recipient: pinger, error: Oops(tag: "ping 2"))
            ])
    }

    @Test(
        "By default, the first failure of each kind (mail type and error type) is written to standard error, once per office"
    )
    func defaultFallbackWritesOneLinePerKind() async {
        let result = await #expect(
            processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]
        ) {
            func line(_ recipient: RecipientId, _ error: String, _ mail: String, _ kind: String) -> String {
                "Mailroom: \(recipient) threw \(error) on \(mail), and no recipient of DeliveryFailure received the "
                    + "report. Later failures of \(kind) are not written. Register for DeliveryFailure, or give "
                    + "PostOffice(unheardFailures:) a handler.\n"
            }
            let office = PostOffice()
            let pingOops = office.register { (ping: Ping) throws(Oops) in throw Oops(tag: "ping \(ping.n)") }
            let pingSnag = office.register { (ping: Ping) throws(Snag) in throw Snag(tag: "ping \(ping.n)") }
            let pongOops = office.register { (pong: Pong) throws(Oops) in throw Oops(tag: "pong \(pong.n)") }
            for n in 1...3 {
                office.post(Ping(n: n))
                office.post(Pong(n: n))
            }
            let otherOffice = PostOffice()
            let otherPing = otherOffice.register { (ping: Ping) throws(Oops) in throw Oops(tag: "other \(ping.n)") }
            for n in 1...2 {
                otherOffice.post(Ping(n: n))
            }
            let expected = [
                line(pingOops, "Oops(tag: \"ping 1\")", "Ping(n: 1)", "Ping with Oops"),
                line(pingSnag, "Snag(tag: \"ping 1\")", "Ping(n: 1)", "Ping with Snag"),
                line(pongOops, "Oops(tag: \"pong 1\")", "Pong(n: 1)", "Pong with Oops"),
                line(otherPing, "Oops(tag: \"other 1\")", "Ping(n: 1)", "Ping with Oops"),
            ]
            FileHandle.standardOutput.write(Data(expected.joined().utf8))
        }
        guard let result else { return }
        let expected = Self.mailroomLines(result.standardOutputContent)
        #expect(expected.count == 4)
        #expect(Self.mailroomLines(result.standardErrorContent) == expected)
    }

    private static func mailroomLines(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("Mailroom: ") }
            .map(String.init)
    }

    // MARK: - deliver, post and deliverIgnoringFailures

    @Test("deliverIgnoringFailures returns without throwing, and the failures are reported all the same")
    func deliverIgnoringFailuresStillReports() async {
        let (office, unheard) = officeCollectingUnheardFailures()
        let device = Device("device")
        let queue = DispatchQueue(label: "failure.ignoring")
        let reports = Shared<[FailureSummary]>([])
        office.register { (failure: DeliveryFailure) in reports.update { $0.append(FailureSummary(failure)) } }
        let now = office.register { (ping: Ping) throws(Oops) in throw Oops(tag: "now \(ping.n)") }
        let queued = office.register(queue: queue) { (ping: Ping) throws(Oops) in throw Oops(tag: "queued \(ping.n)") }

        await office.deliverIgnoringFailures(Ping(n: 1))
        await office.deliverIgnoringFailures(Ping(n: 2), sender: device)

        #expect(
            reports.value == [
                FailureSummary(mail: Ping(n: 1), recipient: now, error: Oops(tag: "now 1")),
                FailureSummary(mail: Ping(n: 1), recipient: queued, error: Oops(tag: "queued 1")),
                FailureSummary(mail: Ping(n: 2), sender: "device", recipient: now, error: Oops(tag: "now 2")),
                FailureSummary(mail: Ping(n: 2), sender: "device", recipient: queued, error: Oops(tag: "queued 2")),
            ])
        #expect(unheard.value.isEmpty)
    }

    @Test(
        "Verified mail's deliver(_:sender:) throws its recipients' failures too; its deliverIgnoringFailures reports them without throwing"
    )
    func verifiedMailDeliverThrows() async {
        let office = PostOffice()
        let flow = ExpressCheckout("express")
        let reports = Log()
        office.register { (failure: DeliveryFailure, sender: CheckoutFlow) in
            reports.record("\(failure.error) from \(sender.name)")
        }
        let failing = office.register { (finished: CheckoutFinished) throws(Oops) in
            throw Oops(tag: "order \(finished.orderNumber)")
        }

        var thrown: [DeliveryFailure]?
        do {
            try await office.deliver(CheckoutFinished(orderNumber: 1), sender: flow)
        } catch {
            thrown = error.failures
        }
        await office.deliverIgnoringFailures(CheckoutFinished(orderNumber: 2), sender: flow)

        #expect(
            thrown?.map(FailureSummary.init) == [
                FailureSummary(
                    mail: CheckoutFinished(orderNumber: 1), sender: "express", recipient: failing,
                    error: Oops(tag: "order 1"))
            ])
        #expect(reports.events == ["Oops(tag: \"order 1\") from express", "Oops(tag: \"order 2\") from express"])
    }

    @Test("post never throws: a failing handler's report is posted before post returns, and the others are served")
    func postReportsWithoutThrowing() {
        let office = PostOffice()
        let log = Log()
        office.register { (failure: DeliveryFailure) in log.record("report: \(failure)") }
        let pinger = office.register { (_: Ping) throws(Oops) in throw Oops(tag: "ping") }
        office.register { (ping: Ping) in log.record("after \(ping.n)") }

        office.post(Ping(n: 1))

        #expect(log.events == ["report: \(pinger) threw Oops(tag: \"ping\") on Ping(n: 1)", "after 1"])
    }

    @Test("A handler that threw has received the mail: the post is not reported as UndeliveredMail")
    func failedMailIsNotUndelivered() async {
        let office = PostOffice()
        let queue = DispatchQueue(label: "failure.undelivered")
        let undelivered = Log()
        office.register { (lost: UndeliveredMail) in undelivered.record("\(lost.mail)") }
        office.register { (_: DeliveryFailure) in }
        office.register { (_: Ping) throws(Oops) in throw Oops(tag: "ping") }
        office.register(queue: queue) { (_: Pong) throws(Oops) in throw Oops(tag: "pong") }
        office.intercept { (_: Traffic) throws(Oops) -> Consumption in throw Oops(tag: "traffic") }

        await office.deliverIgnoringFailures(Ping(n: 1))
        await office.deliverIgnoringFailures(Pong(n: 2))
        await office.deliverIgnoringFailures(Traffic.green)
        await office.deliverIgnoringFailures(Chime())

        #expect(undelivered.events == ["Chime()"], "only the mail nobody registered for")
    }

    // MARK: - Handler types

    @Test(
        "A handler may throw a typed error, any error, or nothing: each registers as it is, and is reported as thrown")
    func typedUntypedAndNonThrowingHandlers() async {
        let office = PostOffice()
        let log = Log()
        office.register { (_: DeliveryFailure) in }
        let typed = office.register { (_: Ping) throws(Oops) in throw Oops(tag: "typed") }
        let untyped = office.register { (_: Ping) throws in throw Snag(tag: "untyped") }
        office.register { (ping: Ping) in log.record("plain \(ping.n)") }
        let mainActor = office.register(on: .mainActor) { (_: Ping) throws in throw Snag(tag: "main actor") }
        let suspending = office.register { (_: Ping) async throws(Oops) in throw Oops(tag: "async") }

        let thrown = await thrownFailures(delivering: Ping(n: 1), on: office)

        #expect(
            thrown?.map(FailureSummary.init) == [
                FailureSummary(mail: Ping(n: 1), recipient: typed, error: Oops(tag: "typed")),
                FailureSummary(mail: Ping(n: 1), recipient: untyped, error: Snag(tag: "untyped")),
                FailureSummary(mail: Ping(n: 1), recipient: mainActor, error: Snag(tag: "main actor")),
                FailureSummary(mail: Ping(n: 1), recipient: suspending, error: Oops(tag: "async")),
            ])
        #expect(thrown?.map { $0.error is Oops } == [true, false, false, true])
        #expect(log.events == ["plain 1"])
    }
}
