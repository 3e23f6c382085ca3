#if Postgres && Observability
import Foundation
import Mailroom
import MailroomPostgres

/// The fields of every mail the benchmark sends: its number in its run, the sender's clock when it was sent, and
/// about 100 bytes of text that start with the run's number. Each path has types of its own, and so channels of its
/// own: one path's mail never reaches another path's recipients, and all carry the same bytes of JSON.
protocol BenchLetter: LinkedMail {
    var index: Int { get }
    var sentAt: UInt64 { get }
    var text: String { get }
    init(index: Int, sentAt: UInt64, text: String)
}

extension BenchLetter {
    static func post(_ index: Int, _ sentAt: UInt64, _ text: String, on office: PostOffice) {
        office.post(Self(index: index, sentAt: sentAt, text: text))
    }

    /// Has `subscription` hand this type's mail to `collector`, as mail of `path`.
    static func subscribe(_ subscription: PostgresSubscription, as path: Path, _ collector: Collector) throws {
        try subscription.receive(Self.self) { mail, _ in collector.handled(mail, on: path) }
    }
}

/// The plain link's mail, which the receivers' offices receive (and the raw path's payload, as JSON).
struct BenchMail: BenchLetter {
    let index: Int
    let sentAt: UInt64
    let text: String
}

// The durable subscription's mail, on eight channels ("lanes"): the main table's runs use the first; the consumer
// group's runs spread their mail over all eight, so that the group's processes can share them (a subscription's
// channel is read by one process at a time).
struct DurableMail0: BenchLetter { let index: Int, sentAt: UInt64, text: String }
struct DurableMail1: BenchLetter { let index: Int, sentAt: UInt64, text: String }
struct DurableMail2: BenchLetter { let index: Int, sentAt: UInt64, text: String }
struct DurableMail3: BenchLetter { let index: Int, sentAt: UInt64, text: String }
struct DurableMail4: BenchLetter { let index: Int, sentAt: UInt64, text: String }
struct DurableMail5: BenchLetter { let index: Int, sentAt: UInt64, text: String }
struct DurableMail6: BenchLetter { let index: Int, sentAt: UInt64, text: String }
struct DurableMail7: BenchLetter { let index: Int, sentAt: UInt64, text: String }

/// Mail number `i` of a durable run over `n` lanes goes on lane `i % n`.
let durableLanes: [any BenchLetter.Type] = [
    DurableMail0.self, DurableMail1.self, DurableMail2.self, DurableMail3.self,
    DurableMail4.self, DurableMail5.self, DurableMail6.self, DurableMail7.self,
]

/// The plain link's mail, posted in a trace: its context travels with it.
struct TracedMail: BenchLetter {
    let index: Int
    let sentAt: UInt64
    let text: String
}

/// The transactional subscription's mail.
struct TransactionalMail: BenchLetter {
    let index: Int
    let sentAt: UInt64
    let text: String
}

/// The mail a subscription catches up on after its process was down.
struct CatchUpMail: BenchLetter {
    let index: Int
    let sentAt: UInt64
    let text: String
}

/// Every type the links carry, in every process but the catch-up ones.
let carried: [any LinkedMail.Type] =
    [BenchMail.self, TracedMail.self, TransactionalMail.self, CatchUpMail.self]
    + durableLanes.map { $0 as any LinkedMail.Type }

/// How mail travels from the sender to a receiver, and what receives it there.
enum Path: String, Codable, Sendable, CaseIterable {
    /// `SELECT pg_notify` of the mail's JSON, `LISTEN` on a connection of the receiver's.
    case raw
    /// A post on the sender's office, the receiver's office (the plain link).
    case link
    /// A post inside a trace, the receiver's office: the plain link, with the poster's context injected into the
    /// mail and extracted by the receiver (``tracing``).
    case traced
    /// A post, the receiver's durable subscription with a plain recipient.
    case durable
    /// A post, the receiver's durable subscription whose recipient inserts a row in the subscription's transaction.
    case transactional
    /// A post, then a subscription that catches up (or, in the main receiver, the plain link: see
    /// ``Session/catchUp(count:)``).
    case catchUp

    /// Whether the receivers share the path's mail (a consumer group: each mail is handled by one of them) rather
    /// than each receiving all of it.
    var isShared: Bool { self == .durable || self == .transactional }
}

/// The raw path's channel.
let rawChannel = "mailroom_bench_raw"

/// The JSON the link sends for the same mail (it sorts keys too), so that the raw path carries the same bytes.
func json(_ mail: some BenchLetter) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(mail), as: UTF8.self)
}

/// About 100 bytes, starting with the run's number so that a receiver can tell a late mail of an earlier run.
func text(forRun run: Int) -> String {
    let tag = "run=\(run);"
    return tag + String(repeating: "x", count: 100 - tag.utf8.count)
}

func runNumber(of text: String) -> Int? {
    guard text.hasPrefix("run=") else { return nil }
    return Int(text.dropFirst(4).prefix { $0 != ";" })
}
#endif
