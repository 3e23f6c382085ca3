#if Postgres
import Mailroom
import PostgresNIO
import Testing

@testable import MailroomPostgres

struct Short: LinkedMail {}

struct AVeryLongMailTypeNameThatGoesOnAndOnBeyondWhatPostgreSQLAllowsForAChannel: LinkedMail {}

struct Unlisted: LinkedMail {
    static let linkedChannel = String(repeating: "c", count: 64)
}

struct Twin: LinkedMail {
    static let linkedName = "Twin"
    static let linkedChannel = "twins"
}

struct OtherTwin: LinkedMail {
    static let linkedName = "Twin"
    static let linkedChannel = "twins"
}

@Suite("Names and channels")
struct NameTests {
    @Test("a type's name and channel default to its module-qualified name")
    func defaultNames() {
        #expect(Short.linkedName == "MailroomPostgresTests.Short")
        #expect(Short.linkedChannel == "MailroomPostgresTests.Short")
    }

    @Test("a name longer than 63 bytes becomes a channel of 46 bytes, '#' and 16 hex digits of its FNV-1a hash")
    func longNamesAreShortened() {
        let channel = AVeryLongMailTypeNameThatGoesOnAndOnBeyondWhatPostgreSQLAllowsForAChannel.linkedChannel
        #expect(channel.utf8.count == 63)
        #expect(
            channel.hasPrefix(
                String(
                    AVeryLongMailTypeNameThatGoesOnAndOnBeyondWhatPostgreSQLAllowsForAChannel
                        .linkedName.prefix(46)) + "#"))
        #expect(
            Channel.name(for: String(repeating: "a", count: 64)) == String(repeating: "a", count: 46)
                + "#db007849f35ebbe5")
        #expect(Channel.name(for: String(repeating: "é", count: 40)).utf8.count == 46 + 17)
    }

    @Test(
        "a channel PostgreSQL cannot carry, two types of one name on a channel, a bad origin and a long table prefix are errors"
    )
    func badNamesThrow() throws {
        let database = PostgresClient.Configuration(
            unixSocketPath: "/nonexistent", username: "u", password: nil, database: nil)
        let configuration = PostgresLink.Configuration(origin: "o")
        func link(_ types: [any LinkedMail.Type], _ configuration: PostgresLink.Configuration) throws {
            _ = try PostgresLink(
                office: PostOffice(), carrying: types, database: database, configuration: configuration)
        }
        #expect(
            throws: PostgresLinkError(
                .invalidName, name: Unlisted.linkedChannel, detail: "it is longer than 63 bytes of UTF-8")
        ) { try link([Unlisted.self], configuration) }
        #expect(throws: PostgresLinkError(.duplicateName, name: "Twin", channel: "twins")) {
            try link([Twin.self, OtherTwin.self], configuration)
        }
        var badOrigin = configuration
        badOrigin.origin = "two\nlines"
        #expect(
            throws: PostgresLinkError(
                .invalidConfiguration, origin: "two\nlines",
                detail: "the origin is empty or contains a newline or a NUL")
        ) { try link([Short.self], badOrigin) }
        var longPrefix = configuration
        longPrefix.tablePrefix = String(repeating: "p", count: 47)
        #expect(
            throws: PostgresLinkError(
                .invalidConfiguration, origin: "o", detail: "the table prefix is longer than 46 bytes of UTF-8")
        ) { try link([Short.self], longPrefix) }
    }
}
#endif
