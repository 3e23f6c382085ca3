// Runs a sequence on a fresh real office and on the reference model, compares them after every operation,
// and shrinks a failing sequence to a short one.

import Mailroom

/// When `registrationCount` is compared. Reading it reclaims dead registrations, which changes what later
/// posts walk, so every sequence runs both ways.
enum CountCheck: String, CaseIterable, Sendable, CustomStringConvertible {
    /// After every operation.
    case afterEveryOperation
    /// Only after the last operation (and when a handler reads it), so dead registrations stay until a sweep.
    case atTheEnd

    var description: String {
        switch self {
        case .afterEveryOperation: "registrationCount compared after every operation"
        case .atTheEnd: "registrationCount compared after the last operation only"
        }
    }
}

/// The first difference between the real office and the model.
struct ModelMismatch: CustomStringConvertible {
    /// The index of the operation after which they differ.
    let operationIndex: Int
    let expected: [ModelEvent]
    let actual: [ModelEvent]
    let expectedCount: Int?
    let actualCount: Int?
    /// Whether they differ after the office was released, at the end of the sequence.
    let isEnd: Bool

    var description: String {
        var lines = [isEnd ? "After releasing the office at the end:" : "After operation \(operationIndex + 1):"]
        if expected != actual {
            let index =
                (0..<min(expected.count, actual.count)).first { expected[$0] != actual[$0] }
                ?? min(expected.count, actual.count)
            let wanted = index < expected.count ? "\(expected[index])" : "nothing more"
            let got = index < actual.count ? "\(actual[index])" : "nothing more"
            lines.append("  first difference at delivery \(index + 1): expected \(wanted), got \(got)")
            lines.append("  expected (model):    \(Self.list(expected, around: index))")
            lines.append("  actual (PostOffice): \(Self.list(actual, around: index))")
        }
        if let expectedCount, let actualCount {
            let verdict = expectedCount == actualCount ? "" : "  <- differs"
            lines.append("  registrationCount: expected \(expectedCount), actual \(actualCount)\(verdict)")
        }
        return lines.joined(separator: "\n")
    }

    /// The events, or those around `index` when there are many.
    private static func list(_ events: [ModelEvent], around index: Int) -> String {
        guard !events.isEmpty else { return "(no deliveries)" }
        let shown = max(0, min(index - 3, events.count - 10))..<min(events.count, max(index - 3, 0) + 10)
        var text = events[shown].map(\.description).joined(separator: "; ")
        if shown.lowerBound > 0 {
            text = "(\(shown.lowerBound) earlier) … " + text
        }
        if shown.upperBound < events.count {
            text += " … (\(events.count - shown.upperBound) more)"
        }
        return text
    }
}

struct ModelRunResult {
    /// Operations applied (all of them unless there was a mismatch).
    var operations = 0
    /// Log entries compared: deliveries, and counts read by handlers.
    var deliveries = 0
    /// Deliveries made in nested posts.
    var nestedDeliveries = 0
    /// Handlers that threw, among the deliveries compared.
    var failures = 0
    /// Deliveries of `DeliveryFailure`, among the deliveries compared.
    var failureReports = 0
    /// Failures the fallback got, compared.
    var unheardFailures = 0
    /// Interceptors that consumed the mail, among the deliveries compared.
    var consumptions = 0
    /// Registrations made, by operations and handlers.
    var registrationsMade = 0
    var mismatch: ModelMismatch?
}

extension ModelRunResult {
    /// Counts the events of one step, compared and equal.
    fileprivate mutating func count(_ events: [ModelEvent]) {
        for event in events {
            switch event {
            case .delivered(_, _, let mail, _, let outcome):
                deliveries += 1
                if outcome == .threw { failures += 1 }
                if outcome == .consumed { consumptions += 1 }
                if mail.hasPrefix("\(ModelMailType.failure)(") { failureReports += 1 }
            case .counted:
                deliveries += 1
            case .unheard:
                unheardFailures += 1
            }
        }
    }

    /// Adds the counts of `other`; `registrationsMade` becomes the larger.
    mutating func add(_ other: ModelRunResult) {
        operations += other.operations
        deliveries += other.deliveries
        nestedDeliveries += other.nestedDeliveries
        failures += other.failures
        failureReports += other.failureReports
        unheardFailures += other.unheardFailures
        consumptions += other.consumptions
        registrationsMade = max(registrationsMade, other.registrationsMade)
    }
}

