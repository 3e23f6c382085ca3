#if Postgres
import Foundation
import Logging
import PostgresNIO

/// Every statement the link runs, on its tables (``Tables``) or for its origin's lock.
///
/// The channels table keeps each channel's last sequence number. Writing mail increments it in the writing
/// transaction, so the row stays locked until that transaction ends: a channel's numbers are taken in commit order,
/// and a rolled-back transaction gives its numbers back. Committed numbers therefore run 1, 2, 3 … without gaps, and
/// a reader that sees a gap knows it missed mail. The outbox keeps each mail under its channel and number, and under
/// the number its link gave it (``Batch/numbers``), which lets a sender that lost its connection mid-commit learn what
/// committed. The cursors table keeps each named subscription's position per channel, and the dead letters the mail
/// its recipients gave up on. Every statement goes through ``PostgresConnection/answer(_:logger:)``.
struct Outbox: Sendable {
    /// PostgreSQL's limit for a `NOTIFY` payload is 8000 bytes; longer mail is read from the outbox.
    static let notificationLimit = 8000

    let tables: Tables
    let logger: Logger

    /// One mail read from the outbox (or from a notification that carried it whole).
    struct Row: Sendable, Hashable {
        var sequence: Int64
        /// The writing link's ``PostgresLink/Configuration/origin``.
        var origin: String
        /// The writing link's own random id (``LinkCore/id``): a process tells its own mail by it.
        var link: Int64
        /// Whether the writing link delivers the mail to its own office when it reads it back (mail sent in a
        /// caller's transaction), rather than having delivered it when it was posted.
        var echo: Bool
        var linkedName: String
        var body: String
        /// The one subscription the mail is for (a dead letter moved back), or `nil` for mail for everyone.
        var target: String? = nil
        /// The poster's trace context, injected into a carrier and encoded (``LinkTelemetry``), or `nil` when
        /// there was none.
        var context: String? = nil
        /// How long ago it was written, by the database's clock, when it was read from the outbox; `nil` for mail
        /// a notification carried whole.
        var age: Duration? = nil
    }

    /// Mail of one channel written by one statement, numbered by its link.
    struct Batch: Sendable, Hashable {
        var channel: String
        var origin: String
        var link: Int64
        /// The link's own numbers of the mail, in order: unique for the link, so that it can look up which of its
        /// mail committed.
        var numbers: [Int64]
        var echo: Bool
        var linkedNames: [String]
        var bodies: [String]
        /// The poster's trace context of each mail, as in ``Row/context`` (empty is as many `nil`s).
        var contexts: [String?] = []
    }

