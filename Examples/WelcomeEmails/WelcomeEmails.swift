#if Postgres
// One welcome email per signup, from two instances of a service that may be restarted or killed at any moment: a
// durable subscription whose recipient writes the email in the transaction that moves the subscription's position.
//
//   WelcomeEmails worker-1       a worker: writes a welcome email for each `SignedUp`, until SIGTERM or SIGINT
//   WelcomeEmails worker-2       another instance, under the same subscription
//   WelcomeEmails signup 200     records 200 signups, each sending its `SignedUp` in its transaction, and exits
//
// The database: the Unix socket in MAILROOM_POSTGRES_SOCKET, as user postgres, and the database named in
// WELCOME_EMAILS_DATABASE (default: postgres). `Scripts/with-postgres.sh Examples/WelcomeEmails/check.sh` runs two
// workers, kills the busy one with SIGKILL in the middle of the signups, starts it again, and checks that every
// signup got exactly one email.
//
// Both workers make the subscription "welcome-emails", so they share its stored position: one of them reads at a
// time, and the other takes over when the first one stops or is killed. A worker does not send the email: it writes it
// to `welcome_emails`, for a mailer to send, and the row commits if and only if the position moves past the signup.
// A worker killed before its transaction commits has printed lines for rows that never committed; those signups
// are handed again, to whichever worker reads next, which writes them again.
import Foundation
import Logging
import Mailroom
import MailroomPostgres
import PostgresNIO
import ServiceLifecycle

/// Someone signed up: sent in the transaction that records the signup, from any process.
struct SignedUp: LinkedMail {
    let id: Int64
    let email: String
}

/// Writes a line at once (standard output may be a file, and a worker may be killed at any moment).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data("\(line)\n".utf8))
}

@main
enum WelcomeEmails {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let signups = arguments.count == 2 && arguments[0] == "signup" ? Int(arguments[1]) : nil
        guard signups != nil || arguments.count == 1 else {
            print("usage: WelcomeEmails WORKER-NAME | WelcomeEmails signup COUNT")
            exit(2)
        }
        let name = arguments[0]  // the worker's name, or "signup"
        let environment = ProcessInfo.processInfo.environment
        var database = PostgresClient.Configuration(
            unixSocketPath: environment["MAILROOM_POSTGRES_SOCKET"] ?? "/var/run/postgresql/.s.PGSQL.5432",
            username: "postgres", password: nil, database: environment["WELCOME_EMAILS_DATABASE"] ?? "postgres")
        // A worker's sessions carry its name in pg_stat_activity (check.sh waits for a killed one's to end).
        database.options.additionalStartupParameters = [("application_name", name)]
        var logger = Logger(label: name)
        logger.logLevel = .warning

        let client = PostgresClient(configuration: database, backgroundLogger: logger)
        // A worker's origin is its name, so that two live workers cannot share one; the poster takes the default.
        let link = try PostgresLink(
            office: PostOffice(), carrying: [SignedUp.self], client: client,
            configuration: .init(origin: signups == nil ? name : nil), logger: logger)
        if signups == nil {
            try writeWelcomeEmails(from: link, as: name, logger: logger)
        }

        // The client and the link as services: on SIGTERM, the link stops first, then the client.
        let services = ServiceGroup(
            services: [client, link], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        async let running: Void = services.run()
        try await link.listening()
        try await createTables(client, logger: logger)
        if let signups {
            try await signUp(signups, link: link, client: client, logger: logger)
            await services.triggerGracefulShutdown()
        } else {
            say("\(name) is running")
        }
        try await running
    }

    /// Gives the link the subscription "welcome-emails", whose recipient writes a welcome email for each signup.
    static func writeWelcomeEmails(from link: PostgresLink, as name: String, logger: Logger) throws {
        // From the oldest mail the outbox keeps, the first time the subscription runs (signups recorded before any
        // worker ran get their email too); from its stored position ever after.
        let welcomes = try link.subscription("welcome-emails", startingAt: .beginning)
        try welcomes.receive(SignedUp.self) { signup, _, connection in
            try await connection.query(
                """
                INSERT INTO welcome_emails (signup_id, email, sent_by)
                VALUES (\(signup.id), \(signup.email), \(name))
                """, logger: logger)
            say("\(name) wrote the welcome email for \(signup.email) (signup \(signup.id))")
        }
    }

    /// Records `count` signups, each in a transaction that also sends its `SignedUp`: the mail goes out if and only
    /// if the signup commits.
    static func signUp(_ count: Int, link: PostgresLink, client: PostgresClient, logger: Logger) async throws {
        let names = ["ada", "grace", "alan", "barbara", "edsger", "frances", "donald", "margaret"]
        for index in 0..<count {
            let email = "\(names[index % names.count])\(Int.random(in: 1...999))@example.com"
            try await client.withTransaction(logger: logger) { connection in
                let rows = try await connection.query(
                    "INSERT INTO signups (email) VALUES (\(email)) RETURNING id", logger: logger)
                var id: Int64 = 0
                for try await row in rows.decode(Int64.self) { id = row }
                try await link.post(SignedUp(id: id, email: email), in: connection)
            }
        }
        say("recorded \(count) signups")
    }

    /// Creates the tables unless they exist; processes that start together take turns.
    static func createTables(_ client: PostgresClient, logger: Logger) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('welcome_emails'))", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS signups (id bigserial PRIMARY KEY, email text NOT NULL)", logger: logger)
            // No unique key on signup_id, on purpose: one row per signup is the subscription's doing, and check.sh
            // counts the rows. (A real table would have one as well.)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS welcome_emails (
                    signup_id bigint NOT NULL, email text NOT NULL, sent_by text NOT NULL,
                    written_at timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
        }
    }
}
#else
@main
enum WelcomeEmails {
    static func main() {
        print("WelcomeEmails needs the Postgres trait: swift run --traits Postgres WelcomeEmails worker-1")
    }
}
#endif
