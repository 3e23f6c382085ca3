#if Postgres
// One process of the multi-process tests: links an office to the test's database, posts mail of three types and
// many sizes when told to, and reports what it received from the other processes. (`LinkPeer --upstream PROBE`
// shows a fault of postgres-nio instead: see Upstream.swift; `LinkPeer --subscribe NAME ...` runs a named
// subscription: see Subscriber.swift; `LinkPeer --trace ROLE ...`, with the Observability trait too, posts or
// receives traced mail: see Traces.swift.)
//
//   LinkPeer ORIGIN COUNT OTHER-ORIGIN...
//
// Connects to the Unix socket in MAILROOM_POSTGRES_SOCKET and prints `ready` once it listens (or `refused` and why,
// and exits with 3, when the link cannot start: another live link has its origin, say), on the tables of the
// prefix in LINKPEER_PREFIX (default `mailroom_`). Then reads commands,
// one per line: `post FROM TO` posts mail number FROM up to TO (not included) and prints `posted TO`; `finish`
// waits until it has received COUNT mail from every other origin and written all of its own, or 120 s, prints one
// `result` line of JSON, and exits with 0 if every mail arrived once and in order.
import Foundation
import Logging
import Mailroom
import MailroomPostgres
import NIOConcurrencyHelpers
import PostgresNIO

/// Small mail, on a channel it shares with `Blob`, so that the two stay in order relative to each other.
struct Note: LinkedMail {
    static let linkedChannel = "peer_mail"
    let origin: String
    let index: Int
    let text: String
}

/// Mail over PostgreSQL's 8000-byte limit for a notification: it travels through the outbox.
struct Blob: LinkedMail {
    static let linkedChannel = "peer_mail"
    let origin: String
    let index: Int
    let data: String
}

/// Mail on a channel of its own (the default, its module-qualified name).
struct Tick: LinkedMail {
    let origin: String
    let index: Int
}

struct Report: Codable {
    /// For each other origin: how many mail arrived, how many were duplicates, whether each channel's were in order.
    var counts: [String: Int] = [:]
    var duplicates: [String: Int] = [:]
    var outOfOrder: [String: Int] = [:]
    /// Mail that arrived from this process itself as remote mail, or with an origin that differs from its sender.
    var misattributed = 0
    var failures: [String] = []
    var unsent = 0
}

/// Records each arrival under its origin and channel.
final class Recorder: Sendable {
    private struct State {
        var report = Report()
        var seen: Set<String> = []
        var lastIndex: [String: Int] = [:]
    }
    private let state = NIOLockedValueBox(State())
    let me: String

    init(me: String) { self.me = me }

    func record(origin: RemoteOrigin, claimed: String, index: Int, channel: String) {
        state.withLockedValue { state in
            guard origin.name == claimed, claimed != me else {
                state.report.misattributed += 1
                return
            }
            guard state.seen.insert("\(claimed)/\(index)").inserted else {
                state.report.duplicates[claimed, default: 0] += 1
                return
            }
            state.report.counts[claimed, default: 0] += 1
            let key = "\(claimed)/\(channel)"
            if let last = state.lastIndex[key], last >= index { state.report.outOfOrder[claimed, default: 0] += 1 }
            state.lastIndex[key] = index
        }
    }

    func fail(_ failure: DeliveryFailure) {
        state.withLockedValue { $0.report.failures.append(failure.description) }
    }

    var report: Report { state.withLockedValue(\.report) }
}

/// Writes `line` at once (`print` would hold it back while standard output is a pipe).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "--upstream",
    let socket = ProcessInfo.processInfo.environment["MAILROOM_POSTGRES_SOCKET"]
{
    exit(try await probeUpstream(arguments[2], socket: socket))
}
if arguments.count >= 2, arguments[1] == "--subscribe",
    let socket = ProcessInfo.processInfo.environment["MAILROOM_POSTGRES_SOCKET"]
{
    exit(try await subscribe(Array(arguments.dropFirst(2)), socket: socket))
}
#if Observability
if arguments.count >= 2, arguments[1] == "--trace",
    let socket = ProcessInfo.processInfo.environment["MAILROOM_POSTGRES_SOCKET"]
{
    exit(try await carryTraces(Array(arguments.dropFirst(2)), socket: socket))
}
#endif
guard arguments.count >= 3, let count = Int(arguments[2]),
    let socket = ProcessInfo.processInfo.environment["MAILROOM_POSTGRES_SOCKET"]
