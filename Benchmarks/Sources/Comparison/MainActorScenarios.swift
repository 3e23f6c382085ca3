// Posts on the main actor, against Foundation's own typed message for it (swift-foundation's
// `NotificationCenter.MainActorMessage`), and registering against Foundation's typed observers.
//
// The tool's `main()` runs synchronously on the main thread, so a post it makes is made on the main actor;
// Foundation's `post` of a `MainActorMessage` is isolated to the main actor, and is called inside
// `MainActor.assumeIsolated`.
//
// Apps post from a `@MainActor` async function instead: a main-actor task after a suspension, in a process whose
// main thread is parked (`dispatchMain()`, an `async` main). On Linux the main queue's blocks, and the task with
// them, then run on other threads, where Mailroom has to recognize the main actor by other means than the thread.
// Parking the main thread would end the tool's other scenarios, which run on it, so that post is timed in a child
// process of the tool (`Comparison --main-actor-task-child`), one child per round.
import Foundation
import Mailroom

/// `Ping` as Foundation's typed message delivered on the main actor: posted on the main actor, its observers run
/// before `post` returns.
struct MainActorPing: NotificationCenter.MainActorMessage {
    typealias Subject = Sender
    let value: Int
}

/// The value of the last mail a recipient handled, written by the recipient: shows whether a post delivered its
/// mail before returning. Only touched on the main actor (the main thread, or in the main-actor task child, the
/// main queue).
final class LastHandled: @unchecked Sendable {
    var value = -1
}

/// Post on the main actor to `count` main-actor recipients: Mailroom's `register(on: .mainActor)` closures,
/// and Foundation's `MainActorMessage` observers. For the curve.
func mainActorVariants(_ count: Int) -> (mailroom: Variant, foundation: Variant) {
    let office = PostOffice()
    for offset in 0..<count {
        office.register(on: .mainActor) { (ping: Ping) in consume(ping.value &+ offset) }
    }
    office.post(Ping(value: 0))
    let mailroom = Variant("Mailroom, main-actor recipients") { iterations in
        MainActor.assumeIsolated {
            for index in 0..<iterations { office.post(Ping(value: index)) }
        }
    }

    let center = NotificationCenter()
    for offset in 0..<count {
        keepAlive.hold(center.addObserver(for: MainActorPing.self) { message in consume(message.value &+ offset) })
    }
    MainActor.assumeIsolated { center.post(MainActorPing(value: 0)) }
    let foundation = Variant("Foundation MainActorMessage") { iterations in
        MainActor.assumeIsolated {
            for index in 0..<iterations { center.post(MainActorPing(value: index)) }
        }
    }
    return (mailroom, foundation)
}

/// An office with one main-actor closure, which consumes the value it handled and records it in `handled`, warmed
/// with one post (made on the main thread, where its recipient runs at once).
func mainActorOffice(recordingIn handled: LastHandled) -> PostOffice {
    let office = PostOffice()
    office.register(on: .mainActor) { (ping: Ping) in
        consume(ping.value)
        handled.value = ping.value
    }
    office.post(Ping(value: 0))
    return office
}