    /// Creates the tables and the function unless they exist, in one statement, under a lock held until it
    /// commits, so that processes starting together do not race to create them.
    func createTables(on connection: PostgresConnection) async throws {
        let (channels, outbox, write) = (tables.channels, tables.outbox, tables.write)
        let (cursors, deadLetters, members) = (tables.cursors, tables.deadLetters, tables.members)
        // A notification carries the tables' tag and the whole mail when it fits (number, link, echo, origin, the
        // context if there is one, name and body on lines of their own), otherwise the tag and the number
        // (``Notification``). The statements of a PL/pgSQL function are planned once per session. The function of
        // the tables' first version, without contexts, is replaced.
        let query = PostgresQuery(
            unsafeSQL: """
                DO $mailroom$ BEGIN
                    PERFORM pg_advisory_xact_lock(\(tables.key));
                    CREATE TABLE IF NOT EXISTS \(channels) (
                        channel text PRIMARY KEY,
                        last_seq bigint NOT NULL
                    );
                    CREATE TABLE IF NOT EXISTS \(outbox) (
                        channel text NOT NULL,
                        seq bigint NOT NULL,
                        origin text NOT NULL,
                        link bigint NOT NULL,
                        link_seq bigint NOT NULL,
                        echo boolean NOT NULL,
                        type_name text NOT NULL,
                        body text NOT NULL,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (channel, seq),
                        UNIQUE (link, link_seq)
                    );
                    CREATE INDEX IF NOT EXISTS \(tables.createdAtIndex) ON \(outbox) (created_at);
                    ALTER TABLE \(outbox) ADD COLUMN IF NOT EXISTS target text;
                    ALTER TABLE \(outbox) ADD COLUMN IF NOT EXISTS context text;
                    CREATE TABLE IF NOT EXISTS \(cursors) (
                        subscription text NOT NULL,
                        channel text NOT NULL,
                        seq bigint NOT NULL,
                        attempts integer NOT NULL DEFAULT 0,
                        updated_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (subscription, channel)
                    );
                    CREATE TABLE IF NOT EXISTS \(deadLetters) (
                        id bigserial PRIMARY KEY,
                        subscription text NOT NULL,
                        channel text NOT NULL,
                        seq bigint NOT NULL,
                        origin text NOT NULL,
                        type_name text NOT NULL,
                        body text NOT NULL,
                        error text NOT NULL,
                        attempts integer NOT NULL,
                        failed_at timestamptz NOT NULL DEFAULT now()
                    );
                    ALTER TABLE \(deadLetters) ADD COLUMN IF NOT EXISTS context text;
                    CREATE TABLE IF NOT EXISTS \(members) (
                        subscription text NOT NULL,
                        origin text NOT NULL,
                        origin_key bigint NOT NULL,
                        channels text[] NOT NULL,
                        PRIMARY KEY (subscription, origin)
                    );
                    DROP FUNCTION IF EXISTS \(write)(text, text, bigint, bigint[], boolean, text[], text[]);
                    CREATE OR REPLACE FUNCTION \(write)(
                        p_channel text, p_origin text, p_link bigint, p_numbers bigint[], p_echo boolean,
                        p_names text[], p_bodies text[], p_contexts text[] DEFAULT NULL
                    ) RETURNS integer LANGUAGE plpgsql AS $write$
                    DECLARE
                        n integer := cardinality(p_bodies);
                        base bigint;
                        context text;
                        payload text;
                    BEGIN
                        INSERT INTO \(channels) AS c (channel, last_seq) VALUES (p_channel, n)
                        ON CONFLICT (channel) DO UPDATE SET last_seq = c.last_seq + excluded.last_seq
                        RETURNING c.last_seq - n INTO base;
                        INSERT INTO \(outbox) (channel, seq, origin, link, link_seq, echo, type_name, body, context)
                        SELECT p_channel, base + m.i, p_origin, p_link, m.number, p_echo, m.type_name, m.body,
                            nullif(m.context, '')
                        FROM unnest(p_numbers, p_names, p_bodies, p_contexts)
                            WITH ORDINALITY AS m(number, type_name, body, context, i);
                        FOR i IN 1..n LOOP
                            context := nullif(p_contexts[i], '');
                            payload := '\(tables.tag)' || E'\\n' || (base + i)::text || E'\\n' || p_link::text || E'\\n'
                                || CASE WHEN context IS NULL THEN CASE WHEN p_echo THEN 't' ELSE 'f' END
                                    ELSE CASE WHEN p_echo THEN 'T' ELSE 'F' END END
                                || E'\\n' || p_origin || E'\\n' || coalesce(context || E'\\n', '')
                                || p_names[i] || E'\\n' || p_bodies[i];
                            PERFORM pg_notify(p_channel, CASE
                                WHEN octet_length(payload) < \(Self.notificationLimit)
                                    AND strpos(coalesce(context, ''), E'\\n') = 0 THEN payload
                                ELSE '\(tables.tag)' || E'\\n' || (base + i)::text END);
                        END LOOP;
                        RETURN n;
                    END
                    $write$;
                END $mailroom$
                """)
        _ = try await connection.answer(query, logger: logger)
    }

    /// Writes `batch` and notifies its channel of each mail, in order, in the connection's current transaction
    /// (or in one of its own when there is none: a single statement is atomic).
    func write(_ batch: Batch, on connection: PostgresConnection) async throws {
        var binds = PostgresBindings(capacity: 8)
        binds.append(batch.channel)
        binds.append(batch.origin)
        binds.append(batch.link)
        binds.append(batch.numbers)
        binds.append(batch.echo)
        binds.append(batch.linkedNames)
        binds.append(batch.bodies)
        if batch.contexts.contains(where: { $0 != nil }) {
            binds.append(batch.contexts.map { $0 ?? "" })
        } else {
            // Mail without contexts costs nothing more to send than before contexts were carried.
            binds.appendNull()
        }
        let query = PostgresQuery(
            unsafeSQL: "SELECT \(tables.write)($1, $2, $3, $4, $5, $6, $7, $8)", binds: binds)
        _ = try await connection.answer(query, logger: logger)
    }

    /// Runs `statement`, such as `BEGIN`, for its effect.
    func execute(_ statement: PostgresQuery, on connection: PostgresConnection) async throws {
        _ = try await connection.answer(statement, logger: logger)
    }

    /// A statement that answers at once: its answer shows that what the connection ran before it has ended.
    func ping(on connection: PostgresConnection) async throws {
        _ = try await connection.answer("SELECT 1", logger: logger)
    }

