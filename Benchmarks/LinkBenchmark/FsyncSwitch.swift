#if Postgres && Observability
import Foundation
import Logging
import PostgresNIO

/// Turns the server's fsync on for a while, and back off.
///
/// `ALTER SYSTEM` and a reload are enough when fsync=off comes from a configuration file; when it comes from the
/// server's command line (as with `with-postgres.sh`), the command line wins over `postgresql.auto.conf` and the
/// server has to restart with `fsync=on` instead, through `MAILROOM_POSTGRES_CTL`.
struct FsyncSwitch {
    let socket: String
    let logger: Logger
    /// The server's options before, when it had to restart.
    private(set) var restartedFrom: [String]?

    init(socket: String, logger: Logger) {
        (self.socket, self.logger) = (socket, logger)
    }

    /// How fsync was turned on.
    mutating func turnOn() async throws -> String {
        let reloaded = try await Self.withAdmin(socket: socket, logger: logger) { connection, logger in
            try await execute("ALTER SYSTEM SET fsync = on", on: connection, logger: logger)
            try await execute("SELECT pg_reload_conf()", on: connection, logger: logger)
            let deadline = ContinuousClock.now + .seconds(2)
            while ContinuousClock.now < deadline {
                if try await Self.fsync(on: connection, logger: logger) == "on" { return true }
                try await Task.sleep(for: .milliseconds(50))
            }
            return false
        }
        if reloaded { return "ALTER SYSTEM + pg_reload_conf()" }
        let options = try Self.serverOptions()
        try Self.restart(with: options.map { $0 == "fsync=off" ? "fsync=on" : $0 })
        restartedFrom = options
        guard try await Self.withAdmin(socket: socket, logger: logger, Self.fsync) == "on" else {
            throw BenchmarkError("fsync is still off after a restart with fsync=on")
        }
        return "a restart with -c fsync=on: ALTER SYSTEM + pg_reload_conf() left it off, as the server's command line "
            + "sets fsync=off and wins over postgresql.auto.conf"
    }

    func turnOff() async throws {
        try await Self.withAdmin(socket: socket, logger: logger) { connection, logger in
            try await execute("ALTER SYSTEM RESET fsync", on: connection, logger: logger)
            try await execute("SELECT pg_reload_conf()", on: connection, logger: logger)
        }
        if let restartedFrom { try Self.restart(with: restartedFrom) }
        let deadline = ContinuousClock.now + .seconds(5)
        while try await Self.withAdmin(socket: socket, logger: logger, Self.fsync) != "off" {
            guard ContinuousClock.now < deadline else { throw BenchmarkError("fsync did not go back off") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private static func fsync(on connection: PostgresConnection, logger: Logger) async throws -> String {
        try await firstValue(String.self, "SHOW fsync", on: connection, logger: logger) ?? "?"
    }

    private static func withAdmin<T: Sendable>(
        socket: String, logger: Logger, _ work: (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        try await withConnection(socket: socket, id: 9, logger: logger) { try await work($0, logger) }
    }

    /// The server's command-line options from `postmaster.opts` (`binary "-D" "data" "-k" …`), less the data
    /// folder, which `pg_ctl` passes itself.
    private static func serverOptions() throws -> [String] {
        guard let data = ProcessInfo.processInfo.environment["MAILROOM_POSTGRES_DATA"] else {
            throw BenchmarkError("MAILROOM_POSTGRES_DATA is not set: the server cannot be restarted")
        }
        let line = try String(contentsOfFile: data + "/postmaster.opts", encoding: .utf8)
        var words = line.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
        if let index = words.firstIndex(of: "-D") { words.removeSubrange(index...index + 1) }
        guard words.contains("fsync=off") else { throw BenchmarkError("no fsync=off in \(line)") }
        return words
    }

    private static func restart(with options: [String]) throws {
        guard let ctl = ProcessInfo.processInfo.environment["MAILROOM_POSTGRES_CTL"] else {
            throw BenchmarkError("MAILROOM_POSTGRES_CTL is not set: the server cannot be restarted")
        }
        // pg_ctl hands the options to a shell.
        let quoted = options.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ctl)
        process.arguments = ["restart", "-w", "-t", "60", "-m", "fast", "-o", quoted.joined(separator: " ")]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("pg_ctl restart exited with \(process.terminationStatus): \(message)")
        }
    }
}
#endif
