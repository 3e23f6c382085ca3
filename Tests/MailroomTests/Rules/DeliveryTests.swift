import Dispatch
import Mailroom
import Testing

@Suite("queue: nil delivers synchronously on the posting thread")
struct SynchronousDeliveryTests {
    @Test("Without a queue, closures and methods run on the posting thread before post returns")
    func deliveredInlineOnPostingThread() {
        let office = PostOffice()
        let threads = Recorder<UInt>()
        let log = Log()
        let screen = Screen("screen", log: log)
        office.register { (_: Ping) in threads.record(currentThreadID()) }
        office.register { (_: Ping, _: Device) in threads.record(currentThreadID()) }
        office.register(screen, Screen.receivePing)
        let postingThread = currentThreadID()

        office.post(Ping(n: 1), sender: Device("device"))

        #expect(threads.events == [postingThread, postingThread])
        #expect(log.events == ["screen 1"])
    }

    @Test("Posting from another thread delivers on that thread before its post returns")
    func deliveredOnAnyPostingThread() {
        let office = PostOffice()
        let deliveries = Recorder<UInt>()
        office.register { (_: Ping) in deliveries.record(currentThreadID()) }
        let observed = Shared<(postingThread: UInt, countAfterPost: Int)?>(nil)
        let done = DispatchSemaphore(value: 0)

        DispatchQueue.global().async {
            let thread = currentThreadID()
            office.post(Ping(n: 1))
            observed.value = (thread, deliveries.count)
            done.signal()
        }

        guard waitFor(done, "the background post") else { return }
        let (postingThread, countAfterPost) = observed.value!
        #expect(countAfterPost == 1)
        #expect(deliveries.events == [postingThread])
        #expect(postingThread != currentThreadID())
    }
}

@Suite("queue: q delivers asynchronously on q, never inline, in post order")
struct QueueDeliveryTests {
    @Test("A registration with a queue is called on that queue, for closures and methods")
    func deliveredOnTheQueue() {
        let office = PostOffice()
        let marked = MarkedQueue("mailroom.tests.on-queue")
        let labels = Recorder<String>()
        let log = Log()
        let screen = Screen("screen", log: log)
        office.register(queue: marked.queue) { (_: Ping) in labels.record(marked.currentLabel ?? "not on queue") }
        office.register(queue: marked.queue, screen, Screen.receivePing)
        office.register(queue: marked.queue, screen, Screen.receivePingFromDevice)
        office.register(of: Ping.self, queue: marked.queue) { _ in labels.record(marked.currentLabel ?? "not on queue")
        }

        office.post(Ping(n: 1), sender: Device("device"))
        drain(marked.queue)

        #expect(marked.currentLabel == nil)
        #expect(labels.events == ["mailroom.tests.on-queue", "mailroom.tests.on-queue"])
        #expect(log.events == ["screen 1", "screen 1 from device"])
    }

    @Test("A queued registration is never called inline when posting from another thread")
    func neverInlineFromAnotherThread() {
        let office = PostOffice()
        let queue = DispatchQueue(label: "mailroom.tests.not-inline")
        let log = Log()
        office.register(queue: queue) { (ping: Ping) in log.record("queued \(ping.n)") }
        let gate = block(queue)

        office.post(Ping(n: 1))
        let countAfterPost = log.count
        gate.open()
        drain(queue)

        #expect(countAfterPost == 0)
        #expect(log.events == ["queued 1"])
    }

    @Test("A queued registration is not called inline even when posting from its own queue")
    func neverInlineFromItsOwnQueue() {
        let office = PostOffice()
        let marked = MarkedQueue("mailroom.tests.own-queue")
        let log = Log()
        office.register(queue: marked.queue) { (ping: Ping) in
            log.record("queued \(ping.n) on \(marked.currentLabel ?? "nil")")
        }

        let countAfterPost: Int = marked.queue.sync {
            office.post(Ping(n: 1))
            return log.count
        }
        #expect(countAfterPost == 0)
        drain(marked.queue)

        #expect(log.events == ["queued 1 on mailroom.tests.own-queue"])
    }

    @Test("On a serial queue, each recipient receives 1000 posts in post order")
    func serialQueueKeepsPostOrder() {
        let office = PostOffice()
        let queue = DispatchQueue(label: "mailroom.tests.order")
        let closure = Recorder<Int>()
        let withSender = Recorder<String>()
        let log = Log()
        let screen = Screen("s", log: log)
        office.register(queue: queue) { (ping: Ping) in closure.record(ping.n) }
        office.register(queue: queue, screen, Screen.receivePing)
        office.register(queue: queue) { (ping: Ping, device: Device?) in
            withSender.record("\(ping.n) \(device?.name ?? "nil")")
        }
        let device = Device("d")

        for n in 0..<1000 {
            office.post(Ping(n: n), sender: n.isMultiple(of: 2) ? device : nil)
        }
        drain(queue)

        #expect(closure.events == Array(0..<1000))
        #expect(log.events == (0..<1000).map { "s \($0)" })
        #expect(withSender.events == (0..<1000).map { "\($0) \($0.isMultiple(of: 2) ? "d" : "nil")" })
    }

    @Test("Queued deliveries carry the mail and the sender to the queue")
    func queuedDeliveryCarriesMailAndSender() {
        let office = PostOffice()
        let queue = DispatchQueue(label: "mailroom.tests.carry")
        let log = Log()
        let device = Device("device")
        office.register(queue: queue) { (ping: Ping, sender: Device) in log.record("\(ping.n) from \(sender.name)") }
        office.register(queue: queue) { (ping: Ping, sender: Device?) in
            log.record("\(ping.n) from optional \(sender?.name ?? "nil")")
        }
        office.register(queue: queue, sender: device) { (ping: Ping) in log.record("\(ping.n) exact") }
        office.register(queue: queue) { (crate: Letter) in log.record("letter \(crate.tag)") }

        office.post(Ping(n: 1), sender: device)
        office.post(Ping(n: 2))
        office.post(Crate("c") as Letter)
        drain(queue)

        #expect(
            log.events == [
                "1 from device", "1 from optional device", "1 exact",
                "2 from optional nil",
                "letter c",
            ])
    }

    @Test(
        "Queued and synchronous registrations of one post each get the mail once: inline ones at once, queued ones after a barrier"
    )
    func mixedSynchronousAndQueued() {
        let office = PostOffice()
        let queue = DispatchQueue(label: "mailroom.tests.mixed")
        let log = Log()
        office.register(queue: queue) { (ping: Ping) in log.record("queued \(ping.n)") }
        office.register { (ping: Ping) in log.record("inline \(ping.n)") }
        let gate = block(queue)

        office.post(Ping(n: 1))
        let afterPost = log.events
        gate.open()
        drain(queue)

        #expect(afterPost == ["inline 1"])
        #expect(log.events == ["inline 1", "queued 1"])
    }
}