func mainActor() -> Scenario {
    // Every recipient also records the value it handled (one store), so that the rows can check that the post
    // delivered it at once: were a main-actor delivery queued to the main actor instead (which this tool never
    // runs), the handler would not run and the rows would time something else.
    let mainActorHandled = LastHandled()
    let office = mainActorOffice(recordingIn: mainActorHandled)
    let mailroom = Variant("Mailroom, main-actor recipient") { iterations in
        MainActor.assumeIsolated {
            for index in 0..<iterations { office.post(Ping(value: index)) }
        }
    }

    let plainHandled = LastHandled()
    let plainOffice = PostOffice()
    plainOffice.register { (ping: Ping) in
        consume(ping.value)
        plainHandled.value = ping.value
    }
    plainOffice.post(Ping(value: 0))
    let plain = Variant("Mailroom, plain closure recipient") { iterations in
        for index in 0..<iterations { plainOffice.post(Ping(value: index)) }
    }

    let foundationHandled = LastHandled()
    let center = NotificationCenter()
    keepAlive.hold(
        center.addObserver(for: MainActorPing.self) { message in
            consume(message.value)
            foundationHandled.value = message.value
        })
    MainActor.assumeIsolated { center.post(MainActorPing(value: 0)) }
    let foundation = Variant("Foundation MainActorMessage") { iterations in
        MainActor.assumeIsolated {
            for index in 0..<iterations { center.post(MainActorPing(value: index)) }
        }
    }

    /// Whether one post on the main actor ran each system's recipient before returning.
    func deliveredAtOnce() -> (mailroom: Bool, foundation: Bool) {
        mainActorHandled.value = -1
        foundationHandled.value = -1
        MainActor.assumeIsolated {
            office.post(Ping(value: 42))
            center.post(MainActorPing(value: 42))
        }
        return (mainActorHandled.value == 42, foundationHandled.value == 42)
    }
    // Checked before the rounds and again after them: a main-actor registration whose mail once had to wait
    // keeps queueing until the queue is drained.
    let before = deliveredAtOnce()
    var after: (mailroom: Bool, foundation: Bool)?
    let afterRounds = {
        if after == nil { after = deliveredAtOnce() }
        return after!
    }
    let note = {
        let after = afterRounds()
        func verdict(_ before: Bool, _ after: Bool) -> String {
            before && after ? "yes" : "NO (before the rounds: \(before), after: \(after))"
        }
        return "Main-actor recipients ran during the post made on the main actor, before and after the rounds: "
            + "Mailroom \(verdict(before.mailroom, after.mailroom)), "
            + "Foundation MainActorMessage \(verdict(before.foundation, after.foundation))."
    }
    let taskChildren = MainActorTaskChildren()
    let fromTask = Variant("Mailroom, main-actor recipient, posted from a main-actor task", quantity: .nanoseconds) {
        taskChildren.sample()
    }
    let taskNote = {
        "Posted from a @MainActor async function: Mailroom's figure is the median of \(taskChildren.children) child "
            + "processes (one per round), each timing its posts in a main-actor task after `await Task.yield()`, "
            + "the main thread parked by `dispatchMain()`; the references are this process's, on the main thread. "
            + "The recipient ran during the post, before and after the timing, in \(taskChildren.delivered) of "
            + "\(taskChildren.children) children; the task ran off the main thread in \(taskChildren.offMainThread)."
    }
    let scenario = "post on the main actor to 1 main-actor recipient"
    let taskScenario =
        "post from a @MainActor async function (a main-actor task, main thread parked) to 1 main-actor recipient"
    return Scenario(
        variants: [mailroom, plain, foundation, fromTask],
        rows: [
            Row(
                scenario: scenario, mailroom: mailroom, peer: foundation, peerName: "Foundation MainActorMessage",
                bare: nil, referenceLabel: "Mailroom, plain synchronous post to 1 closure", reference: plain,
                target: .cost(2), check: { before.mailroom && afterRounds().mailroom }),
            Row(
                scenario: scenario, mailroom: mailroom, peer: foundation, peerName: "Foundation MainActorMessage",
                bare: nil, referenceLabel: "Foundation MainActorMessage, posted on the main actor",
                reference: foundation, target: .faster(25),
                check: { before.mailroom && before.foundation && afterRounds().mailroom && afterRounds().foundation }),
            Row(
                scenario: taskScenario, mailroom: fromTask, peer: foundation, peerName: "Foundation MainActorMessage",
                bare: nil, referenceLabel: "Mailroom, plain synchronous post to 1 closure", reference: plain,
                target: .cost(2), check: { taskChildren.allDelivered }),
            Row(
                scenario: taskScenario, mailroom: fromTask, peer: foundation, peerName: "Foundation MainActorMessage",
                bare: nil, referenceLabel: "Foundation MainActorMessage, posted on the main actor",
                reference: foundation, target: .faster(25),
                check: { taskChildren.allDelivered && before.foundation && afterRounds().foundation }),
        ],
        notes: [note, taskNote]
    )
}

