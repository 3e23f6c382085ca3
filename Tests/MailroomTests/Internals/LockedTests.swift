import Dispatch
import Testing

@testable import Mailroom

@Suite("Locked: one thread at a time changes the state")
struct LockedTests {
    @Test("Threads incrementing a counter under the lock at once lose no increment")
    func contendedIncrementsAllLand() {
        let counter = Locked(0)
        let threads = 8
        let increments = 20_000 * stressScale
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<increments {
                counter.withLock { $0 += 1 }
            }
        }
        #expect(counter.withLock { $0 } == threads * increments)
    }

    @Test("A holder that keeps the lock while others queue up hands it to each of them in turn")
    func waitersAllGetTheLock() {
        // Long critical sections make the other threads find the lock taken and sleep on it, so that every
        // release has waiters to wake.
        let log = Locked<[Int]>([])
        let threads = 6
        let rounds = 200 * stressScale
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for _ in 0..<rounds {
                log.withLock { entries in
                    var spin = 0
                    for value in 0..<2_000 { spin &+= value }
                    entries.append(spin == -1 ? -1 : thread)
                }
            }
        }
        let entries = log.withLock { $0 }
        #expect(entries.count == threads * rounds)
        for thread in 0..<threads {
            #expect(entries.filter { $0 == thread }.count == rounds)
        }
    }
}