else {
    print("usage: MAILROOM_POSTGRES_SOCKET=PATH LinkPeer ORIGIN COUNT OTHER-ORIGIN...")
    exit(2)
}
let me = arguments[1]
let others = Array(arguments.dropFirst(3))

let office = PostOffice()
let recorder = Recorder(me: me)
office.register { (note: Note, origin: RemoteOrigin) in
    recorder.record(origin: origin, claimed: note.origin, index: note.index, channel: Note.linkedChannel)
}
office.register { (blob: Blob, origin: RemoteOrigin) in
    recorder.record(origin: origin, claimed: blob.origin, index: blob.index, channel: Blob.linkedChannel)
}
office.register { (tick: Tick, origin: RemoteOrigin) in
    recorder.record(origin: origin, claimed: tick.origin, index: tick.index, channel: Tick.linkedChannel)
}
office.register { (failure: DeliveryFailure) in recorder.fail(failure) }

var logger = Logger(label: "LinkPeer.\(me)")
logger.logLevel = ProcessInfo.processInfo.environment["LINKPEER_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .error
var configuration = PostgresLink.Configuration(origin: me)
configuration.heartbeat = .seconds(1)
configuration.tablePrefix = ProcessInfo.processInfo.environment["LINKPEER_PREFIX"] ?? "mailroom_"
let link = try PostgresLink(
    office: office, carrying: [Note.self, Blob.self, Tick.self],
    database: .init(unixSocketPath: socket, username: "postgres", password: nil, database: "postgres"),
    configuration: configuration, logger: logger)
let running = Task { try await link.run() }
do {
    try await link.listening()
} catch {
    // Another live link has this origin, say: the test reads why.
    say("refused \(error)")
    exit(3)
}
say("ready")

/// Mail number `index`: one in ten a `Tick`, one in seven a `Blob` of 8 to 12 KB, the rest `Note`s of up to 2 KB.
func post(_ index: Int) {
    if index % 10 == 0 {
        office.post(Tick(origin: me, index: index))
    } else if index % 7 == 3 {
        office.post(Blob(origin: me, index: index, data: String(repeating: "b", count: 8000 + index % 4000)))
    } else {
        office.post(Note(origin: me, index: index, text: String(repeating: "n", count: index % 2000)))
    }
}

while let command = readLine(), command != "finish" {
    let words = command.split(separator: " ")
    guard words.count == 3, words[0] == "post", let from = Int(words[1]), let to = Int(words[2]) else {
        say("unknown command \(command)")
        exit(2)
    }
    for index in from..<to {
        post(index)
        if index % 50 == 49 { try await Task.sleep(for: .milliseconds(5)) }
    }
    say("posted \(to)")
}

let deadline = ContinuousClock.now + .seconds(120)
func complete() -> Bool {
    let report = recorder.report
    return link.unsent == 0 && others.allSatisfy { report.counts[$0, default: 0] >= count }
}
while !complete() && ContinuousClock.now < deadline {
    try await Task.sleep(for: .milliseconds(20))
}
running.cancel()
_ = try? await running.value
var report = recorder.report
report.unsent = link.unsent
let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
say("result \(json)")
let passed =
    report.unsent == 0 && report.misattributed == 0 && report.failures.isEmpty && report.duplicates.isEmpty
    && report.outOfOrder.isEmpty && others.allSatisfy { report.counts[$0] == count }
exit(passed ? 0 : 1)
#else
print("LinkPeer needs the Postgres trait: swift run --traits Postgres LinkPeer")
#endif
