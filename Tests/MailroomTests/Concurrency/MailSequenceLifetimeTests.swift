import Mailroom
import Testing

/// How long the registration of `office.mail(of:)` and its sender forms lasts: as long as the loop over the
/// sequence, whether the sequence is a temporary of the `for await` statement or held in a variable. The
/// sequences here are temporaries wherever users write them so, since a debug build keeps a named local alive
/// to the end of its scope and a release build does not; CI runs these tests in both.
@Suite("How long a mail sequence's registration lasts")
struct MailSequenceLifetimeTests {
    @Test(
        "A sequence iterated as a temporary receives the mail posted while its loop runs; its registration ends with the loop",
        arguments: SequenceForm.allCases, [LoopEnding.break, .return]
    )
    func temporarySequence(form: SequenceForm, ending: LoopEnding) async {
        let office = PostOffice()
        let phone = Phone("phone")
        let loop = Task { await form.numbers(from: office, sender: phone, taking: 3, then: ending) }
        await eventually("the loop to register") { office.registrationCount == 1 }

        for n in 0..<3 {
            office.post(Ping(n: n), sender: phone)
        }
        let received = await finish("the loop to take 3 mails") { await loop.value }

        #expect(received == [0, 1, 2])
        #expect(office.registrationCount == 0)
        withExtendedLifetime(phone) {}
    }

    @Test(
        "A sequence held in a variable receives the mail posted since it was made; its registration ends with the loop, although the sequence is still held",
        arguments: SequenceForm.allCases
    )
    func heldSequence(form: SequenceForm) async {
        let office = PostOffice()
        let phone = Phone("phone")
        let sequence = form.sequence(of: office, sender: phone)
        #expect(office.registrationCount == 1)
        for n in 0..<3 {
            office.post(Ping(n: n), sender: phone)
        }

        let received = await finish("the loop to take 3 mails") { await sequence.numbers(taking: 3) }

        #expect(received == [0, 1, 2])
        #expect(office.registrationCount == 0)
        withExtendedLifetime(sequence) {}
        withExtendedLifetime(phone) {}
    }

    @Test(
        "A sequence released without being iterated removes its registration at once, also as a discarded temporary",
        arguments: SequenceForm.allCases
    )
    func unusedSequence(form: SequenceForm) {
        let office = PostOffice()
        let phone = Phone("phone")

        _ = form.sequence(of: office, sender: phone)

        #expect(office.registrationCount == 0)
        var held: SequenceOfNumbers? = form.sequence(of: office, sender: phone)
        #expect(office.registrationCount == 1)
        held = nil
        #expect(office.registrationCount == 0)
        withExtendedLifetime(held) {}
        withExtendedLifetime(phone) {}
    }

    @Test(
        "A loop over a sequence whose office was released takes the mail buffered before, then ends",
        arguments: SequenceForm.allCases
    )
    func sequenceOfReleasedOffice(form: SequenceForm) async {
        var office: PostOffice? = PostOffice()
        weak let weakOffice = office
        let phone = Phone("phone")
        let sequence = form.sequence(of: office!, sender: phone)
        office?.post(Ping(n: 1), sender: phone)
        office?.post(Ping(n: 2), sender: phone)
        office = nil
        #expect(weakOffice == nil)

        let received = await finish("the loop to end") { await sequence.numbers(taking: 10) }

        #expect(received == [1, 2])
        withExtendedLifetime(phone) {}
    }

    @Test("A loop over a sequence of an office made in the same statement ends at once: nothing else holds the office")
    func temporaryOffice() async {
        let phone = Phone("phone")

        let loopsEnded = await finish("the loops to end") { () -> Int in
            var ended = 0
            for await _ in PostOffice().mail(of: Ping.self) {}
            ended += 1
            for await _ in PostOffice().mail(of: Ping.self, from: phone) {}
            ended += 1
            for await _ in PostOffice().mail(of: Ping.self, sentBy: Device.self) {}
            return ended + 1
        }

        #expect(loopsEnded == 3)
        withExtendedLifetime(phone) {}
    }

    @Test(
        "Cancelling the task of a loop over a temporary sequence ends the loop and the registration",
        arguments: SequenceForm.allCases
    )
    func cancelledTemporarySequence(form: SequenceForm) async {
        let office = PostOffice()
        let phone = Phone("phone")
        let taken = Recorder<Int>()
        let loop = Task {
            await form.numbers(from: office, sender: phone, taking: 100, then: .break) { taken.record($0) }
        }
        await eventually("the loop to register") { office.registrationCount == 1 }
        office.post(Ping(n: 1), sender: phone)
        await taken.waitForCount(1, "the loop to take Ping 1")

        loop.cancel()
        let received = await finish("the cancelled loop to end") { await loop.value }

        #expect(received == [1])
        #expect(office.registrationCount == 0)
        withExtendedLifetime(phone) {}
    }

