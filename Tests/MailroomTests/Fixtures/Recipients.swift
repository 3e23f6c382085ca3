// Recipients whose methods record what they receive: plain objects, a main-actor view model and an actor.

import Dispatch
import Mailroom

/// A recipient whose methods record what they receive, prefixed by its name.
final class Screen: Sendable {
    let name: String
    let log: Log

    init(_ name: String, log: Log) {
        self.name = name
        self.log = log
    }

    func receivePing(_ ping: Ping) {
        log.record("\(name) \(ping.n)")
    }

    func receivePingFromDevice(_ ping: Ping, _ device: Device) {
        log.record("\(name) \(ping.n) from \(device.name)")
    }

    func receivePingFromPhone(_ ping: Ping, _ phone: Phone) {
        log.record("\(name) \(ping.n) from \(phone.name)")
    }

    func receivePingFromOptionalDevice(_ ping: Ping, _ device: Device?) {
        log.record("\(name) \(ping.n) from \(device?.name ?? "nil")")
    }

    func receivePong(_ pong: Pong) {
        log.record("\(name) pong \(pong.n)")
    }

    /// Takes mail of any type and ignores it: the arrival is the whole news.
    func refresh<M: Mail>(_: M) {
        log.record("\(name) refresh")
    }

    /// `refresh` as a method for mail of type `M`: `office.register(screen, Screen.refresh(on: Ping.self))`.
    static func refresh<M: Mail>(on _: M.Type) -> @Sendable (Screen) -> (M) -> Void {
        Screen.refresh(_:)
    }

    func receiveLetter(_ letter: Letter) {
        log.record("\(name) letter \(letter.tag)")
    }

    func receiveParcel(_ parcel: Parcel) {
        log.record("\(name) parcel \(parcel.tag)")
    }

    func receiveCrate(_ crate: Crate) {
        log.record("\(name) crate \(crate.tag)")
    }

    func receiveCrateFromDevice(_ crate: Crate, _ device: Device) {
        log.record("\(name) crate \(crate.tag) from \(device.name)")
    }

    func receiveParcelFromOptionalDevice(_ parcel: Parcel, _ device: Device?) {
        log.record("\(name) parcel \(parcel.tag) from \(device?.name ?? "nil")")
    }
}

/// A recipient that records the number carried by each `Ping` it receives.
final class Tally: Sendable {
    let received = Recorder<Int>()

    init() {}

    func receive(_ ping: Ping) {
        received.record(ping.n)
    }
}

/// A recipient that records, in one shared log, each call of its method and the start of its deinit.
final class Mortal: Sendable {
    private let log: Log
    private let calls = Shared(0)
    private let callsBeforeSignal: Int
    private let enoughCalls: DispatchSemaphore

    /// `enoughCalls` is signalled once the method has been called `callsBeforeSignal` times.
    init(log: Log, callsBeforeSignal: Int, enoughCalls: DispatchSemaphore) {
        self.log = log
        self.callsBeforeSignal = callsBeforeSignal
        self.enoughCalls = enoughCalls
    }

    func receive(_ ping: Ping) {
        log.record("call")
        let count = calls.update { calls -> Int in
            calls += 1
            return calls
        }
        if count == callsBeforeSignal {
            enoughCalls.signal()
        }
    }

    deinit {
        log.record("deinit")
    }
}

/// A view model isolated to the main actor, registered by its methods. It records what it receives, with
/// whether it ran on the main queue, on `tape`, which outlives it.
@MainActor
final class PingViewModel {
    let tape: Recorder<String>
    private let onDeinit: Token

    init(tape: Recorder<String>, onDeinit: @escaping @Sendable () -> Void = {}) {
        self.tape = tape
        self.onDeinit = Token(onDeinit: onDeinit)
    }

    func receive(_ ping: Ping) {
        tape.record("ping \(ping.n)\(mainActorEvidence() ? "" : " OFF MAIN")")
    }

    func receiveFromDevice(_ ping: Ping, _ device: Device) {
        tape.record("ping \(ping.n) from \(device.name)\(mainActorEvidence() ? "" : " OFF MAIN")")
    }

    func receiveFromOptionalDevice(_ ping: Ping, _ device: Device?) {
        tape.record("ping \(ping.n) from \(device?.name ?? "nil")\(mainActorEvidence() ? "" : " OFF MAIN")")
    }

    /// Takes its mail and ignores it: a handler for which the arrival of a `Ping` is the whole news.
    func reload(_: Ping) {
        tape.record("reload\(mainActorEvidence() ? "" : " OFF MAIN")")
    }
}

/// A store: an actor that receives mail on itself. `applied` is actor state, that registered closures mutate
/// without `await`.
actor PingStore {
    var applied: [Int] = []
    let tape: Recorder<String>
    private let gate: AsyncGate?
    private let onDeinit: Token

    init(tape: Recorder<String>, gate: AsyncGate? = nil, onDeinit: @escaping @Sendable () -> Void = {}) {
        self.tape = tape
        self.gate = gate
        self.onDeinit = Token(onDeinit: onDeinit)
    }

    /// Synchronous and isolated: registered through a closure that receives the actor as its isolated parameter.
    func apply(_ ping: Ping) {
        applied.append(ping.n)
        tape.record("apply \(ping.n)")
    }

    /// Asynchronous: it suspends between its start and its end; mail 0 waits for the gate, if there is one.
    func record(_ ping: Ping) async {
        tape.record("start \(ping.n)")
        if ping.n == 0, let gate {
            await gate.wait()
        }
        await yieldSeveralTimes()
        applied.append(ping.n)
        tape.record("end \(ping.n)")
    }
}

/// The events a one-at-a-time recipient records for mails `numbers`: start and end of each, in turn.
func startsAndEnds(_ numbers: some Sequence<Int>) -> [String] {
    numbers.flatMap { ["start \($0)", "end \($0)"] }
}