enum ModelHarness {
    /// Applies `operations` to a fresh office and to the model, comparing the logs after every operation and
    /// the registration counts as `countCheck` says; then releases the office, which must drop the queued
    /// deliveries that have not started. Stops at the first mismatch.
    static func run(_ operations: [ModelOperation], countCheck: CountCheck, flaw: ModelFlaw? = nil) -> ModelRunResult {
        var result = ModelRunResult()
        var model = ReferenceModel(flaw: flaw)
        let live = applyOnFreshOffice(operations, countCheck: countCheck, to: &model, result: &result)
        defer { live.close() }
        guard result.mismatch == nil else { return result }
        // The office is gone: `applyOnFreshOffice` held its only reference.
        model.releaseOffice()
        live.drainQueue()
        compare(live, &model, after: operations.count, expectedCount: nil, actualCount: nil, &result)
        result.nestedDeliveries = live.nestedDeliveries
        result.registrationsMade = model.registrationsMade
        return result
    }

    private static func applyOnFreshOffice(
        _ operations: [ModelOperation], countCheck: CountCheck, to model: inout ReferenceModel,
        result: inout ModelRunResult
    ) -> LiveOffice {
        let (office, live) = LiveOffice.make()
        withExtendedLifetime(office) {
            for (index, operation) in operations.enumerated() {
                live.apply(operation)
                model.apply(operation)
                result.operations += 1
                let compareCount = countCheck == .afterEveryOperation || index == operations.count - 1
                compare(
                    live, &model, after: index, expectedCount: compareCount ? model.registrationCount : nil,
                    actualCount: compareCount ? live.registrationCount : nil, &result)
                if result.mismatch != nil { return }
            }
        }
        return live
    }

    /// Compares the logs of one step (an operation, or releasing the office at `index == operations.count`),
    /// records a mismatch or counts the deliveries, and empties the logs.
    private static func compare(
        _ live: LiveOffice, _ model: inout ReferenceModel, after index: Int, expectedCount: Int?, actualCount: Int?,
        _ result: inout ModelRunResult
    ) {
        if live.events != model.events || actualCount != expectedCount {
            result.mismatch = ModelMismatch(
                operationIndex: index, expected: model.events, actual: live.events, expectedCount: expectedCount,
                actualCount: actualCount, isEnd: index == result.operations)
        } else {
            result.count(live.events)
        }
        live.clearEvents()
        model.events.removeAll()
    }

    /// A shorter sequence that still fails: removes chunks of operations, then single ones, and simplifies
    /// the rest, for as long as the sequence still fails.
    static func shrink(_ operations: [ModelOperation], fails: ([ModelOperation]) -> Bool) -> [ModelOperation] {
        var current = operations
        var changed = true
        while changed {
            changed = false
            var chunk = max(1, current.count / 2)
            while chunk >= 1 {
                var start = 0
                while start < current.count {
                    var candidate = current
                    candidate.removeSubrange(start..<min(start + chunk, current.count))
                    if fails(candidate) {
                        current = candidate
                        changed = true
                    } else {
                        start += chunk
                    }
                }
                chunk /= 2
            }
            for index in current.indices {
                for simpler in current[index].simplifications {
                    var candidate = current
                    candidate[index] = simpler
                    if fails(candidate) {
                        current = candidate
                        changed = true
                        break
                    }
                }
            }
        }
        return current
    }

    /// Shrinks the failing sequence of `seed` and describes it, with how to replay it.
    static func report(
        seed: UInt64, profile: ModelProfile, operations: [ModelOperation], countCheck: CountCheck,
        flaw: ModelFlaw? = nil
    ) -> (shrunk: [ModelOperation], text: String) {
        let shrunk = shrink(operations) { run($0, countCheck: countCheck, flaw: flaw).mismatch != nil }
        let mismatch = run(shrunk, countCheck: countCheck, flaw: flaw).mismatch
        let replay =
            flaw.map { "the model has the deliberate flaw \($0)" }
            ?? "replay with MAILROOM_MODEL_SEED=\(seed) swift test --filter Model"
        var lines = [
            "PostOffice differs from the reference model: seed \(seed), \(profile) sequence, \(countCheck); \(replay)",
            "Shortest failing sequence (\(shrunk.count) of \(operations.count) operations):",
        ]
        lines += shrunk.enumerated().map { "  \($0.offset + 1). \($0.element)" }
        lines.append(mismatch.map(\.description) ?? "(the shrunk sequence no longer fails)")
        return (shrunk, lines.joined(separator: "\n"))
    }
}
