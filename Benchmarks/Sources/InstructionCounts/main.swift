// Posts a fixed number of times in one scenario, inside `measuredPosts` (or registers and unregisters, inside
// `measuredPairs`), so that `valgrind --tool=callgrind --toggle-collect=*measured*` counts the instructions of
// that work alone: exact and identical from run to run, unlike wall-clock time. `Scripts/instruction-gate.sh`
// runs it.
//
//   InstructionCounts <scenario> <count>
//   scenarios: post-1-closure, post-100-closures, post-1-capturing-closure, post-100-capturing-closures,
//              post-100-closures-by-priority, post-1-closure-1000-other-types,
//              post-1-closure-1000-other-protocols, post-1-throwing-closure, post-1-interceptor,
//              post-1-main-actor-closure, post-1-main-actor-closure-from-task, post-1-queue-closure,
//              register-unregister-1000-others
//   and each post-* scenario prefixed with `instrumented-`: the same in an office with a `MailInstrumentation`
//   that counts posts and deliveries (the cost of the hook with about the least an instrumentation can do).
//   The queue scenario posts to a suspended queue and runs the deliveries after the measured posts: measured
//   with callgrind's toggle, it counts the posting side (capturing the context); counted for the whole process,
//   both sides. The from-task scenario posts from a main-actor task after its first suspension, the main thread
//   gone, where an app's `@MainActor` async function posts (on Linux, in a block of the main queue on another
//   thread).
import Dispatch
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

/// What a throwing handler would throw (it never does here).
struct PingError: Error {}

final class Sink: @unchecked Sendable {
    var total = 0
}

let sink = Sink()

/// Counts posts and deliveries, and carries a number to each deferred delivery: about the least an
/// instrumentation can do.
struct CountingInstrumentation: MailInstrumentation {
    func posted(_ mailType: any Mail.Type) { sink.total &+= 1 }
    func delivered(_ delivery: Delivery) { sink.total &+= 1 }
    func capture(_ delivery: Delivery) -> Int { sink.total }
    func run(_ delivery: Delivery, in context: Int, _ handler: () -> Void) {
        sink.total &+= context
        handler()
    }
}

@inline(never)
func measuredPosts(_ office: PostOffice, _ count: Int) {
    for index in 0..<count {
        office.post(Ping(value: index))
    }
}

/// Registers a closure and unregisters it, `count` times.
@inline(never)
func measuredPairs(_ office: PostOffice, _ count: Int) {
    for _ in 0..<count {
        let id = office.register { (ping: Ping) in sink.total &+= ping.value }
        office.unregister(id)
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
guard arguments.count == 3, let count = Int(arguments[2]) else {
    print("usage: InstructionCounts <scenario> <count>")
    exit(2)
}
let instrumented = arguments[1].hasPrefix("instrumented-")
let scenario = instrumented ? String(arguments[1].dropFirst("instrumented-".count)) : arguments[1]
let office = instrumented ? PostOffice(instrumentation: CountingInstrumentation()) : PostOffice()
/// For the queue scenario: suspended while the measured posts run.
let queue = DispatchQueue(label: "deliveries")
switch scenario {
case "post-1-closure":
    office.register { (ping: Ping) in sink.total &+= ping.value }
case "post-100-closures":
    for _ in 0..<100 {
        office.register { (ping: Ping) in sink.total &+= ping.value }
    }
case "post-1-capturing-closure":
    // A closure that captures a value, as most do (`self`, a model): its context is its own.
    let offset = count
    office.register { (ping: Ping) in sink.total &+= ping.value &+ offset }
case "post-100-capturing-closures":
    for offset in 0..<100 {
        office.register { (ping: Ping) in sink.total &+= ping.value &+ offset }
    }
case "post-100-closures-by-priority":
    // Each priority from -50 to 49, registered in an order that inserts most of them before others.
    for index in 0..<100 {
        let priority = Priority(Int16((index * 37) % 100 - 50))
        office.register(priority: priority) { (ping: Ping) in sink.total &+= ping.value }
    }
case "post-1-closure-1000-other-types":
    registerOtherTypes(office, count: 1000)
    office.register { (ping: Ping) in sink.total &+= ping.value }
case "post-1-closure-1000-other-protocols":
    for _ in 0..<1000 {
        office.register(conformingTo: Unrelated.self) { _ in sink.total += 1 }
    }
    office.register { (ping: Ping) in sink.total &+= ping.value }
case "post-1-throwing-closure":
    office.register { (ping: Ping) throws(PingError) in
        guard ping.value >= 0 else { throw PingError() }
        sink.total &+= ping.value
    }
case "post-1-main-actor-closure":
    // Posted on the main thread, which is the main actor: the handler runs during the post.
    office.register(on: .mainActor) { (ping: Ping) in sink.total &+= ping.value }
case "post-1-main-actor-closure-from-task":
    // Posted from a main-actor task resumed after a suspension, the main thread gone: the task runs in a block of
    // the main queue, on another thread on Linux, and the handler runs during the post.
    office.register(on: .mainActor) { (ping: Ping) in sink.total &+= ping.value }
    office.post(Ping(value: 0))  // builds the route, outside the measured part
    Task { @MainActor in
        await Task.yield()
        measuredPosts(office, count)
        print("\(arguments[1]): \(count) posts, total \(sink.total)")
        exit(0)
    }
    #if os(Linux)
    // What `dispatchMain()` does on Linux, short of its last step: the main thread exits, and libdispatch's cleanup
    // of the thread hands the main queue to its worker threads. `dispatchMain()` then keeps the thread in
    // `sigsuspend` with a mask in read-only memory, which valgrind 3.19 writes to and crashes on.
    pthread_exit(nil)
    #else
    dispatchMain()
    #endif
case "post-1-queue-closure":
    office.register(queue: queue) { (ping: Ping) in sink.total &+= ping.value }
    queue.suspend()
case "post-1-interceptor":
    office.intercept { (ping: Ping) in
        sink.total &+= ping.value
        return .passOn
    }
case "register-unregister-1000-others":
    for offset in 0..<1000 {
        office.register { (ping: Ping) in sink.total &+= ping.value &+ offset }
    }
    office.post(Ping(value: 0))  // builds the route the pairs join and leave
    measuredPairs(office, count)
    print("\(arguments[1]): \(count) pairs, total \(sink.total)")
    exit(0)
default:
    print("unknown scenario \(arguments[1])")
    exit(2)
}
office.post(Ping(value: 0))  // builds the route, outside the measured part
measuredPosts(office, count)
if scenario == "post-1-queue-closure" {
    queue.resume()
    queue.sync {}
}
print("\(arguments[1]): \(count) posts, total \(sink.total)")
