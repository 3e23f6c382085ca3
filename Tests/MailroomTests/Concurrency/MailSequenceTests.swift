import Dispatch
import Mailroom
import Testing

@Suite("Mail as an AsyncSequence")
struct MailSequenceTests {
    @Test(
        "mail(of:) yields the mail posted after it returned, even before iteration starts, in post order; not the mail posted before"
    )
    func sequenceStartsWhenMade() async {
        let office = PostOffice()
        office.post(Ping(n: -1))
        let mail = office.mail(of: Ping.self)
        for n in 0..<5 {
            office.post(Ping(n: n))
        }
        office.post(Pong(n: 100))

        let received = await take(6, from: mail) {
            for n in 5..<6 {
                office.post(Ping(n: n))
            }
        }

        #expect(received?.map(\.n) == Array(0..<6))
    }

    @Test("mail(of:from:) yields only the mail of exactly that sender, in post order")
    func exactSenderSequence() async {
        let office = PostOffice()
        let phone = Phone("phone")
        let otherPhone = Phone("other phone")
        let mail = office.mail(of: Ping.self, from: phone)
        await onBackgroundThread {
            for round in 0..<10 {
                office.post(Ping(n: round * 10))
                office.post(Ping(n: round * 10 + 1), sender: otherPhone)
                office.post(Ping(n: round * 10 + 2), sender: Device("device"))
                office.post(Ping(n: round * 10 + 3), sender: phone)
            }
        }

        let received = await take(10, from: mail)

        #expect(received?.map(\.n) == (0..<10).map { $0 * 10 + 3 })
        withExtendedLifetime(phone) {}
    }

    @Test(
        "mail(of:sentBy:) yields (mail:, sender:) for the mail of a sender of that class or a subclass, in post order")
    func senderClassSequence() async {
        let office = PostOffice()
        let device = Device("device")
        let phone = Phone("phone")
        let stranger = Stranger("stranger")
        let mail = office.mail(of: Ping.self, sentBy: Device.self)
        for round in 0..<10 {
            office.post(Ping(n: round * 10))
            office.post(Ping(n: round * 10 + 1), sender: device)
            office.post(Ping(n: round * 10 + 2), sender: stranger)
            office.post(Ping(n: round * 10 + 3), sender: phone)
        }

        let received = await take(20, from: mail)

        let expected = (0..<10).flatMap { ["\($0 * 10 + 1) device", "\($0 * 10 + 3) phone"] }
        #expect(received?.map { "\($0.mail.n) \($0.sender.name)" } == expected)
        #expect(received?.allSatisfy { $0.sender === device || $0.sender === phone } == true)
    }

    @Test(
        "mail(of:sentBy: S?.self) yields (mail:, sender:) for mail without a sender (nil) or from a sender of that class or a subclass, in post order"
    )
    func senderClassOrNoneSequence() async {
        let office = PostOffice()
        let device = Device("device")
        let phone = Phone("phone")
        let stranger = Stranger("stranger")
        let mail = office.mail(of: Ping.self, sentBy: Device?.self)
        for round in 0..<10 {
            office.post(Ping(n: round * 10))
            office.post(Ping(n: round * 10 + 1), sender: device)
            office.post(Ping(n: round * 10 + 2), sender: stranger)
            office.post(Ping(n: round * 10 + 3), sender: phone)
        }

        let received = await take(30, from: mail)

        let expected = (0..<10).flatMap { ["\($0 * 10) nil", "\($0 * 10 + 1) device", "\($0 * 10 + 3) phone"] }
        #expect(received?.map { "\($0.mail.n) \($0.sender?.name ?? "nil")" } == expected)
    }

    @Test(
        "Buffering policies with 10 posts before reading: .unbounded keeps all, .bufferingNewest(3) the last 3, .bufferingOldest(3) the first 3",
        arguments: [
            (Policy.unbounded, Array(0..<10)), (Policy.newest(3), [7, 8, 9]), (Policy.oldest(3), [0, 1, 2]),
        ]
    )
    func bufferingPolicies(policy: Policy, kept: [Int]) async {
        let office = PostOffice()
        let mail = office.mail(of: Ping.self, bufferingPolicy: policy.buffering)
        for n in 0..<10 {
            office.post(Ping(n: n))
        }

        // The buffered mail, then a post made once the buffer is empty again, which the sequence keeps.
        let received = await take(kept.count + 1, from: mail) { office.post(Ping(n: 100)) }

        #expect(received?.map(\.n) == kept + [100])
    }

    @Test("The buffering policies apply to the mail(of:from:) and mail(of:sentBy:) forms too")
    func bufferingPoliciesOfSenderForms() async {
        let office = PostOffice()
        let phone = Phone("phone")
        let exact = office.mail(of: Ping.self, from: phone, bufferingPolicy: .bufferingNewest(2))
        let byClass = office.mail(of: Ping.self, sentBy: Device.self, bufferingPolicy: .bufferingOldest(2))
        for n in 0..<10 {
            office.post(Ping(n: n), sender: phone)
        }

        let newest = await take(3, from: exact) { office.post(Ping(n: 100), sender: phone) }
        let oldest = await take(3, from: byClass) { office.post(Ping(n: 100), sender: phone) }

        #expect(newest?.map(\.n) == [8, 9, 100])
        #expect(oldest?.map(\.mail.n) == [0, 1, 100])
    }

