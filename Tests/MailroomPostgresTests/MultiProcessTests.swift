#if Postgres
import Foundation
import NIOConcurrencyHelpers
import Testing

/// A `LinkPeer` process (see its source): commands in on standard input, lines out on standard output.
final class Peer: Sendable {
    let origin: String
    private let process: Process
    private let input: FileHandle
    private let output = NIOLockedValueBox("")

    /// Starts `LinkPeer ORIGIN COUNT OTHERS...`, built beside the test bundle; throws at once, saying how to run
    /// the tests, when no server was started for them.
    convenience init(_ origin: String, count: Int, others: [String], prefix: String? = nil) throws {
        try self.init(origin, arguments: [origin, String(count)] + others, prefix: prefix)
    }

    /// Starts `LinkPeer ARGUMENTS...` on the tables of `prefix` (the default ones for `nil`); `origin` names it in
    /// failures.
    init(_ origin: String, arguments: [String], prefix: String? = nil) throws {
        _ = try Server.socket()
        self.origin = origin
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let executable = [folder, folder.deletingLastPathComponent()]
            .map { $0.appendingPathComponent("LinkPeer") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
        guard let executable else { throw Unavailable("LinkPeer is not built next to \(folder.path)") }
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let prefix {
            process.environment = ProcessInfo.processInfo.environment.merging(["LINKPEER_PREFIX": prefix]) { $1 }
        }
        let (toPeer, fromPeer) = (Pipe(), Pipe())
        process.standardInput = toPeer
        process.standardOutput = fromPeer
        input = toPeer.fileHandleForWriting
        try process.run()
        // Blocking reads on a thread of its own, which ends when the peer exits; `readabilityHandler`'s dispatch
        // source is not used (see `Lines` in the Postgres example).
        let reading = fromPeer.fileHandleForReading
        Thread.detachNewThread { [output] in
            while case let data = reading.availableData, !data.isEmpty {
                output.withLockedValue { $0 += String(decoding: data, as: UTF8.self) }
            }
        }
    }

    var lines: [String] { output.withLockedValue { $0.split(separator: "\n").map(String.init) } }

    var isRunning: Bool { process.isRunning }

    /// Whether it exited or was ended by a signal, once it has ended.
    var terminationReason: Process.TerminationReason { process.terminationReason }

    func terminate() {
        process.terminate()
    }

    /// Ends the process at once, with SIGKILL, as a crash would.
    func kill() {
        crash(process.processIdentifier)
    }

    func send(_ command: String) {
        input.write(Data((command + "\n").utf8))
    }

    /// Waits for a line that starts with `prefix` and contains `text`, and returns it.
    @discardableResult
    func line(
        startingWith prefix: String, containing text: String = "", within limit: Duration = .seconds(60)
    ) async throws -> String {
        let matches: @Sendable (String) -> Bool = { $0.hasPrefix(prefix) && (text.isEmpty || $0.contains(text)) }
        try await waitUntil("\(origin) says \(prefix)…\(text)", within: limit) { self.lines.contains(where: matches) }
        return lines.first(where: matches) ?? ""
    }

    /// Waits for the process to exit, killing it after `limit`; returns its exit status.
    func exitStatus(within limit: Duration = .seconds(150)) async throws -> Int32 {
        do {
            try await waitUntil("\(origin) exits", within: limit) { !self.process.isRunning }
        } catch {
            process.terminate()
            throw error
        }
        return process.terminationStatus
    }

    /// What the peer received, from its `result` line.
    struct Report: Decodable {
        var counts: [String: Int]
        var duplicates: [String: Int]
        var outOfOrder: [String: Int]
        var misattributed: Int
        var failures: [String]
        var unsent: Int
    }

    func report() async throws -> Report {
        let line = try await line(startingWith: "result ")
        return try JSONDecoder().decode(Report.self, from: Data(line.dropFirst("result ".count).utf8))
    }
}

/// Sends SIGKILL to the process `id`.
private func crash(_ id: Int32) {
    _ = kill(id, SIGKILL)
}

extension DatabaseTests {
    @Suite("Mail across processes")
    struct MultiProcessTests {
        static let count = 1000

        /// Starts three peers and waits until each listens.
        func startPeers() async throws -> [Peer] {
            let origins = ["P1", "P2", "P3"].map(uniqueOrigin)
            let peers = try origins.map { origin in
                try Peer(origin, count: Self.count, others: origins.filter { $0 != origin })
            }
            for peer in peers { try await peer.line(startingWith: "ready") }
            return peers
        }

        /// Tells every peer to post mail `from..<to`.
        func post(_ peers: [Peer], _ from: Int, _ to: Int) {
            for peer in peers { peer.send("post \(from) \(to)") }
        }

        /// Finishes the peers and checks that each received each of the others' `count` mail once, in order.
        func expectEveryMailOnceInOrder(_ peers: [Peer], count: Int = count) async throws {
            for peer in peers { peer.send("finish") }
            for peer in peers {
                let report = try await peer.report()
                let others = peers.filter { $0 !== peer }.map(\.origin)
                #expect(report.counts == Dictionary(uniqueKeysWithValues: others.map { ($0, count) }))
                #expect(report.duplicates.isEmpty)
                #expect(report.outOfOrder.isEmpty)
                #expect(report.misattributed == 0)
                #expect(report.failures.isEmpty)
                #expect(report.unsent == 0)
                #expect(try await peer.exitStatus() == 0)
            }
        }

        @Test(
            "three processes each post 1,000 mail of three types and many sizes; each receives every other's once, in order"
        )
        func threeProcesses() async throws {
            let peers = try await startPeers()
            post(peers, 0, Self.count)
            try await expectEveryMailOnceInOrder(peers)
        }

        @Test("the same while the listeners' connections are killed twice and the server restarts, mid-run")
        func threeProcessesThroughKillsAndARestart() async throws {
            let peers = try await startPeers()
            post(peers, 0, 350)
            let firstKill = try await Server.terminateConnections()
            for peer in peers { try await peer.line(startingWith: "posted 350") }
            post(peers, 350, 700)
            let restart = try Server.restart()
            for peer in peers { try await peer.line(startingWith: "posted 700") }
            post(peers, 700, Self.count)
            _ = try await Server.terminateConnections()
            try await expectEveryMailOnceInOrder(peers)

            #expect(firstKill >= 3, "at least each peer's listening connection")
            #expect(restart == 0)
        }

        @Test(
            "a second live process with the same origin is refused, with an error that names the origin and its holder; the first goes on, and loses nothing"
        )
        func sameOrigin() async throws {
            let (shared, other) = (uniqueOrigin("twin"), uniqueOrigin("other"))
            let first = try Peer(shared, count: 200, others: [other])
            try await first.line(startingWith: "ready")
            let second = try Peer(shared, count: 200, others: [other])
            let refusal = try await second.line(startingWith: "refused")
            #expect(try await second.exitStatus() == 3)
            #expect(
                refusal.hasPrefix("refused another live link has the origin \"\(shared)\": it is held by process "),
                "\(refusal)")

            let third = try Peer(other, count: 200, others: [shared])
            try await third.line(startingWith: "ready")
            post([first, third], 0, 200)
            try await expectEveryMailOnceInOrder([first, third], count: 200)
        }
    }
}
#endif
