#if Postgres && Observability
import Foundation
import PostgresNIO
import Testing

@testable import MailroomPostgres

/// A `posted` line of a `LinkPeer --trace poster`: a mail, and the ids of the span it was posted in, if any.
struct PostedMail: Decodable {
    let mail: String
    let traceID: String?
    let spanID: String?
}

/// A `span` line of a `LinkPeer --trace receiver`: a span its tracer finished.
struct ReceivedSpan: Decodable {
    /// A span by its ids: the target of a link.
    struct Reference: Decodable, Equatable {
        let traceID: String
        let spanID: String
    }

    let name: String
    let kind: String
    let traceID: String
    let spanID: String
    let parentSpanID: String?
    let links: [Reference]
    /// Each attribute as its type and value, such as `int64 3` and `string peer_mail`.
    let attributes: [String: String]
    /// For a delivery's span, the mail its handler ran for.
    let mail: String?

    var reference: Reference { Reference(traceID: traceID, spanID: spanID) }
}

/// A `counted` line of a `LinkPeer --trace receiver`: its link's counters of the channel `peer_mail`.
struct LinkCounts: Decodable, Equatable {
    /// The mail the link received.
    let received: Int64
    /// Those of them it read from the outbox, not from their notification.
    let caughtUp: Int64
}

/// A mail as its poster posted it, and the span of its deferred delivery in the receiver.
struct TracedDelivery {
    let posted: PostedMail
    let delivery: ReceivedSpan

    /// The poster's span, which the delivery is to be in the trace of.
    func postersSpan() throws -> ReceivedSpan.Reference {
        ReceivedSpan.Reference(
            traceID: try #require(posted.traceID, "\(posted.mail)"),
            spanID: try #require(posted.spanID, "\(posted.mail)"))
    }
}

/// A poster and a receiver (`LinkPeer --trace`: see Tests/LinkPeer/Traces.swift), each a process with an
/// `InMemoryTracer` whose ids start with its role and process id, on tables of their own: the channel `peer_mail`
/// holds only their mail, numbered from 1 in the order it is posted.
struct TracePeers {
    let apart = Apart()
    let poster: Peer
    let receiver: Peer

    /// Starts the receiver, with the link's spans for received mail when `linkSpans`, then the poster, once the
    /// receiver listens: everything the poster sends is the receiver's.
    init(linkSpans: Bool) async throws {
        let origin = uniqueOrigin("receiver")
        receiver = try Peer(
            origin, arguments: ["--trace", "receiver", origin] + (linkSpans ? ["--link-spans"] : []),
            prefix: apart.prefix)
        try await receiver.line(startingWith: "ready")
        let posterOrigin = uniqueOrigin("poster")
        poster = try Peer(posterOrigin, arguments: ["--trace", "poster", posterOrigin], prefix: apart.prefix)
        try await poster.line(startingWith: "ready")
    }

    /// Has the poster post `mail` (a name the poster knows), and waits for the span of its delivery in the
    /// receiver. One at a time: each mail is delivered before the next is posted, so that each comes the way it is
    /// meant to (a mail posted while the one before it is read from the outbox would be read with it).
    func post(_ mail: String) async throws -> TracedDelivery {
        poster.send("post \(mail)")
        let posted = try await self.posted(mail)
        return TracedDelivery(posted: posted, delivery: try await span { $0.mail == mail })
    }

    /// The same, while the receiver's listening connection is ended and the receiver cannot listen again: the mail
    /// commits while the receiver does not listen, so it reaches the receiver only through the outbox, read after
    /// the receiver's next `LISTEN`.
    ///
    /// Not left to timing: the poster first posts a `Tick`, whose recipient in the receiver runs synchronously on
    /// the listening connection's task and does not return until it reads `release`. The receiver's link starts
    /// another connection only once that task has ended. Meanwhile the connection's server process is terminated
    /// and waited for, then the mail is posted and committed, and only then is the receiver released.
    func postWhileTheReceiverCannotListen(_ mail: String) async throws -> TracedDelivery {
        poster.send("post hold")
        try await receiver.line(startingWith: "holding")
        #expect(try await endListeningConnection(of: receiver.origin) == [true])
        poster.send("post \(mail)")
        let posted = try await self.posted(mail)
        receiver.send("release")
        return TracedDelivery(posted: posted, delivery: try await span { $0.mail == mail })
    }

    /// Terminates the connection that holds the lock of `origin`'s live link (its listening connection), and waits
    /// up to 30 s until its server process has exited: from then on, no notification reaches it. Returns whether
    /// each such connection ended.
    func endListeningConnection(of origin: String) async throws -> [Bool] {
        let key = apart.tables.key(ofOrigin: origin)
        return try await Server.withConnection { connection in
            let query: PostgresQuery = """
                SELECT pg_terminate_backend(pid, 30000) FROM pg_locks
                WHERE locktype = 'advisory' AND granted AND objsubid = 1
                    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    AND classid = ((\(key) >> 32) & 4294967295)::oid AND objid = (\(key) & 4294967295)::oid
                """
            var ended: [Bool] = []
            for try await terminated in try await connection.query(query, logger: Server.logger).decode(Bool.self) {
                ended.append(terminated)
            }
            return ended
        }
    }

    /// The poster's line for `mail`, once it is committed.
    func posted(_ mail: String) async throws -> PostedMail {
        let line = try await poster.line(startingWith: "posted ", containing: "\"mail\":\"\(mail)\"")
        return try JSONDecoder().decode(PostedMail.self, from: Data(line.dropFirst("posted ".count).utf8))
    }

