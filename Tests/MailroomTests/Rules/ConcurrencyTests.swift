import Dispatch
import Mailroom
import Testing

@Suite("Concurrency: register, post and unregister from many threads at once")
struct ConcurrencyTests {
    @Test(
        "During a storm of posts, registrations and unregistrations on 8 threads, recipients registered before receive exactly every post, in each thread's order"
    )
    func stormKeepsExactDeliveries() {
        let office = PostOffice()
        let threads = 8
        let postsPerThread = 300
        let shared = Device("shared")
        let any = Recorder<Int>()
        let optionalSender = Recorder<Int>()
        let exact = Recorder<Int>()
        let tally = Tally()
        office.register { (ping: Ping) in any.record(ping.n) }
        office.register { (ping: Ping, _: Device?) in optionalSender.record(ping.n) }
        office.register(sender: shared) { (ping: Ping) in exact.record(ping.n) }
        office.register(tally, Tally.receive)

        runConcurrently(threads) { thread in
            let ownDevice = Device("own \(thread)")
            for index in 0..<postsPerThread {
                let transientClosure = office.register { (_: Ping) in }
                let transientExact = office.register(sender: ownDevice) { (_: Ping, _: Device) in }
                let transientTally = Tally()
                office.register(transientTally, Tally.receive)
                let transientPong = office.register { (_: Pong) in }
                let ping = Ping(n: thread * 1_000_000 + index)
                if index.isMultiple(of: 2) {
                    office.post(ping, sender: shared)
                } else {
                    office.post(ping)
                }
                office.post(Pong(n: index), sender: ownDevice)
                office.unregister(transientClosure)
                office.unregister(transientExact)
                office.unregister(transientPong)
            }
        }

        let everyThread = Array(repeating: Array(0..<postsPerThread), count: threads)
        let evenOnly = Array(repeating: Array(stride(from: 0, to: postsPerThread, by: 2)), count: threads)
        #expect(any.count == threads * postsPerThread)
        #expect(postsByThread(any.events, threads: threads) == everyThread)
        #expect(postsByThread(optionalSender.events, threads: threads) == everyThread)
        #expect(postsByThread(tally.received.events, threads: threads) == everyThread)
        #expect(exact.count == threads * postsPerThread / 2)
        #expect(postsByThread(exact.events, threads: threads) == evenOnly)
        // Only the 4 registrations made before remain: the transient tallies have deallocated.
        #expect(office.registrationCount == 4)
    }

    @Test("8 × 1000 ids registered concurrently across two offices are all different")
    func concurrentIdsAreUnique() {
        let first = PostOffice()
        let second = PostOffice()
        let collected = Shared<[RecipientId]>([])

        runConcurrently(8) { _ in
            var ids: [RecipientId] = []
            ids.reserveCapacity(1000)
            for index in 0..<1000 {
                let office = index.isMultiple(of: 2) ? first : second
                ids.append(office.register { (_: Ping) in })
            }
            collected.update { $0 += ids }
        }

        #expect(collected.value.count == 8000)
        #expect(Set(collected.value).count == 8000)
        #expect(first.registrationCount == 4000)
        #expect(second.registrationCount == 4000)
    }

    @Test(
        "Method recipients created, registered and deallocated on 8 threads while others post: a long-lived recipient gets every post and the count returns to its start"
    )
    func concurrentMethodRecipientsComeAndGo() {
        let office = PostOffice()
        let tally = Tally()
        office.register(tally, Tally.receive)
        let start = office.registrationCount

        let missed = Shared<[Int]>([])
        runConcurrently(8) { thread in
            for index in 0..<250 {
                let shortLived = Tally()
                office.register(shortLived, Tally.receive)
                let own = thread * 1_000_000 + index
                office.post(Ping(n: own))
                // Registered before its thread's post and alive until after it, so it must have received it.
                if !shortLived.received.events.contains(own) {
                    missed.update { $0.append(own) }
                }
            }
        }

        #expect(missed.value == [])
        #expect(postsByThread(tally.received.events, threads: 8) == Array(repeating: Array(0..<250), count: 8))
        #expect(office.registrationCount == start)
    }

    @Test(
        "Exact senders created, registered, posted from and deallocated on 8 threads each receive exactly their own mail"
    )
    func concurrentExactSendersComeAndGo() {
        let office = PostOffice()
        let mismatches = Shared<[String]>([])

        runConcurrently(8) { thread in
            for index in 0..<250 {
                let device = Device("\(thread)-\(index)")
                let received = Recorder<String>()
                office.register(sender: device) { (ping: Ping, sender: Device) in
                    received.record("\(ping.n) \(sender.name)")
                }
                office.post(Ping(n: 1), sender: device)
                office.post(Ping(n: 2), sender: Device("impostor"))
                office.post(Ping(n: 3), sender: device)
                let expected = ["1 \(device.name)", "3 \(device.name)"]
                if received.events != expected {
                    mismatches.update { $0.append("\(device.name): \(received.events)") }
                }
            }
        }

        #expect(mismatches.value == [])
        #expect(office.registrationCount == 0)
    }

    @Test("Posts from 8 threads to a serial-queue registration all arrive, each thread's in its post order")
    func concurrentPostsToQueuedRegistration() {
        let office = PostOffice()
        let queue = DispatchQueue(label: "mailroom.tests.concurrent-queue")
        let received = Recorder<Int>()
        office.register(queue: queue) { (ping: Ping) in received.record(ping.n) }

        runConcurrently(8) { thread in
            for index in 0..<250 {
                office.post(Ping(n: thread * 1_000_000 + index))
            }
        }
        drain(queue)

        #expect(received.count == 2000)
        #expect(postsByThread(received.events, threads: 8) == Array(repeating: Array(0..<250), count: 8))
    }

    @Test("A method recipient deallocated while other threads post is never called after its deinit began")
    func recipientDeallocatedDuringPosts() {
        for round in 0..<40 {
            let office = PostOffice()
            let log = Log()
            let enoughCalls = DispatchSemaphore(value: 0)
            let holder = Shared<Mortal?>(Mortal(log: log, callsBeforeSignal: 20, enoughCalls: enoughCalls))
            office.register(holder.value!, Mortal.receive)
            let dropped = Shared(false)

            let timedOut = Shared(false)

            runOnThreads(3) { worker in
                if worker == 0 {
                    if enoughCalls.wait(timeout: .now() + defaultTimeout) == .timedOut {
                        timedOut.value = true
                    }
                    holder.value = nil
                    dropped.value = true
                } else {
                    var postsAfterDrop = 0
                    var posts = 0
                    while postsAfterDrop < 200, posts < 1_000_000 {
                        office.post(Ping(n: worker))
                        posts += 1
                        if dropped.value { postsAfterDrop += 1 }
                    }
                }
            }

            #expect(!timedOut.value, "round \(round): the recipient was not called 20 times")
            let events = log.events
            #expect(events.filter { $0 == "deinit" }.count == 1, "round \(round)")
            #expect(events.last == "deinit", "round \(round): a call came after deinit began")
            #expect(events.filter { $0 == "call" }.count >= 20, "round \(round)")
            #expect(office.registrationCount == 0, "round \(round)")
            if events.last != "deinit" { break }
        }
    }
}