    @Test(
        "A second iterator of one sequence ends at once, while the first loop runs and after it ended; the first loop is not disturbed",
        arguments: SequenceForm.allCases
    )
    func secondIterator(form: SequenceForm) async {
        let office = PostOffice()
        let phone = Phone("phone")
        let sequence = form.sequence(of: office, sender: phone)
        let taken = Recorder<Int>()
        let firstLoop = Task { await sequence.numbers(taking: 2) { taken.record($0) } }
        office.post(Ping(n: 1), sender: phone)
        await taken.waitForCount(1, "the first loop to take Ping 1")

        let whileRunning = await finish("a second loop to end") { await sequence.numbers(taking: 1) }
        office.post(Ping(n: 2), sender: phone)
        let first = await finish("the first loop to end") { await firstLoop.value }
        let afterwards = await finish("a third loop to end") { await sequence.numbers(taking: 1) }

        #expect(whileRunning == [])
        #expect(first == [1, 2])
        #expect(afterwards == [])
        #expect(office.registrationCount == 0)
        withExtendedLifetime(phone) {}
    }
}

/// How a test's loop over a sequence ends after taking what it wanted.
enum LoopEnding: Sendable {
    case `break`
    case `return`
}

/// The forms of `mail(of:)`, each given mail posted by a `Phone`, which all three receive.
enum SequenceForm: CaseIterable, Sendable, CustomTestStringConvertible {
    case anySender
    case exactSender
    case senderClass
    case senderClassOrNone

    var testDescription: String {
        switch self {
        case .anySender: "mail(of:)"
        case .exactSender: "mail(of:from:)"
        case .senderClass: "mail(of:sentBy:)"
        case .senderClassOrNone: "mail(of:sentBy: S?.self)"
        }
    }

    /// A sequence of this form, with the numbers of its pings.
    func sequence(of office: PostOffice, sender: Phone) -> SequenceOfNumbers {
        switch self {
        case .anySender: .any(office.mail(of: Ping.self))
        case .exactSender: .any(office.mail(of: Ping.self, from: sender))
        case .senderClass: .withSender(office.mail(of: Ping.self, sentBy: Device.self))
        case .senderClassOrNone: .withOptionalSender(office.mail(of: Ping.self, sentBy: Device?.self))
        }
    }

    /// Loops over a sequence of this form made in the `for await` statement itself, a temporary, as users write
    /// it: takes the numbers of up to `count` pings, handing each to `taken`, then leaves the loop as `ending`
    /// says.
    func numbers(
        from office: PostOffice, sender: Phone, taking count: Int, then ending: LoopEnding,
        taken: (Int) -> Void = { _ in }
    ) async -> [Int] {
        var numbers: [Int] = []
        func took(_ n: Int) -> Bool {
            numbers.append(n)
            taken(n)
            return numbers.count < count
        }
        switch self {
        case .anySender:
            for await ping in office.mail(of: Ping.self) {
                if took(ping.n) { continue }
                if ending == .return { return numbers }
                break
            }
        case .exactSender:
            for await ping in office.mail(of: Ping.self, from: sender) {
                if took(ping.n) { continue }
                if ending == .return { return numbers }
                break
            }
        case .senderClass:
            for await (ping, _) in office.mail(of: Ping.self, sentBy: Device.self) {
                if took(ping.n) { continue }
                if ending == .return { return numbers }
                break
            }
        case .senderClassOrNone:
            for await (ping, _) in office.mail(of: Ping.self, sentBy: Device?.self) {
                if took(ping.n) { continue }
                if ending == .return { return numbers }
                break
            }
        }
        return numbers
    }
}

/// A sequence of one of the forms, held in a variable.
enum SequenceOfNumbers: Sendable {
    case any(MailSequence<Ping>)
    case withSender(MailSequence<(mail: Ping, sender: Device)>)
    case withOptionalSender(MailSequence<(mail: Ping, sender: Device?)>)

    /// Loops over the held sequence, taking the numbers of up to `count` pings and handing each to `taken`.
    func numbers(taking count: Int, taken: (Int) -> Void = { _ in }) async -> [Int] {
        var numbers: [Int] = []
        switch self {
        case .any(let sequence):
            for await ping in sequence {
                numbers.append(ping.n)
                taken(ping.n)
                if numbers.count == count { break }
            }
        case .withSender(let sequence):
            for await (ping, _) in sequence {
                numbers.append(ping.n)
                taken(ping.n)
                if numbers.count == count { break }
            }
        case .withOptionalSender(let sequence):
            for await (ping, _) in sequence {
                numbers.append(ping.n)
                taken(ping.n)
                if numbers.count == count { break }
            }
        }
        return numbers
    }
}
