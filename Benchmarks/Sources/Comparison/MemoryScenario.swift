// Memory per live registration: Mailroom against NotificationCenter's block observers.
//
// Each (system, kind) is read in a fresh child process of this tool (`Comparison --memory-child KIND`), so that
// memory one system freed cannot be handed to another: the child warms up (one registration and one post),
// creates the objects the registrations need (recipients, senders) and the storage that keeps the returned ids
// or tokens, reads its resident memory (`/proc/self/statm`) and the heap bytes in use (glibc's `mallinfo2()`),
// makes `memoryRegistrations` registrations, reads both again while they are all alive, and prints the growth per
// registration. Resident memory counts what the registrations actually made the process hold, allocator slack
// included; heap bytes count what was allocated and not freed.
import Foundation
import HeapCounters
import Mailroom

/// Registrations each child makes.
let memoryRegistrations = 300_000

/// Child processes per (system, kind): one per round, in the first rounds only.
let memorySamples = 3

/// The kinds a child can measure: `--memory-child` takes one of these names.
enum MemoryKind: String, CaseIterable {
    case mailroomClosure = "mailroom-closure"
    case centerClosure = "notificationcenter-closure"
    case mailroomMethod = "mailroom-method"
    case centerMethod = "notificationcenter-method"
    case mailroomSender = "mailroom-sender"
    case centerSender = "notificationcenter-sender"
}

/// The process's resident memory and heap bytes in use, at one moment.
struct MemoryReading {
    let resident: Int
    let heap: Int

    static func now() -> MemoryReading {
        // /proc/self/statm: total program size, resident set, shared, ..., in pages.
        let fields = readFile("/proc/self/statm").split(separator: " ")
        let pages = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
        return MemoryReading(resident: pages * Int(sysconf(Int32(_SC_PAGESIZE))), heap: heap_bytes_in_use())
    }
}

/// Makes `memoryRegistrations` registrations with `register` (after `warmUp`, which makes one and posts once),
/// prints the resident and heap bytes they added per registration, and ends the process. The ids or tokens the
/// registrations return are kept in storage written before the first reading, on both sides: what is counted is
/// what the system holds for a registration, not the caller's list of them.
func measureRegistrations<Token>(warmUp: () -> Void, register: (Int) -> Token) -> Never {
    warmUp()
    var tokens = [Token?](repeating: nil, count: memoryRegistrations)
    let before = MemoryReading.now()
    for index in 0..<memoryRegistrations { tokens[index] = register(index) }
    let after = MemoryReading.now()
    withExtendedLifetime(tokens) {}
    let count = Double(memoryRegistrations)
    print(
        String(
            format: "%.1f %.1f", Double(after.resident - before.resident) / count,
            Double(after.heap - before.heap) / count))
    // Tearing down the registrations would only take time.
    exit(0)
}