    /// The channel's last committed sequence number, 0 before its first mail.
    func lastSequence(of channel: String, on connection: PostgresConnection) async throws -> Int64 {
        let query: PostgresQuery =
            "SELECT coalesce(max(last_seq), 0) FROM \(unescaped: tables.channels) WHERE channel = \(channel)"
        return try await connection.answer(query, logger: logger).first?.decode(Int64.self) ?? 0
    }

    /// Up to `limit` mail of `channel` numbered after `sequence`, in order.
    func rows(of channel: String, after sequence: Int64, limit: Int, on connection: PostgresConnection)
        async throws -> [Row]
    {
        let query: PostgresQuery = """
            SELECT seq, origin, link, echo, type_name, body, target, context,
                extract(epoch FROM clock_timestamp() - created_at)::float8
            FROM \(unescaped: tables.outbox)
            WHERE channel = \(channel) AND seq > \(sequence) ORDER BY seq LIMIT \(Int64(limit))
            """
        return try await connection.answer(query, logger: logger).map { row in
            let (sequence, origin, link, echo, linkedName, body, target, context, age) = try row.decode(
                (Int64, String, Int64, Bool, String, String, String?, String?, Double).self)
            return Row(
                sequence: sequence, origin: origin, link: link, echo: echo, linkedName: linkedName, body: body,
                target: target, context: context, age: .seconds(max(age, 0)))
        }
    }

    /// Which of `numbers`, numbers that `link` gave its mail, are in the outbox: the mail that committed.
    func committed(_ numbers: [Int64], of link: Int64, on connection: PostgresConnection) async throws
        -> Set<Int64>
    {
        let query: PostgresQuery = """
            SELECT link_seq FROM \(unescaped: tables.outbox) WHERE link = \(link) AND link_seq = ANY(\(numbers))
            """
        return try await Set(connection.answer(query, logger: logger).map { try $0.decode(Int64.self) })
    }

    /// Deletes the mail written more than `seconds` ago; returns how many.
    @discardableResult
    func prune(olderThan seconds: Double, on connection: PostgresConnection) async throws -> Int {
        let query: PostgresQuery = """
            WITH pruned AS (
                DELETE FROM \(unescaped: tables.outbox) WHERE created_at < now() - make_interval(secs => \(seconds))
                RETURNING 1
            ) SELECT count(*) FROM pruned
            """
        return try await Int(connection.answer(query, logger: logger).first?.decode(Int64.self) ?? 0)
    }

    /// The stored position of `subscription` on `channel` (the number of the last mail it handled), and the failed
    /// attempts at the mail after it. A subscription that has none yet gets one from `start`, stored at once, so
    /// that it does not move when the process restarts.
    func position(
        of subscription: String, on channel: String, start: PostgresSubscription.Start,
        on connection: PostgresConnection
    ) async throws -> (position: Int64, attempts: Int) {
        var binds = PostgresBindings(capacity: 3)
        binds.append(subscription)
        binds.append(channel)
        let last = "(SELECT max(last_seq) FROM \(tables.channels) WHERE channel = $2)"
        let first: String
        switch start.kind {
        case .end:
            first = "coalesce(\(last), 0)"
        case .sequence(let sequence):
            binds.append(sequence)
            first = "$3::bigint"
        case .time(let time):
            // The number before the first mail written after the time, or, when there is none, the last number.
            binds.append(time ?? .distantPast)
            first =
                "coalesce((SELECT min(seq) - 1 FROM \(tables.outbox) WHERE channel = $2 AND created_at > $3), "
                + "\(last), 0)"
        }
        // The outer SELECT sees the table as it was before the INSERT: one of the two parts answers.
        let query = PostgresQuery(
            unsafeSQL: """
                WITH stored AS (
                    INSERT INTO \(tables.cursors) (subscription, channel, seq) VALUES ($1, $2, \(first))
                    ON CONFLICT (subscription, channel) DO NOTHING RETURNING seq, attempts
                ) SELECT seq, attempts FROM stored UNION ALL
                SELECT seq, attempts FROM \(tables.cursors) WHERE subscription = $1 AND channel = $2
                """, binds: binds)
        guard let row = try await connection.answer(query, logger: logger).first else {
            throw SubscriptionMoved(subscription: subscription, channel: channel, expected: nil)
        }
        let (position, attempts) = try row.decode((Int64, Int32).self)
        return (position, Int(attempts))
    }

