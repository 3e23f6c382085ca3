import Foundation
import Mailroom
import MailroomTestSupport
import Testing

/// Random sequences of operations run on a real `PostOffice` and on `ReferenceModel`, a plain list of
/// registrations scanned by priority then registration order, compared after every operation: the deliveries
/// (what each handler then did: returned, threw or consumed the mail, in order), the reports of failures
/// (deliveries of `DeliveryFailure`, and what the office's fallback got) and `registrationCount`.
///
/// A failure records the seed and the shortest failing sequence found by shrinking. Replay one seed with
/// `MAILROOM_MODEL_SEED=<seed> swift test --filter Model`, which also prints its whole sequence; run more
/// sequences with `MAILROOM_STRESS_SCALE`.
@Suite("Model-based: random operation sequences deliver what a reference model of the rules predicts")
struct ModelBasedTests {
    /// The first seed of the standard sequences; sequence `i` uses `firstSeed + i`.
    static let firstSeed: UInt64 = 0x4D61_696C_0000
    /// The first seed of the churn sequences.
    static let firstChurnSeed: UInt64 = 0x4D61_696C_8000_0000
    /// The first seed of the re-entrant sequences.
    static let firstReentrantSeed: UInt64 = 0x4D61_696C_4000_0000

    /// A seed to replay alone, from `MAILROOM_MODEL_SEED`.
    static let replayedSeed = ProcessInfo.processInfo.environment["MAILROOM_MODEL_SEED"].flatMap { UInt64($0) }

    /// The seeds to run: the replayed one, or `count` × `stressScale` from `first`.
    static func seeds(from first: UInt64, count: Int) -> [UInt64] {
        if let replayedSeed { return [replayedSeed] }
        return (0..<UInt64(count * stressScale)).map { first + $0 }
    }

    @Test(
        "Thousands of short random sequences of registrations at several priorities, posts, unregistrations, deaths, queues, re-entrant, throwing and consuming handlers, and recipients of DeliveryFailure deliver and report exactly what the model predicts",
        arguments: CountCheck.allCases)
    func shortSequencesMatchTheModel(countCheck: CountCheck) {
        let total = Self.check(.standard, Self.seeds(from: Self.firstSeed, count: 2000), countCheck: countCheck)
        if Self.replayedSeed == nil {
            #expect(total.nestedDeliveries > 0, "no handler posted nested mail: the generator lost re-entrancy")
            #expect(total.failureReports > 0 && total.unheardFailures > 0, "failures were not both heard and unheard")
            #expect(total.consumptions > 0, "no interceptor consumed mail")
        }
    }

    @Test(
        "Long sequences that register and unregister hundreds of times, so the office grows, compacts and reclaims its tables, deliver exactly what the model predicts",
        arguments: CountCheck.allCases)
    func longSequencesMatchTheModel(countCheck: CountCheck) {
        let total = Self.check(.churn, Self.seeds(from: Self.firstChurnSeed, count: 40), countCheck: countCheck)
        if Self.replayedSeed == nil {
            // The office sweeps dead registrations in bulk from 64 registrations on.
            #expect(total.registrationsMade >= 64, "the churn sequences no longer make many registrations")
        }
    }

    @Test(
        "Short sequences whose handlers mostly register many or unregister recipients later in their own post, outgrowing and compacting the routes being walked, deliver exactly what the model predicts",
        arguments: CountCheck.allCases)
    func reentrantSequencesMatchTheModel(countCheck: CountCheck) {
        Self.check(.reentrant, Self.seeds(from: Self.firstReentrantSeed, count: 1000), countCheck: countCheck)
    }

    /// Runs the sequences of `seeds` and records an issue, with the shrunk sequence, for each of the first three
    /// that fail. Returns the totals, `registrationsMade` being the most made by one sequence.
    @discardableResult
    private static func check(_ profile: ModelProfile, _ seeds: [UInt64], countCheck: CountCheck) -> ModelRunResult {
        var total = ModelRunResult()
        var sequences = 0
        var failures = 0
        for seed in seeds {
            sequences += 1
            let operations = OperationGenerator.sequence(seed: seed, profile: profile)
            if replayedSeed != nil, countCheck == .afterEveryOperation {
                let lines = operations.enumerated().map { "  \($0.offset + 1). \($0.element)" }
                print((["Sequence of seed \(seed), \(profile):"] + lines).joined(separator: "\n"))
            }
            let result = ModelHarness.run(operations, countCheck: countCheck)
            total.add(result)
            if result.mismatch != nil {
                let report = ModelHarness.report(
                    seed: seed, profile: profile, operations: operations, countCheck: countCheck)
                Issue.record(Comment(rawValue: report.text))
                failures += 1
                // A few shrunk failures say enough; shrinking every one would take long.
                if failures == 3 { break }
            }
        }
        print(
            "Model-based, \(profile) sequences, \(countCheck): \(sequences) sequences, \(total.operations) "
                + "operations, \(total.deliveries) deliveries compared (\(total.nestedDeliveries) in nested posts), "
                + "\(total.failures) failures compared (\(total.failureReports) deliveries of DeliveryFailure, "
                + "\(total.unheardFailures) failures to the fallback), \(total.consumptions) consumptions compared, "
                + "\(failures) failing")
        #expect(total.deliveries > 0)
        return total
    }

