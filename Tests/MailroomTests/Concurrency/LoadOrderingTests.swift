import Dispatch
import Mailroom
import Testing

@Suite("Ordering under load")
struct LoadOrderingTests {
    @Test(
        "10_000 posts from 4 threads at once reach a main-actor, an async, an actor, a queue registration and a mail sequence exactly once each, in each thread's post order"
    )
    func everyDeferredRecipientKeepsEachThreadsOrder() async {
        let office = PostOffice()
        let threads = 4
        let postsPerThread = 2_500 * stressScale
        let total = threads * postsPerThread
        let timeout: Duration = .seconds(60)
        let mainActor = Recorder<Int>()
        let async = Recorder<Int>()
        let actor = Recorder<Int>()
        let queued = Recorder<Int>()
        let sequence = Recorder<Int>()
        let store = PingStore(tape: Recorder())
        let queue = DispatchQueue(label: "load.queue")
        office.register(on: .mainActor) { (ping: Ping) in mainActor.record(ping.n) }
        office.register { (ping: Ping) async in async.record(ping.n) }
        office.register(store) { (store, ping: Ping) in
            store.applied.append(ping.n)
            actor.record(ping.n)
        }
        office.register(queue: queue) { (ping: Ping) in queued.record(ping.n) }
        let mail = office.mail(of: Ping.self)
        let consumer = Task {
            for await ping in mail {
                sequence.record(ping.n)
            }
        }
        defer { consumer.cancel() }

        await onThreads(threads, timeout: timeout) { thread in
            for index in 0..<postsPerThread {
                office.post(Ping(n: thread * 1_000_000 + index))
            }
        }
        // A last mail, from this task: once deliver returns, the deferred registrations have handled everything
        // posted before it, and each registration's FIFO order means nothing posted earlier can still come.
        await finish(within: timeout, "the delivery of a last Ping") { try await office.deliver(Ping(n: -1)) }
        let tapes = [
            ("main actor", mainActor), ("async", async), ("actor", actor), ("queue", queued), ("sequence", sequence),
        ]
        for (name, tape) in tapes {
            await tape.waitForCount(total + 1, "posts received by the \(name) registration", timeout: timeout)
        }

        let everyThread = Array(repeating: Array(0..<postsPerThread), count: threads)
        for (name, tape) in tapes {
            let events = tape.events
            #expect(events.count == total + 1, "\(name)")
            #expect(events.last == -1, "\(name)")
            #expect(postsByThread(events.dropLast(), threads: threads) == everyThread, "\(name)")
        }
        #expect(await store.applied == actor.events)
    }
}