    /// Moves the stored position of `subscription` on `channel` from `old` to `new`, in the connection's current
    /// transaction; throws ``SubscriptionMoved`` when it was not at `old` (another process moved it).
    func move(
        _ subscription: String, on channel: String, from old: Int64, to new: Int64, on connection: PostgresConnection
    ) async throws {
        let query: PostgresQuery = """
            UPDATE \(unescaped: tables.cursors) SET seq = \(new), attempts = 0, updated_at = now()
            WHERE subscription = \(subscription) AND channel = \(channel) AND seq = \(old) RETURNING 1
            """
        if try await connection.answer(query, logger: logger).isEmpty {
            throw SubscriptionMoved(subscription: subscription, channel: channel, expected: old)
        }
    }

    /// Counts a failed attempt at the mail after `position` of `subscription` on `channel`; returns the attempts
    /// counted so far. Throws ``SubscriptionMoved`` when the position is no longer `position`.
    func countFailure(
        of subscription: String, on channel: String, after position: Int64, on connection: PostgresConnection
    )
        async throws -> Int
    {
        let query: PostgresQuery = """
            UPDATE \(unescaped: tables.cursors) SET attempts = attempts + 1, updated_at = now()
            WHERE subscription = \(subscription) AND channel = \(channel) AND seq = \(position) RETURNING attempts
            """
        guard let attempts = try await connection.answer(query, logger: logger).first?.decode(Int32.self) else {
            throw SubscriptionMoved(subscription: subscription, channel: channel, expected: position)
        }
        return Int(attempts)
    }

    /// Moves `row`, which `subscription` failed to handle `attempts` times with `error`, to the dead letters, and
    /// the position from `position` past it, in one transaction.
    func bury(
        _ row: Row, of subscription: String, on channel: String, after position: Int64, error: String, attempts: Int,
        on connection: PostgresConnection
    ) async throws {
        try await execute("BEGIN", on: connection)
        let query: PostgresQuery = """
            INSERT INTO \(unescaped: tables.deadLetters)
                (subscription, channel, seq, origin, type_name, body, error, attempts, context)
            VALUES (\(subscription), \(channel), \(row.sequence), \(row.origin), \(row.linkedName), \(row.body),
                \(error), \(Int32(clamping: attempts)), \(row.context))
            """
        _ = try await connection.answer(query, logger: logger)
        try await move(subscription, on: channel, from: position, to: row.sequence, on: connection)
        try await execute("COMMIT", on: connection)
    }

    /// The dead letters of `subscription`, oldest first.
    func deadLetters(of subscription: String, on connection: PostgresConnection) async throws
        -> [PostgresSubscription.DeadLetter]
    {
        let query: PostgresQuery = """
            SELECT id, channel, seq, origin, type_name, body, error, attempts, failed_at
            FROM \(unescaped: tables.deadLetters) WHERE subscription = \(subscription) ORDER BY id
            """
        return try await connection.answer(query, logger: logger).map { row in
            let (id, channel, sequence, origin, linkedName, body, error, attempts, failedAt) = try row.decode(
                (Int64, String, Int64, String, String, String, String, Int32, Date).self)
            return PostgresSubscription.DeadLetter(
                id: id, subscription: subscription, channel: channel, sequence: sequence, origin: origin,
                linkedName: linkedName, body: body, error: error, attempts: Int(attempts), failedAt: failedAt)
        }
    }

    /// Deletes `letter` from the dead letters and writes its mail again, at the end of its channel, for its
    /// subscription alone, in the connection's current transaction; returns `false` when the letter is not there.
    func resurrect(_ letter: PostgresSubscription.DeadLetter, on connection: PostgresConnection) async throws -> Bool {
        // Link 0 is no link's id (they are positive), and the letter's id is unique: the mail's (link, link_seq).
        let query: PostgresQuery = """
            WITH letter AS (
                DELETE FROM \(unescaped: tables.deadLetters)
                WHERE id = \(letter.id) AND subscription = \(letter.subscription)
                RETURNING id, subscription, channel, origin, type_name, body, context
            ), numbered AS (
                INSERT INTO \(unescaped: tables.channels) AS c (channel, last_seq) SELECT channel, 1 FROM letter
                ON CONFLICT (channel) DO UPDATE SET last_seq = c.last_seq + 1 RETURNING c.channel, c.last_seq
            ), written AS (
                INSERT INTO \(unescaped: tables.outbox)
                    (channel, seq, origin, link, link_seq, echo, type_name, body, target, context)
                SELECT letter.channel, numbered.last_seq, letter.origin, 0, letter.id, false, letter.type_name,
                    letter.body, letter.subscription, letter.context
                FROM letter JOIN numbered ON numbered.channel = letter.channel
                RETURNING channel, seq
            ) SELECT pg_notify(channel, \(tables.tag) || E'\\n' || seq::text) FROM written
            """
        return try await !connection.answer(query, logger: logger).isEmpty
    }

