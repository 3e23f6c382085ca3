#if Postgres && Observability
import Foundation
import NIOConcurrencyHelpers

/// The lines the receiving processes write, each kept with the number of the process until someone takes it, and
/// the waits for them.
final class Mailbox: Sendable {
    private struct Waiter {
        /// The process whose line it waits for, or `nil` for any.
        let child: Int?
        let words: String
        let continuation: CheckedContinuation<String?, Never>
    }

    private struct State {
        var lines: [(child: Int, text: String)] = []
        /// The processes whose output has ended.
        var ended: Set<Int> = []
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
    }

    private let state = NIOLockedValueBox(State())

    func append(_ text: String, from child: Int) {
        let waiter = state.withLockedValue { state -> Waiter? in
            guard let match = state.waiters.first(where: { Self.matches(text, from: child, $0.value) }) else {
                state.lines.append((child, text))
                return nil
            }
            state.waiters[match.key] = nil
            return match.value
        }
        waiter?.continuation.resume(returning: text)
    }

    /// `child`'s output has ended: its lines, once taken, are all there will be.
    func end(_ child: Int) {
        let waiters = state.withLockedValue { state in
            state.ended.insert(child)
            let ending = state.waiters.filter { $0.value.child == child }
            for id in ending.keys { state.waiters[id] = nil }
            return ending.values
        }
        for waiter in waiters { waiter.continuation.resume(returning: nil) }
    }

    /// Takes the first line of `child` (of any process when `nil`) whose first words are `words`, waiting up to
    /// `limit` for it.
    /// - Throws: ``TimedOut``, or ``BenchmarkError`` when the process's output ended first.
    func take(_ words: String, from child: Int?, within limit: Duration) async throws -> String {
        let what = "\"\(words)\" from " + (child.map { "receiver \($0)" } ?? "a receiver")
        return try await within(limit, what) {
            guard let line = await self.take(words, from: child) else {
                throw BenchmarkError("the output of receiver \(child ?? -1) ended before \(what)")
            }
            return line
        }
    }

    /// The line, or `nil` when the process's output ended first or the waiting task is cancelled.
    private func take(_ words: String, from child: Int?) async -> String? {
        let id = state.withLockedValue { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waiter = Waiter(child: child, words: words, continuation: continuation)
                let found = state.withLockedValue { state -> String?? in
                    if let index = state.lines.firstIndex(where: { Self.matches($0.text, from: $0.child, waiter) }) {
                        return state.lines.remove(at: index).text
                    }
                    if let child, state.ended.contains(child) { return .some(nil) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = waiter
                    return nil
                }
                if let found { continuation.resume(returning: found) }
            }
        } onCancel: {
            state.withLockedValue { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: nil)
        }
    }

    private static func matches(_ text: String, from child: Int, _ waiter: Waiter) -> Bool {
        (waiter.child == nil || waiter.child == child) && (text == waiter.words || text.hasPrefix(waiter.words + " "))
    }
}

/// A receiving process: a copy of this program started with `arguments`, its standard input for commands, its
/// standard output read into the session's mailbox under its number.
final class Child: Sendable {
    let number: Int
    private let process: Process
    private let input: FileHandle
    private let mailbox: Mailbox
    private let exited: Occurrence

    init(_ arguments: [String], number: Int, mailbox: Mailbox) throws {
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        let (toChild, fromChild) = (Pipe(), Pipe())
        process.standardInput = toChild
        process.standardOutput = fromChild
        let exited = Occurrence()
        process.terminationHandler = { _ in exited.happen() }
        readLines(
            of: fromChild.fileHandleForReading, { mailbox.append($0, from: number) }, end: { mailbox.end(number) })
        try process.run()
        (self.number, self.process, self.input, self.mailbox) = (number, process, toChild.fileHandleForWriting, mailbox)
        self.exited = exited
    }

    func send(_ command: String) throws {
        try input.write(contentsOf: Data((command + "\n").utf8))
    }

    /// Takes this process's first line whose first words are `words`, waiting up to `limit` for it.
    func line(_ words: String, within limit: Duration) async throws -> String {
        try await mailbox.take(words, from: number, within: limit)
    }

    /// Sends `command` and takes the answer, whose first words are `words`.
    func answer(_ command: String, _ words: String, within limit: Duration = .seconds(10)) async throws -> String {
        try send(command)
        return try await line(words, within: limit)
    }

    /// Asks the process to quit; terminates it, then kills it, when it does not.
    func stop() async {
        try? send("quit")
        for (limit, stopSignal) in [(Duration.seconds(5), SIGTERM), (.seconds(2), SIGKILL)] {
            _ = try? await within(limit, "receiver \(number)'s exit") { await self.exited.wait() }
            guard !exited.hasHappened else { return }
            kill(process.processIdentifier, stopSignal)
        }
        _ = try? await within(.seconds(2), "receiver \(number)'s exit") { await self.exited.wait() }
    }
}
#endif