    /// The first span the receiver finished that `matches`, once it has.
    func span(_ matches: @escaping @Sendable (ReceivedSpan) -> Bool) async throws -> ReceivedSpan {
        let receiver = self.receiver
        let found: @Sendable () -> ReceivedSpan? = {
            receiver.lines.lazy.filter { $0.hasPrefix("span ") }
                .compactMap {
                    try? JSONDecoder().decode(ReceivedSpan.self, from: Data($0.dropFirst("span ".count).utf8))
                }
                .first(where: matches)
        }
        try await waitUntil("\(receiver.origin) finishes the span") { found() != nil }
        return try #require(found())
    }

    /// Ends both processes, and returns what the receiver's link counted.
    func finish() async throws -> LinkCounts {
        poster.send("finish")
        receiver.send("finish")
        let line = try await receiver.line(startingWith: "counted ")
        #expect(try await poster.exitStatus() == 0)
        #expect(try await receiver.exitStatus() == 0)
        return try JSONDecoder().decode(LinkCounts.self, from: Data(line.dropFirst("counted ".count).utf8))
    }

    /// Posts the four kinds of traced mail, in this order (so numbered 1 to 4 on `peer_mail`), ends both processes,
    /// and returns the mail's deliveries and what the receiver's link counted.
    func postEveryKind() async throws -> (deliveries: [TracedDelivery], counts: LinkCounts) {
        var deliveries: [TracedDelivery] = []
        for mail in ["plain", "transactional", "large"] {
            deliveries.append(try await post(mail))
        }
        deliveries.append(try await postWhileTheReceiverCannotListen("caught-up"))
        return (deliveries, try await finish())
    }
}

extension DatabaseTests {
    @Suite("Trace context across processes")
    struct TraceTests {
        /// The mail types' names in `LinkPeer`, which name their deliveries' spans and their link's spans.
        static let note = "LinkPeer.Note"
        static let blob = "LinkPeer.Blob"

        @Test(
            "A deferred delivery in another process runs in a span of its poster's trace, a child of the poster's span and linked to it: for a plain post, a transactional post, mail over 8000 bytes and mail caught up after the listening connection ended"
        )
        func deliveriesRunInThePostersTrace() async throws {
            let peers = try await TracePeers(linkSpans: false)
            let (deliveries, counts) = try await peers.postEveryKind()

            #expect(deliveries.map(\.posted.mail) == ["plain", "transactional", "large", "caught-up"])
            for traced in deliveries {
                let poster = try traced.postersSpan()
                let delivery = traced.delivery
                // Ids of the poster's tracer, unlike the receiver's: a context that did not travel cannot pass.
                #expect(poster.traceID.hasPrefix("poster-") && poster.spanID.hasPrefix("poster-"))
                #expect(delivery.spanID.hasPrefix("receiver-"), "\(traced.posted.mail)")
                #expect(delivery.traceID == poster.traceID, "\(traced.posted.mail)")
                #expect(delivery.parentSpanID == poster.spanID, "\(traced.posted.mail)")
                #expect(delivery.links == [poster], "\(traced.posted.mail)")
                #expect(delivery.kind == "consumer")
            }
            #expect(deliveries.map(\.delivery.name) == [Self.note, Self.note, Self.blob, Self.note])
            // The large mail and the caught-up one came from the outbox; the others, in their notifications.
            #expect(counts == LinkCounts(received: 4, caughtUp: 2))
        }

        @Test(
            "With spans for received mail, the receiving link's span of each is a child of the poster's span, linked to it, and its delivery's span is a child of the link's, for the same four"
        )
        func linkSpansStandBetweenThePosterAndTheDelivery() async throws {
            let peers = try await TracePeers(linkSpans: true)
            let (deliveries, counts) = try await peers.postEveryKind()

            for (index, traced) in deliveries.enumerated() {
                let poster = try traced.postersSpan()
                let delivery = traced.delivery
                let parent = try #require(delivery.parentSpanID)
                let received = try await peers.span { $0.spanID == parent }
                #expect(received.name == (traced.posted.mail == "large" ? Self.blob : Self.note))
                #expect(received.kind == "consumer")
                #expect(received.spanID.hasPrefix("receiver-"))
                #expect(received.traceID == poster.traceID, "\(traced.posted.mail)")
                #expect(received.parentSpanID == poster.spanID, "\(traced.posted.mail)")
                #expect(received.links == [poster], "\(traced.posted.mail)")
                #expect(
                    received.attributes == [
                        "mailroom.channel": "string peer_mail", "mailroom.sequence": "int64 \(index + 1)",
                        "mailroom.origin": "string \(peers.poster.origin)",
                    ])
                #expect(delivery.traceID == poster.traceID, "\(traced.posted.mail)")
                #expect(delivery.links == [received.reference], "\(traced.posted.mail)")
            }
            #expect(counts == LinkCounts(received: 4, caughtUp: 2))
        }

        @Test(
            "Mail posted outside any span is delivered in another process in a root span of the receiver's own trace, with no link",
            arguments: [false, true])
        func untracedMailStartsATraceOfItsOwn(linkSpans: Bool) async throws {
            let peers = try await TracePeers(linkSpans: linkSpans)
            let traced = try await peers.post("untraced")
            // With spans for received mail, the link's span is the root, and the delivery's its child.
            let root = try await linkSpans ? peers.span { $0.spanID == traced.delivery.parentSpanID } : traced.delivery
            _ = try await peers.finish()

            #expect(traced.posted.traceID == nil && traced.posted.spanID == nil)
            #expect(root.traceID.hasPrefix("receiver-"))
            #expect(root.parentSpanID == nil)
            #expect(root.links.isEmpty)
            #expect(traced.delivery.traceID == root.traceID)
            #expect(traced.delivery.links == (linkSpans ? [root.reference] : []))
        }
    }
}
#endif