/// The children of the main-actor scenario's post from a main-actor task, one per round: their nanoseconds per
/// post are the variant's samples; what each reported of its posts is counted for the rows' check and the note.
final class MainActorTaskChildren {
    /// Children run, including any that failed.
    private(set) var children = 0
    /// Children that reported that a post ran the recipient before returning, before and after the timing.
    private(set) var delivered = 0
    /// Children that reported that the task ran off the main thread.
    private(set) var offMainThread = 0

    /// Runs one child and returns its nanoseconds per post (NaN if the child failed).
    func sample() -> Double {
        children += 1
        guard let fields = childOutput(["--main-actor-task-child"]), fields.count == 3 else { return .nan }
        if fields[0] == 1 { delivered += 1 }
        if fields[1] == 1 { offMainThread += 1 }
        return fields[2]
    }

    /// Whether at least one child ran and every child reported that its posts delivered at once.
    var allDelivered: Bool { children > 0 && delivered == children }
}

/// The child (`--main-actor-task-child`): registers one main-actor closure as `mainActor()` does, parks the main
/// thread with `dispatchMain()`, and posts from a main-actor task after its first suspension, where an app's
/// `@MainActor` async function posts. Prints three numbers and exits: 1 if a post ran the recipient before
/// returning, both before and after the timing (else 0); 1 if the task ran off the main thread (else 0); and the
/// nanoseconds per post, timed as `Variant` times (calibrated, then one measurement of about 60 ms).
func mainActorTaskChild() -> Never {
    let handled = LastHandled()
    let office = mainActorOffice(recordingIn: handled)
    Task { @MainActor in
        // The suspension is the point: resumed, the task runs in a block of the main queue, on another thread
        // than the parked main thread.
        await Task.yield()
        func deliveredAtOnce() -> Bool {
            handled.value = -1
            office.post(Ping(value: 42))
            return handled.value == 42
        }
        let before = deliveredAtOnce()
        let posts = Variant("Mailroom, main-actor recipient, posted from a main-actor task") { iterations in
            for index in 0..<iterations { office.post(Ping(value: index)) }
        }
        posts.measure()
        let after = deliveredAtOnce()
        print(before && after ? 1 : 0, isMainThread() ? 0 : 1, posts.median)
        exit(0)
    }
    dispatchMain()
}

/// Whether the caller runs on the main thread (`Thread.isMainThread`, which an async function cannot ask).
func isMainThread() -> Bool {
    Thread.isMainThread
}

/// Register + unregister against Foundation's typed observer, of a `MainActorMessage` (the typed counterpart of
/// a synchronous closure registration; an `AsyncMessage` observer goes through the same registrar, with one more
/// closure), with 1000 others registered for the same message type on both sides.
func typedRegisterUnregister() -> Scenario {
    let mailroom = mailroomRegisterUnregister()

    let center = NotificationCenter()
    for offset in 0..<1000 {
        keepAlive.hold(center.addObserver(for: MainActorPing.self) { message in consume(message.value &+ offset) })
    }
    MainActor.assumeIsolated { center.post(MainActorPing(value: 0)) }
    let foundation = Variant("Foundation MainActorMessage observer") { iterations in
        for _ in 0..<iterations {
            let token = center.addObserver(for: MainActorPing.self) { message in consume(message.value) }
            center.removeObserver(token)
        }
    }
    return Scenario(
        variants: [mailroom, foundation],
        rows: [
            Row(
                scenario: "register + unregister pair, 1000 others registered, against Foundation's typed observer",
                mailroom: mailroom, peer: foundation, peerName: "Foundation MainActorMessage observer", bare: nil,
                referenceLabel: "Foundation MainActorMessage observer (addObserver(of:for:) + removeObserver)",
                reference: foundation, target: .faster(15))
        ]
    )
}
