import Logging
import PostgresNIO

/// The link's two tables and every statement the link runs on them.
///
/// `mailroom_channels` keeps each channel's last sequence number. Writing mail increments it in the writing
/// transaction, so the row stays locked until that transaction ends: a channel's numbers are taken in commit order,
/// and a rolled-back transaction gives its numbers back. Committed numbers therefore run 1, 2, 3 … without gaps, and
/// a reader that sees a gap knows it missed mail. `mailroom_outbox` keeps each mail under its channel and number,
/// and under its origin's own number, which lets a sender that lost its connection mid-commit learn what committed.
enum Outbox {
    /// PostgreSQL's limit for a `NOTIFY` payload is 8000 bytes; longer mail is read from the outbox.
    static let notificationLimit = 8000

    /// One mail read from the outbox (or from a notification that carried it whole).
    struct Row: Sendable {
        var sequence: Int64
        var origin: String
        var echo: Bool
        var linkedName: String
        var body: String
    }

    /// Mail of one channel written by one statement, with the origin's own numbers.
    struct Batch: Sendable {
        var channel: String
        var origin: String
        var numbers: [Int64]
        /// Whether the origin delivers the mail to itself when it is read back (mail sent in a caller's
        /// transaction), rather than having delivered it when it was posted.
        var echo: Bool
        var linkedNames: [String]
        var bodies: [String]
    }