    /// Waits until this session holds the lock that makes it the one reader of `subscription` on `channel`, or
    /// until `limit` passes (then returns `false`): a released lock is taken at once, by the server.
    func lockSubscription(
        _ subscription: String, on channel: String, waitingAtMost limit: Duration, on connection: PostgresConnection
    ) async throws -> Bool {
        let key = tables.key(ofSubscription: subscription, on: channel)
        let milliseconds = max(Int64(limit.seconds * 1000), 1)
        _ = try await connection.answer("SET lock_timeout = \(unescaped: String(milliseconds))", logger: logger)
        do {
            _ = try await connection.answer("SELECT pg_advisory_lock(\(key))", logger: logger)
            _ = try await connection.answer("RESET lock_timeout", logger: logger)
            return true
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "55P03" {
            // lock_not_available: another process reads the channel for the subscription.
            _ = try await connection.answer("RESET lock_timeout", logger: logger)
            return false
        }
    }

    /// Writes that the link of `origin` reads `channels` for `subscription`, and returns the other live processes
    /// that read it, with their channels; deletes those whose link is no longer live (it holds no origin lock).
    func members(
        of subscription: String, origin: String, channels: [String], on connection: PostgresConnection
    ) async throws -> [String: Set<String>] {
        let table = tables.members
        let originKey = tables.key(ofOrigin: origin)
        let query: PostgresQuery = """
            WITH joined AS (
                INSERT INTO \(unescaped: table) AS m (subscription, origin, origin_key, channels)
                VALUES (\(subscription), \(origin), \(originKey), \(channels))
                ON CONFLICT (subscription, origin) DO UPDATE SET channels = excluded.channels
                WHERE m.channels <> excluded.channels
            ), others AS (
                SELECT m.origin, m.channels, EXISTS (
                    SELECT FROM pg_locks l
                    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                        AND l.classid = ((m.origin_key >> 32) & 4294967295)::oid
                        AND l.objid = (m.origin_key & 4294967295)::oid
                ) AS live
                FROM \(unescaped: table) m WHERE m.subscription = \(subscription) AND m.origin <> \(origin)
            ), gone AS (
                DELETE FROM \(unescaped: table) m USING others o
                WHERE m.subscription = \(subscription) AND m.origin = o.origin AND NOT o.live
            ) SELECT origin, channels FROM others WHERE live
            """
        var members: [String: Set<String>] = [:]
        for row in try await connection.answer(query, logger: logger) {
            let (origin, channels) = try row.decode((String, [String]).self)
            members[origin] = Set(channels)
        }
        return members
    }

    /// Takes the session lock that says a live link has `origin`; returns `nil` when taken, otherwise who holds
    /// it: the server process ids (and client addresses) of the sessions that do.
    func lockOrigin(_ origin: String, on connection: PostgresConnection) async throws -> String? {
        let key = tables.key(ofOrigin: origin)
        let query: PostgresQuery = """
            SELECT CASE WHEN pg_try_advisory_lock(\(key)) THEN NULL ELSE (
                SELECT coalesce(string_agg('process ' || l.pid || coalesce(' from ' || host(a.client_addr), ''), ', '),
                    'a session that has just ended')
                FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                    AND l.classid = ((\(key) >> 32) & 4294967295)::oid AND l.objid = (\(key) & 4294967295)::oid
            ) END
            """
        return try await connection.answer(query, logger: logger).first?.decode(String?.self)
    }

    /// Gives back the lock of ``lockOrigin(_:on:)``.
    func unlockOrigin(_ origin: String, on connection: PostgresConnection) async throws {
        _ = try await connection.answer(
            "SELECT pg_advisory_unlock(\(tables.key(ofOrigin: origin)))", logger: logger)
    }
}
#endif

#if Postgres
/// A subscription's stored position was not where its reader left it: another process moved it.
struct SubscriptionMoved: Error, CustomStringConvertible {
    let subscription: String
    let channel: String
    /// The position it was expected at, or `nil` when it was expected to exist.
    let expected: Int64?

    var description: String {
        let expected = self.expected.map { "no longer \($0)" } ?? "gone"
        return "the position of subscription \(subscription) on \(channel) is \(expected): another process moved it"
    }
}
#endif
