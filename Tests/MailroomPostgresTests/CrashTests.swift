#if Postgres
import Foundation
import PostgresNIO
import Testing

@testable import MailroomPostgres

/// One `handled` line of a subscriber peer: a mail its recipient returned from.
struct Handling: Hashable {
    let channel: String
    let sequence: Int64
    /// The posting origin and the mail's index.
    let mail: String

    /// The `handled` lines `peer` has printed, in order.
    static func all(of peer: Peer) -> [Handling] {
        peer.lines.compactMap { line in
            let words = line.split(separator: " ")
            guard words.count == 5, words[0] == "handled", let sequence = Int64(words[2]) else { return nil }
            return Handling(channel: String(words[1]), sequence: sequence, mail: "\(words[3]) \(words[4])")
        }
    }
}

extension DatabaseTests {
    @Suite("Subscriptions across crashes")
    struct CrashTests {
        static let count = 600

        /// A poster peer on `apart`'s tables, listening.
        func poster(_ apart: Apart) async throws -> Peer {
            let poster = try Peer(uniqueOrigin("poster"), count: 0, others: [], prefix: apart.prefix)
            try await poster.line(startingWith: "ready")
            return poster
        }

        /// A subscriber peer of the subscription `durable` on `apart`'s tables, listening.
        func subscriber(_ apart: Apart, _ options: [String] = []) async throws -> Peer {
            let origin = uniqueOrigin("subscriber")
            let peer = try Peer(origin, arguments: ["--subscribe", "durable", origin] + options, prefix: apart.prefix)
            try await peer.line(startingWith: "ready")
            return peer
        }

        /// Checks that `before` then `after` handled each channel's mail in order, `after` starting after the last
        /// mail `before` handled, or at most `batch` mail before that (those whose position was not stored yet);
        /// returns how many mail were handled twice.
        func expectInOrder(_ before: [Handling], then after: [Handling], batch: Int) -> Int {
            for channel in Set((before + after).map(\.channel)) {
                let first = before.filter { $0.channel == channel }.map(\.sequence)
                let second = after.filter { $0.channel == channel }.map(\.sequence)
                #expect(first == first.sorted() && Set(first).count == first.count, "\(channel) in order before")
                #expect(second == second.sorted() && Set(second).count == second.count, "\(channel) in order after")
                if let last = first.last, let next = second.first {
                    #expect(next <= last + 1 && next > last - Int64(batch), "\(channel): \(next) after \(last)")
                }
            }
            return before.count + after.count - Set(before + after).count
        }

        /// Finishes `peers` and expects each to exit with 0.
        func finish(_ peers: [Peer]) async throws {
            for peer in peers { peer.send("finish") }
            for peer in peers { #expect(try await peer.exitStatus() == 0) }
        }

        @Test(
            "a subscriber killed with SIGKILL mid-stream and started again is handed every mail, in order, at least once"
        )
        func killedSubscriberResumes() async throws {
            let apart = Apart()
            let poster = try await poster(apart)
            let first = try await subscriber(apart)
            poster.send("post 0 300")
            try await waitUntil("the first subscriber has handled 100") { Handling.all(of: first).count >= 100 }
            first.kill()
            _ = try await first.exitStatus(within: .seconds(10))
            poster.send("post 300 \(Self.count)")
            try await poster.line(startingWith: "posted \(Self.count)")
            let second = try await subscriber(apart)
            try await waitUntil("every mail is handled", within: .seconds(60)) {
                Set((Handling.all(of: first) + Handling.all(of: second)).map(\.mail)).count == Self.count
            }
            try await finish([second, poster])

            let (before, after) = (Handling.all(of: first), Handling.all(of: second))
            let twice = expectInOrder(before, then: after, batch: Listener.pageSize)
            #expect(Set((before + after).map(\.mail)) == Set((0..<Self.count).map { "\(poster.origin) \($0)" }))
            #expect(twice <= 2 * Listener.pageSize, "at most a batch on each of the two channels")
            print("killed subscriber: \(before.count) handled before the kill, \(after.count) after, \(twice) twice")
        }

        @Test(
            "with its recipient in the transaction, a process killed between its recipient and the commit has each effect once"
        )
        func killedInTransactionHasEachEffectOnce() async throws {
            let apart = Apart()
            let effects = "\(apart.prefix)effects"
            try await Server.withConnection { connection in
                try await connection.query(
                    PostgresQuery(unsafeSQL: "CREATE TABLE \(effects) (channel text NOT NULL, seq bigint NOT NULL)"),
                    logger: Server.logger)
            }
            let poster = try await poster(apart)
            let first = try await subscriber(apart, ["--in-transaction", "--die-at", "150"])
            poster.send("post 0 \(Self.count)")
            _ = try await first.exitStatus(within: .seconds(60))
            #expect(first.terminationReason == .uncaughtSignal)
            let second = try await subscriber(apart, ["--in-transaction"])
            try await waitUntil("every mail is handled", within: .seconds(60)) {
                Set((Handling.all(of: first) + Handling.all(of: second)).map(\.mail)).count == Self.count
            }
            try await finish([second, poster])

            let (before, after) = (Handling.all(of: first), Handling.all(of: second))
            let batch = SubscriptionReader.transactionalBatch
            let twice = expectInOrder(before, then: after, batch: batch)
            #expect(before.filter { $0.channel == "peer_mail" }.last?.sequence == 149)
            let again = try #require(after.first { $0.channel == "peer_mail" }?.sequence)
            #expect(again <= 150 && again > 150 - Int64(batch), "the batch in hand is handed again after the crash")
            let (rows, distinct) = try await Server.withConnection { connection in
                let query = PostgresQuery(
                    unsafeSQL: "SELECT count(*), count(DISTINCT (channel, seq)) FROM \(effects)")
                for try await counts in try await connection.query(query, logger: Server.logger).decode(
                    (Int64, Int64).self)
                {
                    return counts
                }
                return (0, 0)
            }
            #expect(rows == Int64(Self.count))
            #expect(distinct == Int64(Self.count))
            print("killed in a transaction: \(twice) mail handed twice, \(rows) effects")
        }
    }
}
#endif
