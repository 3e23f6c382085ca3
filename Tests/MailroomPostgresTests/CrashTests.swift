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
        func subscriber(
            _ apart: Apart, _ options: [String] = [], origin: String = uniqueOrigin("subscriber")
        ) async throws -> Peer {
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

        @Test(
            "a group of three shares the mail; a member killed mid-stream leaves only its unstored mail to be handled twice, and one that joins takes a share"
        )
        func groupSharesAndRebalances() async throws {
            let apart = Apart()
            let poster = try await poster(apart)
            // Two channels over m2, m3 and m4: m2 and m3 own one each (by name), m4 waits.
            let (m2, m3, m4) = try await (
                subscriber(apart, origin: "m2"), subscriber(apart, origin: "m3"), subscriber(apart, origin: "m4")
            )
            // m2 may have taken both channels before m3 started: it gives one back within a heartbeat.
            _ = try await m3.line(startingWith: "", containing: "reading a channel of a subscription")
            poster.send("post 0 1500")
            try await waitUntil("m2 and m3 have handled 100 each") {
                Handling.all(of: m2).count >= 100 && Handling.all(of: m3).count >= 100
            }
            #expect(Handling.all(of: m4).isEmpty, "a third member of a group of two channels has none")
            m3.kill()
            _ = try await m3.exitStatus(within: .seconds(10))
            poster.send("post 1500 2500")
            try await waitUntil("m4 has taken m3's channel", within: .seconds(30)) { !Handling.all(of: m4).isEmpty }
            let m1 = try await subscriber(apart, origin: "m1")
            // First by name, m1 owns the first channel now: it reads it once its owner has given it back.
            _ = try await m1.line(startingWith: "", containing: "reading a channel of a subscription")
            poster.send("post 2500 3000")
            let members = ["m1": m1, "m2": m2, "m3": m3, "m4": m4]
            try await waitUntil("every mail is handled, m1 some of it", within: .seconds(60)) {
                let mail = Set(members.values.flatMap(Handling.all(of:)).map(\.mail))
                return mail.count == 3000 && !Handling.all(of: m1).isEmpty
            }
            try await finish([poster, m1, m2, m4])

            let handled = members.mapValues(Handling.all(of:))
            let all = handled.values.joined()
            #expect(Set(all.map(\.mail)) == Set((0..<3000).map { "\(poster.origin) \($0)" }))
            for (origin, handlings) in handled {
                for channel in Set(all.map(\.channel)) {
                    let sequences = handlings.filter { $0.channel == channel }.map(\.sequence)
                    #expect(sequences == sequences.sorted(), "\(origin) handled \(channel) in order")
                }
            }
            // Each channel's mail, whoever handled it, is every number once, except what m3 handled and had not
            // stored: at most a batch, handed again to its channel's next owner.
            let counts = Dictionary(all.map { ($0, 1) }, uniquingKeysWith: +)
            let twice = counts.filter { $0.value > 1 }.map(\.key)
            let m3s = Set(handled["m3", default: []])
            #expect(twice.allSatisfy { counts[$0] == 2 && m3s.contains($0) }, "only m3's mail twice")
            #expect(twice.count <= Listener.pageSize)
            let shares = handled.keys.sorted().map { "\($0) \(handled[$0, default: []].count)" }
                .joined(separator: ", ")
            print("group: handled \(shares); \(twice.count) twice, all m3's")
        }
    }
}
#endif
