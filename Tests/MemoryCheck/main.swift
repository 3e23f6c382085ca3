// Registers and drops a million method recipients and exact senders, with no post, and fails (exit status 1)
// if resident memory grows by more than 2 MiB: dead registrations must be reclaimed, not piled up.
//
//   swift run MemoryCheck [cycles]      (default 1_000_000)
import Mailroom

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

struct Tick: Mail {}

final class Recipient: Sendable {
    func receive(_ tick: Tick) {}
}

final class Sender: Sendable {}

/// The resident set size of this process, in bytes.
func residentBytes() -> Int {
    #if canImport(Darwin)
    var info = mach_task_basic_info()
    var count = mach_msg_type_number_t(MemoryLayout<mach_task_basic_info>.size / MemoryLayout<natural_t>.size)
    let result = withUnsafeMutablePointer(to: &info) {
        $0.withMemoryRebound(to: integer_t.self, capacity: Int(count)) {
            task_info(mach_task_self_, task_flavor_t(MACH_TASK_BASIC_INFO), $0, &count)
        }
    }
    return result == KERN_SUCCESS ? Int(info.resident_size) : 0
    #else
    // /proc/self/statm: "size resident shared ..." in pages.
    let file = open("/proc/self/statm", O_RDONLY)
    guard file >= 0 else { return 0 }
    defer { close(file) }
    var buffer = [UInt8](repeating: 0, count: 128)
    let length = read(file, &buffer, buffer.count)
    guard length > 0 else { return 0 }
    let fields = String(decoding: buffer[..<length], as: UTF8.self).split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    #endif
}

func cycle(_ office: PostOffice, times: Int) {
    for _ in 0..<times {
        let recipient = Recipient()
        let sender = Sender()
        office.register(recipient, Recipient.receive)
        office.register(sender: sender) { (_: Tick) in }
        office.register(sender: sender, recipient, Recipient.receive)
    }
}

let cycles = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 1_000_000
let limit = 2 << 20
let office = PostOffice()
let kept = Recipient()
office.register(kept, Recipient.receive)

cycle(office, times: cycles / 10)  // warm up: the allocator and the office reach their working size
let before = residentBytes()
cycle(office, times: cycles)
let after = residentBytes()
let growth = after - before
let count = office.registrationCount

print("\(cycles) cycles, each registering a method recipient and an exact sender (3 registrations) and dropping both")
print("resident memory: \(before / 1024) KiB before, \(after / 1024) KiB after", terminator: ", ")
print("growth \(growth / 1024) KiB (limit \(limit / 1024) KiB)")
print("registrationCount after: \(count) (expected 1)")
if before == 0 || growth > limit || count != 1 {
    print("FAILED")
    exit(1)
}
print("passed")
