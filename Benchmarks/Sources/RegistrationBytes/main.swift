// Heap bytes one live registration holds, for each kind of registration, exactly and identically from run to run,
// so that `Scripts/memory-gate.sh` can fail a change that makes registrations bigger. (Resident memory, which the
// Comparison tool's memory scenario reports, moves with page granularity and allocator state; this does not.)
//
//   RegistrationBytes          every kind, each in a child process of its own
//   RegistrationBytes KIND     one kind, in this process
//
// For each kind, in a fresh process and a fresh office: one registration of that kind and one post to warm up
// (the mail type's route, the thread's block of registration numbers), the objects the registrations need
// (recipients, senders) and the storage for their ids, then `count` registrations, all kept alive. Prints one
// line per kind, "KIND BYTES TOTAL": TOTAL is the growth of glibc's heap bytes in use (`mallinfo2()`:
// `uordblks + hblkhd`, malloc's per-chunk overhead included) over the `count` registrations, BYTES that per
// registration, rounded to a whole byte.
//
// A process runs nothing concurrently while it measures (the queue kind's warm-up delivery is drained first), and
// the same allocations in the same order from a fresh heap give the same figures, whatever the addresses. Each
// kind has a process of its own because, measured one after the other in one process, the kinds after the first
// moved by up to 100 bytes in total from run to run (not with address randomization off: the heap a previous
// office left behind depends on addresses).
import Dispatch
import HeapCounters
import Mailroom

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct Ping: Mail {
    let value: Int
}

/// An object whose method is registered; the office holds it weakly.
final class Recipient: Sendable {
    let offset: Int

    init(offset: Int) {
        self.offset = offset
    }

    func receive(_ ping: Ping) {
        consume(ping.value &+ offset)
    }
}

/// A sender for exact-sender registrations.
final class Sender: Sendable {}

/// Takes a value so that the optimizer cannot drop the work that produced it.
@inline(never) @_optimize(none)
func consume(_ value: Int) {}

/// Registrations per kind. Any fixed count gives the same figure every run; this one leaves the office's arrays,
/// which grow by doubling, neither just grown nor full, so that a small change in what one registration holds
/// moves the figure by about that much.
let count = 10_000

/// Registers `count` times with `register`, after `warmUp`, and returns the heap bytes the registrations added.
func heapBytes(warmUp: () -> Void, register: (Int) -> RecipientId) -> Int {
    warmUp()
    var ids = [RecipientId?](repeating: nil, count: count)
    let before = heap_bytes_in_use()
    for index in 0..<count { ids[index] = register(index) }
    let after = heap_bytes_in_use()
    withExtendedLifetime(ids) {}
    return after - before
}

/// The kinds, by the name the budgets use, each measured in an office of its own.
let kinds: [(String, () -> Int)] = [
    (
        "closure",
        {
            let office = PostOffice()
            return heapBytes {
                office.register { (ping: Ping) in consume(ping.value) }
                office.post(Ping(value: 0))
            } register: { index in
                office.register { (ping: Ping) in consume(ping.value &+ index) }
            }
        }
    ),
    (
        "weak-method",
        {
            let office = PostOffice()
            let recipients = (0...count).map { Recipient(offset: $0) }
            return withExtendedLifetime(recipients) {
                heapBytes {
                    office.register(recipients[count], Recipient.receive)
                    office.post(Ping(value: 0))
                } register: { index in
                    office.register(recipients[index], Recipient.receive)
                }
            }
        }
    ),
    (
        "exact-sender",
        {
            let office = PostOffice()
            let senders = (0...count).map { _ in Sender() }
            return withExtendedLifetime(senders) {
                heapBytes {
                    office.register(sender: senders[count]) { (ping: Ping, _: Sender) in consume(ping.value) }
                    office.post(Ping(value: 0), sender: senders[count])
                } register: { index in
                    office.register(sender: senders[index]) { (ping: Ping, _: Sender) in consume(ping.value &+ index) }
                }
            }
        }
    ),
    (
        "main-actor-closure",
        {
            // Posted on the main thread, the warm-up mail is delivered at once, not queued.
            let office = PostOffice()
            return heapBytes {
                office.register(on: .mainActor) { (ping: Ping) in consume(ping.value) }
                office.post(Ping(value: 0))
            } register: { index in
                office.register(on: .mainActor) { (ping: Ping) in consume(ping.value &+ index) }
            }
        }
    ),
    (
        "queue-closure",
        {
            let office = PostOffice()
            let queue = DispatchQueue(label: "RegistrationBytes.serial")
            return heapBytes {
                office.register(queue: queue) { (ping: Ping) in consume(ping.value) }
                office.post(Ping(value: 0))
                queue.sync {}
            } register: { index in
                office.register(queue: queue) { (ping: Ping) in consume(ping.value &+ index) }
            }
        }
    ),
]

/// Runs this program for one kind in a child process, which prints its line, and returns whether it succeeded.
func runChild(_ kind: String) -> Bool {
    let arguments = [CommandLine.arguments[0], kind].map { (argument: String) in strdup(argument) }
    defer {
        for argument in arguments { free(argument) }
    }
    var pid = pid_t()
    guard posix_spawnp(&pid, CommandLine.arguments[0], nil, nil, arguments + [nil], environ) == 0 else { return false }
    var status: Int32 = 0
    guard waitpid(pid, &status, 0) == pid else { return false }
    return status == 0
}

if let kind = CommandLine.arguments.dropFirst().first {
    guard let measure = kinds.first(where: { $0.0 == kind })?.1 else {
        print("unknown kind \(kind); one of: \(kinds.map(\.0).joined(separator: ", "))")
        exit(2)
    }
    let total = measure()
    print("\(kind) \(Int((Double(total) / Double(count)).rounded())) \(total)")
} else {
    for (kind, _) in kinds where !runChild(kind) {
        print("RegistrationBytes \(kind) failed")
        exit(1)
    }
}