    @Test(
        "The harness detects a model that breaks one rule, and shrinks the failure to a few operations",
        arguments: ModelFlaw.allCases)
    func harnessDetectsAWrongModel(flaw: ModelFlaw) throws {
        let found = (0..<UInt64(500)).lazy.map { Self.firstSeed + $0 }.compactMap { seed in
            let operations = OperationGenerator.sequence(seed: seed)
            return ModelHarness.run(operations, countCheck: .afterEveryOperation, flaw: flaw).mismatch == nil
                ? nil : (seed, operations)
        }.first
        let (seed, operations) = try #require(found, "no sequence of 500 tells the model with flaw \(flaw) apart")

        let report = ModelHarness.report(
            seed: seed, profile: .standard, operations: operations, countCheck: .afterEveryOperation, flaw: flaw)

        print("Flaw \(flaw): seed \(seed) fails; shrunk from \(operations.count) to \(report.shrunk.count) operations")
        #expect(report.shrunk.count <= 6, "\(report.text)")
        #expect(ModelHarness.run(report.shrunk, countCheck: .afterEveryOperation, flaw: flaw).mismatch != nil)
        #expect(ModelHarness.run(report.shrunk, countCheck: .afterEveryOperation).mismatch == nil)
        #expect(report.text.contains("seed \(seed)"))
        #expect(report.text.contains("first difference") || report.text.contains("<- differs"))
    }

    @Test("A seed generates the same sequence every time, and different seeds different sequences")
    func generatorIsDeterministic() {
        let seed = Self.firstSeed + 7
        #expect(OperationGenerator.sequence(seed: seed) == OperationGenerator.sequence(seed: seed))
        #expect(OperationGenerator.sequence(seed: seed) != OperationGenerator.sequence(seed: seed + 1))
        var random = SplitMix64(seed: 0)
        // The published first output of SplitMix64 seeded with 0.
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
    }

    @Test(
        "The generated sequences use every register and intercept overload, plain and queued, as closure and as method, every priority, throwing and consuming handlers, recipients of DeliveryFailure of every form, and every operation and action"
    )
    func generatorCoversEveryForm() {
        var overloads: Set<String> = []
        var operations: Set<String> = []
        var actions: Set<String> = []
        var senderClasses: Set<ModelObjectClass> = []
        var mailTypes: Set<ModelMailType> = []
        var priorities: Set<Int16> = []
        var throwing: Set<String> = []
        var consuming: Set<String> = []
        var failureForms: Set<String> = []
        var throughSuperclass = 0
        for seed in (0..<UInt64(500)).map({ Self.firstSeed + $0 }) {
            for operation in OperationGenerator.sequence(seed: seed) {
                switch operation {
                case .register(_, let spec):
                    operations.insert("register")
                    let verb = spec.consumesOn != nil ? "intercepting " : spec.queued ? "queued " : ""
                    // An interceptor with a recipient is a closure tied to it: there are no intercepting methods.
                    let recipient =
                        spec.recipient == nil ? "closure" : spec.consumesOn != nil ? "tied closure" : "method"
                    overloads.insert("\(verb)\(recipient) \(spec.form.overload)")
                    mailTypes.insert(spec.mail)
                    priorities.insert(spec.priority)
                    if case .kind(let senderClass) = spec.form { senderClasses.insert(senderClass) }
                    if let action = spec.action { actions.insert(Self.kind(of: action)) }
                    if let trigger = spec.throwsOn {
                        throwing.insert("\(spec.queued ? "queued " : "")\(Self.kind(of: trigger))")
                        if spec.mail == .failure || spec.form.isCatchAll { throwing.insert("on reports") }
                    }
                    if let trigger = spec.consumesOn { consuming.insert(Self.kind(of: trigger)) }
                    if spec.mail == .failure, !spec.form.isCatchAll { failureForms.insert(spec.form.overload) }
                case .post(let spec):
                    operations.insert(spec.sender == nil ? "post" : "post with sender")
                    if spec.staticType != spec.mail { throughSuperclass += 1 }
                case .unregister: operations.insert("unregister")
                case .unregisterObject: operations.insert("unregister object")
                case .unregisterForeignId: operations.insert("unregister foreign id")
                case .kill: operations.insert("kill")
                case .drainQueue: operations.insert("drain queue")
                }
            }
        }
        // 7 forms × closure and method × plain and queued, 7 × 2 interceptors (closure, tied closure), 2 catch-alls ×
        // plain and queued.
        #expect(overloads.count == 28 + 14 + 4, "\(overloads.sorted())")
        #expect(operations.count == 8, "\(operations.sorted())")
        #expect(
            actions == [
                "post", "register one", "register many", "unregister", "unregister all made by", "unregister object",
                "read count",
            ])
        #expect(senderClasses == [.device, .phone, .stranger])
        #expect(mailTypes.count == ModelMailType.allCases.count)
        #expect(priorities == [0, 10, -10, 100])
        #expect(
            throwing == ["never", "always", "number", "queued never", "queued always", "queued number", "on reports"],
            "\(throwing.sorted())")
        #expect(consuming == ["never", "always", "number"])
        #expect(failureForms.count == 7, "\(failureForms.sorted())")
        #expect(throughSuperclass > 0)
    }

    private static func kind(of trigger: ModelTrigger) -> String {
        switch trigger {
        case .never: "never"
        case .always: "always"
        case .number: "number"
        }
    }

    private static func kind(of action: ModelAction) -> String {
        switch action {
        case .post: "post"
        case .register(_, let times): times == 1 ? "register one" : "register many"
        case .unregister: "unregister"
        case .unregisterAllMadeBy: "unregister all made by"
        case .unregisterObject: "unregister object"
        case .readCount: "read count"
        }
    }
}
