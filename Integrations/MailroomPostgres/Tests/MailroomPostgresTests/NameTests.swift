import Mailroom
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

    @Test("a channel PostgreSQL cannot carry, two types of one name on a channel, and a bad origin are errors")
    func badNamesThrow() throws {
        let configuration = PostgresLink.Configuration(
            connection: .init(unixSocketPath: "/nonexistent", username: "u", password: nil, database: nil),
            origin: "o")
        #expect(
            throws: PostgresLinkError.invalidName(Unlisted.linkedChannel, reason: "it is longer than 63 bytes of UTF-8")
        ) {
            try PostgresLink(office: PostOffice(), carrying: [Unlisted.self], configuration: configuration)
        }
        #expect(throws: PostgresLinkError.duplicateName("Twin", channel: "twins")) {
            try PostgresLink(office: PostOffice(), carrying: [Twin.self, OtherTwin.self], configuration: configuration)
        }
        var badOrigin = configuration
        badOrigin.origin = "two\nlines"
        #expect(throws: PostgresLinkError.invalidOrigin("two\nlines")) {
            try PostgresLink(office: PostOffice(), carrying: [Short.self], configuration: badOrigin)
        }
    }
}