/// The child: measures one kind (`--memory-child KIND`) and exits.
func memoryChild(_ name: String) -> Never {
    guard let kind = MemoryKind(rawValue: name) else {
        print("unknown kind \(name); one of: \(MemoryKind.allCases.map(\.rawValue).joined(separator: ", "))")
        exit(2)
    }
    let office = PostOffice()
    let center = NotificationCenter()
    // One more recipient or sender than registrations: the warm-up's.
    let needsRecipients = kind == .mailroomMethod || kind == .centerMethod
    let needsSenders = kind == .mailroomSender || kind == .centerSender
    let recipients = needsRecipients ? (0...memoryRegistrations).map { Recipient(offset: $0) } : []
    let senders = needsSenders ? (0...memoryRegistrations).map { _ in Sender() } : []
    defer { withExtendedLifetime((office, center, recipients, senders)) {} }

    switch kind {
    case .mailroomClosure:
        measureRegistrations {
            office.register { (ping: Ping) in consume(ping.value) }
            office.post(Ping(value: 0))
        } register: { index in
            office.register { (ping: Ping) in consume(ping.value &+ index) }
        }
    case .centerClosure:
        // The usual way: a block observer, the mail cast out of userInfo, one capture.
        measureRegistrations {
            keepAlive.hold(observe(center) { ping in consume(ping.value) })
            postPings(1, to: center)
        } register: { index in
            center.addObserver(forName: pingName, object: nil, queue: nil) { note in
                if let ping = note.userInfo?[mailKey] as? Ping { consume(ping.value &+ index) }
            }
        }
    case .mailroomMethod:
        measureRegistrations {
            office.register(recipients[memoryRegistrations], Recipient.receive)
            office.post(Ping(value: 0))
        } register: { index in
            office.register(recipients[index], Recipient.receive)
        }
    case .centerMethod:
        // As the 1000 weak method recipients scenario: a block observer holding its recipient weakly.
        measureRegistrations {
            let recipient = recipients[memoryRegistrations]
            keepAlive.hold(
                center.addObserver(forName: pingName, object: nil, queue: nil) { [weak recipient] note in
                    guard let recipient, let ping = note.userInfo?[mailKey] as? Ping else { return }
                    recipient.receive(ping)
                })
            postPings(1, to: center)
        } register: { index in
            let recipient = recipients[index]
            return center.addObserver(forName: pingName, object: nil, queue: nil) { [weak recipient] note in
                guard let recipient, let ping = note.userInfo?[mailKey] as? Ping else { return }
                recipient.receive(ping)
            }
        }
    case .mailroomSender:
        measureRegistrations {
            let sender = senders[memoryRegistrations]
            office.register(sender: sender) { (ping: Ping, _: Sender) in consume(ping.value) }
            office.post(Ping(value: 0), sender: sender)
        } register: { index in
            office.register(sender: senders[index]) { (ping: Ping, _: Sender) in consume(ping.value &+ index) }
        }
    case .centerSender:
        measureRegistrations {
            let sender = senders[memoryRegistrations]
            keepAlive.hold(observe(center, object: sender) { ping in consume(ping.value) })
            postPings(1, to: center, object: sender)
        } register: { index in
            center.addObserver(forName: pingName, object: senders[index], queue: nil) { note in
                if let ping = note.userInfo?[mailKey] as? Ping { consume(ping.value &+ index) }
            }
        }
    }
}

/// One (system, kind) of the memory scenario, read in child processes: resident bytes per registration are the
/// variant's samples; heap bytes per registration are kept for the note under the table.
final class MemoryChildren {
    let kind: MemoryKind
    private(set) var heapSamples: [Double] = []

    init(_ kind: MemoryKind) {
        self.kind = kind
    }

    /// Runs one child and returns its resident bytes per registration (NaN if the child failed).
    func residentSample() -> Double {
        guard let fields = childOutput(["--memory-child", kind.rawValue]), fields.count == 2 else { return .nan }
        heapSamples.append(fields[1])
        return fields[0]
    }

    var medianHeap: Double {
        let sorted = heapSamples.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    func variant(_ name: String) -> Variant {
        Variant(name, quantity: .bytes, maximumSamples: memorySamples) { self.residentSample() }
    }
}

func memory() -> Scenario {
    let children = MemoryKind.allCases.map(MemoryChildren.init)
    let names = [
        "Mailroom, closure", "NotificationCenter, block observer", "Mailroom, weak method",
        "NotificationCenter, block observer capturing [weak recipient]", "Mailroom, exact sender",
        "NotificationCenter, block observer with object: sender",
    ]
    let variants = zip(children, names).map { $0.variant($1) }
    let count = memoryRegistrations.formatted()
    let note = {
        "Heap bytes per live registration (mallinfo2 in use, median of the same children): "
            + zip(children, names).map { String(format: "%@ %.1f", $1, $0.medianHeap) }.joined(separator: "; ")
            + "."
    }
    func row(_ what: String, _ index: Int, _ target: Target) -> Row {
        Row(
            scenario: "resident bytes per live registration, \(count) registrations: \(what)",
            mailroom: variants[index], peer: variants[index + 1], peerName: names[index + 1], bare: nil,
            referenceLabel: names[index + 1], reference: variants[index + 1], target: target)
    }
    return Scenario(
        variants: variants,
        rows: [
            row("closure with one capture", 0, .cost(1)),
            row("weak method", 2, .cost(1)),
            row("exact sender (each its own)", 4, .reportOnly),
        ],
        notes: [note]
    )
}