    @Test("The sequence's registration is removed when the loop breaks")
    func breakingTheLoopRemovesTheRegistration() async {
        let office = PostOffice()
        office.register { (_: Ping) in }
        let mail = office.mail(of: Ping.self)
        #expect(office.registrationCount == 2)
        for n in 0..<5 {
            office.post(Ping(n: n))
        }

        let received = await finish("the loop to break") { () -> [Int] in
            var received: [Int] = []
            for await ping in mail {
                received.append(ping.n)
                if ping.n == 2 { break }
            }
            return received
        }

        #expect(received == [0, 1, 2])
        #expect(office.registrationCount == 1)
        withExtendedLifetime(mail) {}
    }

    @Test("The sequence's registration is removed when the task of a loop waiting in next() is cancelled")
    func cancellingTheConsumerRemovesTheRegistration() async {
        let office = PostOffice()
        let mail = office.mail(of: Ping.self)
        let received = Recorder<Int>()
        #expect(office.registrationCount == 1)
        let consumer = Task { () -> Bool in
            for await ping in mail {
                received.record(ping.n)
            }
            return Task.isCancelled
        }
        office.post(Ping(n: 1))
        await received.waitForCount(1, "the loop to take Ping 1")
        // The loop has gone back to waiting for the next mail (or is about to).
        await yieldSeveralTimes()
        consumer.cancel()
        let endedByCancellation = await finish("the cancelled loop to end") { await consumer.value }

        #expect(endedByCancellation == true)
        #expect(office.registrationCount == 0)
        office.post(Ping(n: 2))
        #expect(received.events == [1])
    }

    @Test(
        "A sequence takes its place among a post's recipients by priority: an interceptor before it may consume the mail, one after it cannot"
    )
    func sequenceTakesItsPlaceByPriority() async {
        let office = PostOffice()
        let early = office.mail(of: Ping.self, priority: .high)
        office.intercept { (ping: Ping) in ping.n.isMultiple(of: 2) ? .passOn : .consumed }
        let late = office.mail(of: Ping.self, priority: .low)
        for n in 0..<5 {
            office.post(Ping(n: n))
        }

        let first = await take(5, from: early)
        let second = await take(3, from: late)

        #expect(first?.map(\.n) == [0, 1, 2, 3, 4])
        #expect(second?.map(\.n) == [0, 2, 4])
    }

    @Test("The sequence's registration is removed when the sequence is released without being iterated")
    func releasingAnUnusedSequenceRemovesTheRegistration() async {
        let office = PostOffice()
        let phone = Phone("phone")
        var unused: [any AsyncSequence & Sendable] = [
            office.mail(of: Ping.self), office.mail(of: Ping.self, from: phone),
            office.mail(of: Ping.self, sentBy: Device.self, bufferingPolicy: .bufferingOldest(1)),
        ]
        #expect(office.registrationCount == 3)
        office.post(Ping(n: 1), sender: phone)

        unused.removeLast()
        #expect(office.registrationCount == 2)
        unused.removeAll()

        #expect(office.registrationCount == 0)
        withExtendedLifetime(phone) {}
    }
}

/// A buffering policy, as a test argument.
enum Policy: Sendable, CustomTestStringConvertible {
    case unbounded
    case newest(Int)
    case oldest(Int)

    var buffering: MailSequence<Ping>.BufferingPolicy {
        switch self {
        case .unbounded: .unbounded
        case .newest(let count): .bufferingNewest(count)
        case .oldest(let count): .bufferingOldest(count)
        }
    }

    var testDescription: String {
        switch self {
        case .unbounded: ".unbounded"
        case .newest(let count): ".bufferingNewest(\(count))"
        case .oldest(let count): ".bufferingOldest(\(count))"
        }
    }
}

/// Takes `count` elements from `sequence`; once the mail buffered so far has been taken (the iterator is
/// waiting, or the elements before the last were taken), calls `whenBufferTaken`. Records an issue and returns
/// nil if the elements do not come within the timeout.
extension MailSequenceTests {
    @Test("A loop over mail(of:from:) ends, after the buffered mail, when the sender deallocates")
    func exactSenderSequenceEndsWithItsSender() async {
        let office = PostOffice()
        var phone: Phone? = Phone("phone")
        let mail = office.mail(of: Ping.self, from: phone!)
        office.post(Ping(n: 1), sender: phone)
        office.post(Ping(n: 2), sender: phone)
        phone = nil
        #expect(office.registrationCount == 0)

        let received = await finish("the loop over a dead sender's mail to end") {
            var received: [Int] = []
            for await ping in mail { received.append(ping.n) }
            return received
        }

        #expect(received == [1, 2])
    }

    @Test("A loop over mail(of:) ends, after the buffered mail, when the office is released")
    func sequenceEndsWithItsOffice() async {
        var office: PostOffice? = PostOffice()
        weak let weakOffice = office
        let mail = office!.mail(of: Ping.self)
        office?.post(Ping(n: 1))
        office = nil
        #expect(weakOffice == nil)

        let received = await finish("the loop over a released office's mail to end") {
            var received: [Int] = []
            for await ping in mail { received.append(ping.n) }
            return received
        }

        #expect(received == [1])
    }
}

private func take<Element: Sendable>(
    _ count: Int,
    from sequence: MailSequence<Element>,
    sourceLocation: SourceLocation = #_sourceLocation,
    whenBufferTaken: @escaping @Sendable () -> Void = {}
) async -> [Element]? {
    await finish("\(count) elements of the sequence", sourceLocation: sourceLocation) {
        var iterator = sequence.makeAsyncIterator()
        var taken: [Element] = []
        while taken.count < count {
            if taken.count == count - 1 {
                whenBufferTaken()
            }
            guard let element = await iterator.next() else { break }
            taken.append(element)
        }
        return taken
    }
}
