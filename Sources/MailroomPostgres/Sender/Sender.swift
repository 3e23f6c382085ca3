#if Postgres
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// Sends this process's posts of carried types: the office's recipients queue them on the posting thread
/// (``forward(_:)``), and ``run(on:_:)`` writes them to the outbox, doing what ``SenderStateMachine`` says.
final class Sender: Sendable {
    private let machine: NIOLockedValueBox<SenderStateMachine>
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let telemetry: LinkTelemetry

    init(origin: String, link: Int64, limit: Int, telemetry: LinkTelemetry) {
        machine = NIOLockedValueBox(SenderStateMachine(origin: origin, link: link, limit: limit))
        self.telemetry = telemetry
        (wakes, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The mail queued and not yet known to be written.
    var unsent: Int { machine.withLockedValue(\.unsent) }

    /// Queues `mail`, unless it is the echo of mail this process sent in a transaction.
    /// - Throws: ``PostgresLinkError/Code/queueFull`` when the queue is full: the mail is not sent.
    func forward(_ mail: Outgoing) throws {
        let (enqueued, unsent) = machine.withLockedValue { machine in
            let enqueued = machine.enqueue(mail)
            // Under the lock, so that the gauge's values come in the order the count took them.
            if enqueued == .queued { telemetry.unsent(machine.unsent) }
            return (enqueued, machine.unsent)
        }
        switch enqueued {
        case .queued:
            wake.yield()
        case .echo: break
        case .full: throw PostgresLinkError(.queueFull, name: mail.linkedName, channel: mail.channel, size: unsent)
        }
    }

    func expectEcho(of mail: Outgoing) {
        machine.withLockedValue { $0.expectEcho(of: mail) }
    }

    func forgetEcho(of mail: Outgoing) {
        machine.withLockedValue { $0.forgetEcho(of: mail) }
    }

    /// Writes what is queued, then makes ``run(on:_:)`` return: the link is shutting down gracefully.
    func stop() {
        machine.withLockedValue { $0.stop() }
        wake.yield()
    }

    /// Writes queued mail until ``stop()`` (and the queue is written, or the database fails) or cancellation.
    ///
    /// It leases a connection from `client` when there is mail to write, and keeps it while mail is unconfirmed.
    func run(on client: PostgresClient, _ core: LinkCore) async {
        var wakes = self.wakes.makeAsyncIterator()
        while true {
            let action = machine.withLockedValue { $0.next() }
            switch action {
            case .finish:
                return logUnsent(core)
            case .wait:
                guard await wakes.next() != nil else { return logUnsent(core) }
            case .lookUp, .write, .confirm:
                do {
                    if machine.withLockedValue(\.isStopping) {
                        // Shutting down: a database that is gone must not hold it up beyond a few timeouts.
                        try await within(core.configuration.queryTimeout, closing: nil) {
                            try await self.perform(action, on: client, core)
                        }
                    } else {
                        try await perform(action, on: client, core)
                    }
                } catch {
                    let delay = machine.withLockedValue { machine in
                        machine.failed()
                        return machine.retryDelay
                    }
                    if Task.isCancelled { return logUnsent(core) }
                    core.logger.warning(
                        "cannot write to the outbox; retrying",
                        metadata: ["error": "\(String(reflecting: error))", "unsent": "\(unsent)"])
                    try? await Task.sleep(for: delay)
                }
            }
        }
    }

    /// Performs `action` and those that follow it on a connection leased from `client`, until the machine says
    /// to wait or finish.
    private func perform(_ action: SenderStateMachine.Action, on client: PostgresClient, _ core: LinkCore)
        async throws
    {
        try await client.withConnection { connection in
            try await self.perform(action, on: connection, core)
        }
    }

    private func perform(_ first: SenderStateMachine.Action, on connection: PostgresConnection, _ core: LinkCore)
        async throws
    {
        var action = first
        while true {
            switch action {
            case .lookUp(let numbers):
                let committed = try await core.answer(on: connection) { outbox, connection in
                    try await outbox.committed(numbers, of: core.id, on: connection)
                }
                confirm { $0.lookedUp(committed) }
            case .write(let batches):
                for batch in batches {
                    try await core.answer(on: connection) { try await $0.write(batch, on: $1) }
                }
                confirm { $0.succeeded() }
            case .confirm:
                try await core.answer(on: connection) { try await $0.ping(on: $1) }
                confirm { $0.succeeded() }
            case .wait, .finish:
                return
            }
            action = machine.withLockedValue { $0.next() }
        }
    }

    /// Tells the machine what confirmed mail (`event`), and counts that mail and what is left unsent.
    private func confirm(_ event: (inout SenderStateMachine) -> [String: Int]) {
        machine.withLockedValue { machine in
            let sent = event(&machine)
            guard !sent.isEmpty else { return }
            telemetry.sent(sent)
            telemetry.unsent(machine.unsent)
        }
    }

    private func logUnsent(_ core: LinkCore) {
        let unsent = self.unsent
        if unsent > 0 { core.logger.error("the link stopped with mail unsent", metadata: ["unsent": "\(unsent)"]) }
    }
}
#endif