    /// Creates the tables unless they exist, in the connection's current transaction, under a lock held until it
    /// ends so that processes starting together do not race to create them.
    static func createTables(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(7130514)", logger: logger)
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS mailroom_channels (
                channel text PRIMARY KEY,
                last_seq bigint NOT NULL
            )
            """, logger: logger)
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS mailroom_outbox (
                channel text NOT NULL,
                seq bigint NOT NULL,
                origin text NOT NULL,
                origin_seq bigint NOT NULL,
                echo boolean NOT NULL,
                type_name text NOT NULL,
                body text NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (channel, seq),
                UNIQUE (origin, origin_seq)
            )
            """, logger: logger)
        try await connection.query(
            "CREATE INDEX IF NOT EXISTS mailroom_outbox_created_at ON mailroom_outbox (created_at)",
            logger: logger)
    }

    /// Writes `batch` and notifies its channel of each mail, in order, in the connection's current transaction
    /// (or in one of its own when there is none: a single statement is atomic).
    ///
    /// On the link's own connections the statement is `prepared`: PostgreSQL plans it once per connection rather
    /// than on every write, which is most of what a write costs the server. A caller's connection gets it unnamed,
    /// so that the link leaves nothing behind on it. The answer is read to the end: PostgreSQL reports some errors,
    /// such as a failed `pg_notify`, only with the rows.
    static func write(_ batch: Batch, on connection: PostgresConnection, prepared: Bool, logger: Logger)
        async throws
    {
        if prepared {
            for try await _ in try await connection.execute(batch, logger: logger) {}
        } else {
            let query = PostgresQuery(unsafeSQL: Batch.sql, binds: batch.makeBindings())
            for try await _ in try await connection.query(query, logger: logger) {}
        }
    }

    /// The channel's last committed sequence number, 0 before its first mail.
    static func lastSequence(of channel: String, on connection: PostgresConnection, logger: Logger) async throws
        -> Int64
    {
        let rows = try await connection.query(
            "SELECT last_seq FROM mailroom_channels WHERE channel = \(channel)", logger: logger)
        for try await last in rows.decode(Int64.self) { return last }
        return 0
    }

    /// Up to `limit` mail of `channel` numbered after `sequence`, in order.
    ///
    /// Each column comes back as one array, so that the answer is a single row: postgres-nio 1.33.2 stops the
    /// process (a precondition in its `RowStreamStateMachine`) when the server closes a connection while a result of
    /// many rows is still arriving, which killing or restarting the server does.
    static func rows(
        of channel: String, after sequence: Int64, limit: Int, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> [Row] {
        let rows = try await connection.query(
            """
            SELECT array_agg(seq ORDER BY seq), array_agg(origin ORDER BY seq), array_agg(echo ORDER BY seq),
                array_agg(type_name ORDER BY seq), array_agg(body ORDER BY seq)
            FROM (
                SELECT seq, origin, echo, type_name, body FROM mailroom_outbox
                WHERE channel = \(channel) AND seq > \(sequence) ORDER BY seq LIMIT \(Int64(limit))
            ) AS page
            """, logger: logger)
        var found: [Row] = []
        for try await (sequences, origins, echoes, names, bodies) in rows.decode(
            ([Int64]?, [String]?, [Bool]?, [String]?, [String]?).self)
        {
            guard let sequences, let origins, let echoes, let names, let bodies else { continue }
            for index in sequences.indices {
                found.append(
                    Row(
                        sequence: sequences[index], origin: origins[index], echo: echoes[index],
                        linkedName: names[index], body: bodies[index]))
            }
        }
        return found
    }

    /// Which of `numbers`, an origin's own numbers, are in the outbox: the mail that committed.
    static func committed(_ numbers: [Int64], of origin: String, on connection: PostgresConnection, logger: Logger)
        async throws -> Set<Int64>
    {
        let rows = try await connection.query(
            """
            SELECT array_agg(origin_seq) FROM mailroom_outbox
            WHERE origin = \(origin) AND origin_seq = ANY(\(numbers))
            """, logger: logger)
        var found: Set<Int64> = []
        for try await numbers in rows.decode([Int64]?.self) { found.formUnion(numbers ?? []) }
        return found
    }

    /// The largest number the origin has written, 0 if none: where a link that reuses an origin's name goes on.
    static func lastNumber(of origin: String, on connection: PostgresConnection, logger: Logger) async throws
        -> Int64
    {
        let rows = try await connection.query(
            "SELECT coalesce(max(origin_seq), 0) FROM mailroom_outbox WHERE origin = \(origin)", logger: logger)
        for try await last in rows.decode(Int64.self) { return last }
        return 0
    }

    /// Deletes the mail written more than `seconds` ago; returns how many.
    @discardableResult
    static func prune(olderThan seconds: Double, on connection: PostgresConnection, logger: Logger) async throws
        -> Int
    {
        let rows = try await connection.query(
            """
            WITH pruned AS (
                DELETE FROM mailroom_outbox WHERE created_at < now() - make_interval(secs => \(seconds))
                RETURNING 1
            ) SELECT count(*) FROM pruned
            """, logger: logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }
}

/// The statement that writes a ``Outbox/Batch``.
///
/// A notification carries the whole mail when it fits (`seq`, origin, echo, name and body on lines of their own),
/// otherwise only its number; a channel's notifications are sent in order (PostgreSQL evaluates a volatile function
/// in a select list after the sort). It answers one row, for the reason given at
/// ``Outbox/rows(of:after:limit:on:logger:)``.
extension Outbox.Batch: PostgresPreparedStatement {
    static let sql = """
        WITH reserved AS (
            INSERT INTO mailroom_channels AS c (channel, last_seq) VALUES ($1, $2)
            ON CONFLICT (channel) DO UPDATE SET last_seq = c.last_seq + excluded.last_seq
            RETURNING c.last_seq - $2 AS base
        ), written AS (
            INSERT INTO mailroom_outbox (channel, seq, origin, origin_seq, echo, type_name, body)
            SELECT $1, reserved.base + m.i, $3, m.number, $5, m.type_name, m.body
            FROM reserved, unnest($4::bigint[], $6::text[], $7::text[]) WITH ORDINALITY
                AS m(number, type_name, body, i)
            RETURNING seq, type_name, body
        )
        SELECT count(*) FROM (
            SELECT pg_notify($1, CASE WHEN octet_length(whole.payload) < \(Outbox.notificationLimit)
                THEN whole.payload ELSE w.seq::text END)
            FROM written w, LATERAL (
                SELECT w.seq::text || E'\\n' || $3 || E'\\n' || CASE WHEN $5 THEN 't' ELSE 'f' END
                    || E'\\n' || w.type_name || E'\\n' || w.body AS payload
            ) whole
            ORDER BY w.seq
        ) AS notified
        """

    func makeBindings() -> PostgresBindings {
        var binds = PostgresBindings(capacity: 7)
        binds.append(channel)
        binds.append(Int64(bodies.count))
        binds.append(origin)
        binds.append(numbers)
        binds.append(echo)
        binds.append(linkedNames)
        binds.append(bodies)
        return binds
    }

    func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
}
