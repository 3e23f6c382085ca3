import Foundation
import MailroomFoundation
import Testing

@Suite("UserInfoDecoder keys: a coding key's stringValue matches String, NSString and String-raw-valued keys")
struct UserInfoDecoderKeyTests {
    private struct Named: Decodable, Equatable {
        let name: String
    }

    private enum StringKey: String, Hashable {
        case name
    }

    @Test("A String key matches")
    func stringKeyMatches() throws {
        #expect(try decode(Named.self, from: ["name": "a"]) == Named(name: "a"))
    }

    @Test("An NSString key matches")
    func nsStringKeyMatches() throws {
        #expect(try decode(Named.self, from: [NSString(string: "name"): "a"]) == Named(name: "a"))
    }

    @Test("A Notification.Name key matches by its raw value")
    func notificationNameKeyMatches() throws {
        #expect(try decode(Named.self, from: [Notification.Name("name"): "a"]) == Named(name: "a"))
    }

    @Test("A custom RawRepresentable struct key and a String enum key match by their raw value")
    func rawRepresentableKeysMatch() throws {
        #expect(try decode(Named.self, from: [InfoKey(rawValue: "name"): "a"]) == Named(name: "a"))
        #expect(try decode(Named.self, from: [StringKey.name: "a"]) == Named(name: "a"))
    }

    @Test("CodingKeys with custom string values match the system's key names")
    func codingKeysMapToSystemNames() throws {
        struct Frame: Decodable, Equatable {
            let frameEnd: CGRect

            enum CodingKeys: String, CodingKey {
                case frameEnd = "UIKeyboardFrameEndUserInfoKey"
            }
        }
        let rect = CGRect(x: 0, y: 1, width: 2, height: 3)
        #expect(try decode(Frame.self, from: ["UIKeyboardFrameEndUserInfoKey": rect]) == Frame(frameEnd: rect))
        let failure = try #require(decodingFailure(Frame.self, from: ["frameEnd": rect]))
        #expect(failure.kind == .keyNotFound)
        #expect(failure.key == "UIKeyboardFrameEndUserInfoKey")
        #expect(failure.path == [])
    }

    @Test("Matching is case sensitive")
    func matchingIsCaseSensitive() throws {
        let failure = try #require(decodingFailure(Named.self, from: ["Name": "a"]))
        #expect(failure.kind == .keyNotFound)
        #expect(failure.key == "name")
        #expect(failure.message == "No value for key \"name\".")
    }

    @Test("allKeys lists the string keys of every kind and leaves out Int and other keys")
    func allKeysListsStringKeys() throws {
        let userInfo: [AnyHashable: Any] = [
            "a": 1, NSString(string: "b"): 2, Notification.Name("c"): 3, InfoKey(rawValue: "d"): 4,
            5: 5, UUID(): 6, Curve.keyboard: 7,
        ]
        #expect(try decode([String: Int].self, from: userInfo) == ["a": 1, "b": 2, "c": 3, "d": 4])
    }

    @Test("A model's integer coding key does not match an Int dictionary key")
    func intKeysAreNotMatched() throws {
        struct Numbered: Decodable {
            let first: String

            enum CodingKeys: Int, CodingKey {
                case first = 1
            }
        }
        let failure = try #require(decodingFailure(Numbered.self, from: [1: "one"]))
        #expect(failure.kind == .keyNotFound)
        #expect(failure.key == "first")
    }

    @Test("Two keys with the same string are dataCorrupted naming the key, when that key is read")
    func clashingKeysAreAnError() throws {
        let userInfo: [AnyHashable: Any] = ["name": "a", InfoKey(rawValue: "name"): "b"]
        let failure = try #require(decodingFailure(Named.self, from: userInfo))
        #expect(failure.kind == .dataCorrupted)
        #expect(failure.path == ["name"])
        #expect(
            failure.message
                == "Key \"name\" is ambiguous: the dictionary has 2 keys with that string, "
                + "\"name\" (InfoKey) and \"name\" (String).")
    }

    @Test("Clashing keys the model does not read are no error")
    func unreadClashesAreIgnored() throws {
        let userInfo: [AnyHashable: Any] = ["name": "a", "other": 1, InfoKey(rawValue: "other"): 2]
        #expect(try decode(Named.self, from: userInfo) == Named(name: "a"))
    }

    @Test("A clash is an error for decodeIfPresent too, not nil")
    func clashIsAnErrorWhenOptional() throws {
        let userInfo: [AnyHashable: Any] = [Notification.Name("value"): 1, InfoKey(rawValue: "value"): NSNull()]
        let failure = try #require(decodingFailure(OptionalBox<Int>.self, from: userInfo))
        #expect(failure.kind == .dataCorrupted)
        #expect(failure.path == ["value"])
    }

    @Test("A clash in a nested dictionary has the nested path")
    func nestedClash() throws {
        let userInfo: [AnyHashable: Any] = ["value": [["name": "a", InfoKey(rawValue: "name"): "b"]]]
        let failure = try #require(decodingFailure(Box<[Named]>.self, from: userInfo))
        #expect(failure.kind == .dataCorrupted)
        #expect(failure.path == ["value", "Index 0", "name"])
    }

    #if !canImport(Darwin)
    @Test("On Linux a String and an NSString with the same text are two dictionary keys, so they clash")
    func stringAndNSStringClashOnLinux() throws {
        // swift-corelibs-foundation hashes an NSString key apart from the equal String; Apple platforms do not.
        let userInfo: [AnyHashable: Any] = ["name": "a", NSString(string: "name"): "b"]
        #expect(userInfo.count == 2)
        #expect(decodingFailure(Named.self, from: userInfo)?.kind == .dataCorrupted)
    }
    #endif
}
