// Asynchronous delivery: Mailroom's async recipients and `mail(of:)` sequences, against Foundation's
// `NotificationCenter.AsyncMessage` observers and `messages(of:for:)` sequence, and a bare loop over an
// `AsyncStream`.
//
// The posting thread is the tool's synchronous main thread; the recipients run on the cooperative pool. A
// measurement posts N mail, then waits until the recipient handled all N: the recipient counts what it handled,
// and the one that reaches N wakes the posting thread. Nothing polls or sleeps.
import Dispatch
import Foundation
import Mailroom

/// `Ping` as Foundation's typed message delivered asynchronously: each observer runs on a task.
struct AsyncPing: NotificationCenter.AsyncMessage {
    typealias Subject = Sender
    let value: Int
}

/// Counts the mail a recipient handled and wakes the posting thread when it handled all it was sent.
final class Countdown: @unchecked Sendable {
    private let lock = NSLock()
    private var remaining = 0
    private let finished = DispatchSemaphore(value: 0)

    /// Expects `count` mail (at least one), calls `post`, which posts them, and waits until all are handled.
    func run(_ count: Int, post: () -> Void) {
        lock.withLock { remaining = count }
        post()
        finished.wait()
    }

    /// Called by the recipient for each mail it handled; the last one expected wakes the posting thread.
    func handled() {
        let last = lock.withLock {
            remaining -= 1
            // An exact count: mail handled twice, or that was never posted, must not end a measurement early.
            precondition(remaining >= 0, "more mail handled than posted")
            return remaining == 0
        }
        if last { finished.signal() }
    }

    /// A variant whose iterations each post one mail with `post(index)`, then wait until all were handled;
    /// warmed with one mail.
    func variant(_ name: String, post: @escaping (Int) -> Void) -> Variant {
        let variant = Variant(name) { iterations in
            self.run(iterations) {
                for index in 0..<iterations { post(index) }
            }
        }
        variant.run(1)
        return variant
    }
}

/// The floor for asynchronous delivery: one task looping `for await ping in stream` over an `AsyncStream<Ping>`
/// (unbounded) that the posting thread feeds with `yield`.
func asyncStreamLoop() -> Variant {
    let countdown = Countdown()
    let (stream, continuation) = AsyncStream.makeStream(of: Ping.self)
    Task.detached {
        for await ping in stream {
            consume(ping.value)
            countdown.handled()
        }
    }
    return countdown.variant("bare AsyncStream loop") { continuation.yield(Ping(value: $0)) }
}

func asyncRecipient() -> Scenario {
    let mailroomCountdown = Countdown()
    let office = PostOffice()
    office.register { (ping: Ping) async in
        consume(ping.value)
        mailroomCountdown.handled()
    }
    let mailroom = mailroomCountdown.variant("Mailroom, async recipient") { office.post(Ping(value: $0)) }

    // Foundation runs each observer call as a child task of the center's worker task: unlike Mailroom's, they
    // may run concurrently and out of order. The count is the same.
    let foundationCountdown = Countdown()
    let center = NotificationCenter()
    keepAlive.hold(
        center.addObserver(for: AsyncPing.self) { message in
            consume(message.value)
            foundationCountdown.handled()
        })
    let foundation = foundationCountdown.variant("Foundation AsyncMessage") { center.post(AsyncPing(value: $0)) }

    let stream = asyncStreamLoop()
    let scenario = "async recipient, post N then wait until all N are handled (per mail handled)"
    return Scenario(
        variants: [mailroom, foundation, stream],
        rows: [
            Row(
                scenario: scenario, mailroom: mailroom, peer: foundation, peerName: "Foundation AsyncMessage",
                bare: stream, referenceLabel: "Foundation AsyncMessage observer", reference: foundation,
                target: .faster(5)),
            Row(
                scenario: scenario, mailroom: mailroom, peer: foundation, peerName: "Foundation AsyncMessage",
                bare: stream, referenceLabel: "bare for-await loop over an AsyncStream fed by yield", reference: stream,
                target: .cost(0.5)),
        ]
    )
}

func mailSequence() -> Scenario {
    let mailroomCountdown = Countdown()
    let office = PostOffice()
    // The sequence's registration is made here, before the loop starts: nothing posted from now on is missed.
    let sequence = office.mail(of: Ping.self)
    Task.detached {
        for await ping in sequence {
            consume(ping.value)
            mailroomCountdown.handled()
        }
    }
    let mailroom = mailroomCountdown.variant("Mailroom, mail(of:) loop") { office.post(Ping(value: $0)) }

    // Foundation's sequence registers its observer when its iterator is made, in the task: the posting thread
    // waits for that. Its buffer drops the oldest messages beyond `bufferSize` (10 by default), so it is
    // unbounded here, like the others.
    let foundationCountdown = Countdown()
    let center = NotificationCenter()
    let observing = DispatchSemaphore(value: 0)
    Task.detached {
        var messages = center.messages(for: AsyncPing.self, bufferSize: .max).makeAsyncIterator()
        observing.signal()
        while let message = await messages.next(isolation: nil) {
            consume(message.value)
            foundationCountdown.handled()
        }
    }
    observing.wait()
    let foundation = foundationCountdown.variant("Foundation messages(of:for:) loop") {
        center.post(AsyncPing(value: $0))
    }

    let stream = asyncStreamLoop()
    return Scenario(
        variants: [mailroom, foundation, stream],
        rows: [
            Row(
                scenario: "for-await loop over office.mail(of:), post N then wait until all N are handled (per mail)",
                mailroom: mailroom, peer: foundation, peerName: "Foundation messages(of:for:) sequence",
                bare: stream, referenceLabel: "bare for-await loop over an AsyncStream fed by yield", reference: stream,
                target: .cost(1.2))
        ]
    )
}
