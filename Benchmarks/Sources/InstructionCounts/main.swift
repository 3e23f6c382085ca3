// Posts a fixed number of times in one scenario, inside `measuredPosts`, so that
// `valgrind --tool=callgrind --toggle-collect=*measuredPosts*` counts the instructions of the posts alone:
// exact and identical from run to run, unlike wall-clock time. `Scripts/instruction-gate.sh` runs it.
//
//   InstructionCounts <scenario> <posts>
//   scenarios: post-1-closure, post-100-closures, post-1-closure-1000-other-types,
//              post-1-closure-1000-other-protocols
import Mailroom

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

struct Ping: Mail {
    let value: Int
}

/// A protocol `Ping` does not conform to: its recipients must cost a post of `Ping` nothing.
protocol Unrelated: Mail {}

/// A distinct mail type for each `Tag`, to fill an office with registrations of other types.
struct Other<Tag>: Mail {}

final class Sink: @unchecked Sendable {
    var total = 0
}

let sink = Sink()

@inline(never)
func measuredPosts(_ office: PostOffice, _ count: Int) {
    for index in 0..<count {
        office.post(Ping(value: index))
    }
}

/// Registers 1000 closures for 1000 other mail types (`Other<Other<...>>` nested to make each type distinct).
func registerOtherTypes(_ office: PostOffice, count: Int) {
    func register<Tag>(_: Tag.Type, remaining: Int) {
        guard remaining > 0 else { return }
        office.register { (_: Other<Tag>) in sink.total += 1 }
        register(Other<Tag>.self, remaining: remaining - 1)
    }
    register(Ping.self, remaining: count)
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let posts = Int(arguments[2]) else {
    print("usage: InstructionCounts <scenario> <posts>")
    exit(2)
}
let office = PostOffice()
switch arguments[1] {
case "post-1-closure":
    office.register { (ping: Ping) in sink.total &+= ping.value }
case "post-100-closures":
    for _ in 0..<100 {
        office.register { (ping: Ping) in sink.total &+= ping.value }
    }
case "post-1-closure-1000-other-types":
    registerOtherTypes(office, count: 1000)
    office.register { (ping: Ping) in sink.total &+= ping.value }
case "post-1-closure-1000-other-protocols":
    for _ in 0..<1000 {
        office.register(conformingTo: Unrelated.self) { _ in sink.total += 1 }
    }
    office.register { (ping: Ping) in sink.total &+= ping.value }
default:
    print("unknown scenario \(arguments[1])")
    exit(2)
}
office.post(Ping(value: 0))  // builds the route, outside the measured part
measuredPosts(office, posts)
print("\(arguments[1]): \(posts) posts, total \(sink.total)")
