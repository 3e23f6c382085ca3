import Foundation
import MailroomFoundation
import Testing

// MARK: - Models

/// The models these tests encode, in a namespace so their names cannot clash with the decoder tests' fixtures.
private enum Sample {

    struct Scalars: Encodable {
        var string = "hello"
        var bool = true
        var int = -1
        var int8: Int8 = -8
        var int16: Int16 = -16
        var int32: Int32 = -32
        var int64: Int64 = .min
        var uint: UInt = 1
        var uint8: UInt8 = 8
        var uint16: UInt16 = 16
        var uint32: UInt32 = 32
        var uint64: UInt64 = .max
        var float: Float = 1.5
        var double = -2.25
    }

    struct FoundationValues: Encodable {
        var date = Date(timeIntervalSince1970: 1_234_567_890.5)
        var url = URL(string: "https://example.com/a?b=c")
        var data = Data([0, 1, 254, 255])
        var cgFloat: CGFloat = 3.5
        var point = CGPoint(x: 1, y: -2)
        var size = CGSize(width: 320, height: 240.5)
        var rect = CGRect(x: 0, y: 100, width: 320, height: 216)
    }

    struct Address: Codable, Equatable {
        var street: String
        var number: Int
    }

    struct Person: Encodable {
        var name: String
        var home: Address
        var previous: [Address]
    }

    enum Mood: String, Codable, Equatable {
        case calm
        case busy
    }

    enum Priority: Int, Codable, Equatable {
        case low = 1
        case high = 9
    }

    struct Chore: Encodable {
        var mood: Mood
        var priority: Priority
        var history: [Priority]
    }

    struct Optionals: Encodable {
        var present: Int?
        var absent: Int?
        var absentDate: Date?
        var presentRect: CGRect?
    }

    /// Writes `nil` explicitly instead of leaving the key out.
    struct ExplicitNil: Encodable {
        var value: Int?

        enum CodingKeys: String, CodingKey {
            case value
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(value, forKey: .value)
        }
    }

    struct Collections: Encodable {
        var numbers: [Int]
        var nested: [[String]]
        var maybe: [Int?]
        var byName: [String: Double]
        var byNumber: [Int: String]
        var dates: [Date]
    }

    /// Hands out containers first and fills them afterwards, in an order unlike the output's.
    struct FillsLater: Encodable {
        enum CodingKeys: String, CodingKey {
            case inner
            case list
            case late
        }

        enum InnerKeys: String, CodingKey {
            case a
            case b
        }

        func encode(to encoder: any Encoder) throws {
            var top = encoder.container(keyedBy: CodingKeys.self)
            var inner = top.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
            var list = top.nestedUnkeyedContainer(forKey: .list)
            var firstItem = list.nestedContainer(keyedBy: InnerKeys.self)
            var secondItem = list.nestedUnkeyedContainer()
            let thirdItem = list.superEncoder()
            try top.encode("written after the nested containers", forKey: .late)
            try inner.encode(1, forKey: .a)
            try firstItem.encode("first", forKey: .b)
            try secondItem.encode(true)
            var single = thirdItem.singleValueContainer()
            try single.encode(Int8(3))
            var again = top.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
            try again.encode(2, forKey: .b)
            // A second handle on `.inner` writes into the same dictionary as the first.
            try inner.encode(10, forKey: .a)
        }
    }

    class Vehicle: Encodable {
        var wheels = 4

        enum CodingKeys: String, CodingKey {
            case wheels
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(wheels, forKey: .wheels)
        }
    }

    /// Encodes its superclass into the same container, as synthesized-style subclasses often do.
    final class Car: Vehicle {
        var brand = "Zoom"

        enum CarKeys: String, CodingKey {
            case brand
        }

        override func encode(to encoder: any Encoder) throws {
            try super.encode(to: encoder)
            var container = encoder.container(keyedBy: CarKeys.self)
            try container.encode(brand, forKey: .brand)
        }
    }

    /// Encodes its superclass through `superEncoder()` and `superEncoder(forKey:)`.
    final class Truck: Vehicle {
        var load = 12.5

        enum TruckKeys: String, CodingKey {
            case load
            case base
            case unused
        }

        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: TruckKeys.self)
            try container.encode(load, forKey: .load)
            try super.encode(to: container.superEncoder())
            try super.encode(to: container.superEncoder(forKey: .base))
            _ = container.superEncoder(forKey: .unused)
        }
    }

    struct ReadsUserInfo: Encodable {
        static let key = CodingUserInfoKey(rawValue: "prefix")

        enum CodingKeys: String, CodingKey {
            case label
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            let prefix = Self.key.flatMap { encoder.userInfo[$0] as? String } ?? "none"
            try container.encode(prefix + "-label", forKey: .label)
        }
    }

    struct Wrapper: Encodable {
        var inner: Address

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(inner)
        }
    }

    struct Nothing: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    struct Empty: Encodable {}

    struct CustomFailure: Error {}

    struct ThrowsCustom: Encodable {
        func encode(to encoder: any Encoder) throws {
            throw CustomFailure()
        }
    }

    struct Nested<Inner: Encodable>: Encodable {
        var inner: Inner
    }

    struct KeyedThenUnkeyed: Encodable {
        enum CodingKeys: String, CodingKey {
            case a
        }

        func encode(to encoder: any Encoder) throws {
            var keyed = encoder.container(keyedBy: CodingKeys.self)
            try keyed.encode(1, forKey: .a)
            var unkeyed = encoder.unkeyedContainer()
            try unkeyed.encode(2)
        }
    }

    struct TwoSingleValues: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(1)
            try container.encode(2)
        }
    }
}

// MARK: - Helpers

/// Checks that `value` is exactly a `T` (not a bridged or converted number) equal to `expected`.
private func expectExactly<T: Equatable>(
    _ value: Any?,
    _ expected: T,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let value else {
        Issue.record("missing value, expected \(T.self) \(expected)", sourceLocation: sourceLocation)
        return
    }
    #expect(type(of: value) == T.self, "stored as \(type(of: value))", sourceLocation: sourceLocation)
    #expect(value as? T == expected, sourceLocation: sourceLocation)
}

private func encodedDictionary(_ value: Any?, sourceLocation: SourceLocation = #_sourceLocation) -> [String: Any] {
    guard let result = value as? [String: Any] else {
        Issue.record("expected [String: Any], got \(String(describing: value))", sourceLocation: sourceLocation)
        return [:]
    }
    #expect(type(of: result) == [String: Any].self, sourceLocation: sourceLocation)
    return result
}

private func encodedArray(_ value: Any?, sourceLocation: SourceLocation = #_sourceLocation) -> [Any] {
    guard let value, type(of: value) == [Any].self, let result = value as? [Any] else {
        Issue.record("expected [Any], got \(String(describing: value))", sourceLocation: sourceLocation)
        return []
    }
    return result
}

private func expectInvalidValue(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> EncodingError.Context? {
    do {
        try body()
        Issue.record("expected EncodingError.invalidValue, nothing was thrown", sourceLocation: sourceLocation)
    } catch let EncodingError.invalidValue(_, context) {
        return context
    } catch {
        Issue.record("expected EncodingError.invalidValue, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

// MARK: - Tests

@Suite("UserInfoEncoder: values")
struct UserInfoEncoderValueTests {
    @Test("strings, Booleans and every integer and floating-point width are stored as values of their own type")
    func scalarsKeepTheirTypes() throws {
        let info = try UserInfoEncoder().encode(Sample.Scalars())
        #expect(info.count == 14)
        expectExactly(info["string"], "hello")
        expectExactly(info["bool"], true)
        expectExactly(info["int"], -1)
        expectExactly(info["int8"], Int8(-8))
        expectExactly(info["int16"], Int16(-16))
        expectExactly(info["int32"], Int32(-32))
        expectExactly(info["int64"], Int64.min)
        expectExactly(info["uint"], UInt(1))
        expectExactly(info["uint8"], UInt8(8))
        expectExactly(info["uint16"], UInt16(16))
        expectExactly(info["uint32"], UInt32(32))
        expectExactly(info["uint64"], UInt64.max)
        expectExactly(info["float"], Float(1.5))
        expectExactly(info["double"], -2.25)
    }

    @Test("every key of the dictionary is a String")
    func keysAreStrings() throws {
        let info = try UserInfoEncoder().encode(Sample.Scalars())
        #expect(info.keys.allSatisfy { $0.base is String })
    }

    @Test("not-a-number and infinities are stored unchanged")
    func nonFiniteFloatingPoint() throws {
        struct NonFinite: Encodable {
            var nan = Double.nan
            var infinity = Double.infinity
            var negative = -Float.infinity
            var signalling = Float.signalingNaN
        }
        let info = try UserInfoEncoder().encode(NonFinite())
        #expect((info["nan"] as? Double)?.isNaN == true)
        expectExactly(info["infinity"], Double.infinity)
        expectExactly(info["negative"], -Float.infinity)
        #expect((info["signalling"] as? Float)?.isNaN == true)
    }

    @Test("Date, URL, Data, CGFloat, CGPoint, CGSize and CGRect are stored as themselves, not as numbers")
    func foundationValuesAreIntercepted() throws {
        let model = Sample.FoundationValues()
        let info = try UserInfoEncoder().encode(model)
        #expect(info.count == 7)
        expectExactly(info["date"], model.date)
        expectExactly(info["url"], try #require(model.url))
        expectExactly(info["data"], model.data)
        expectExactly(info["cgFloat"], model.cgFloat)
        expectExactly(info["point"], model.point)
        expectExactly(info["size"], model.size)
        expectExactly(info["rect"], model.rect)
    }

    @Test("Int128 and UInt128 are stored as themselves")
    func wideIntegers() throws {
        guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
        struct Wide: Encodable {
            var signed = Int128.min
            var unsigned = UInt128.max
            var list: [Int128] = [1, -1]
        }
        let info = try UserInfoEncoder().encode(Wide())
        expectExactly(info["signed"], Int128.min)
        expectExactly(info["unsigned"], UInt128.max)
        let list = encodedArray(info["list"])
        expectExactly(list.first, Int128(1))
        expectExactly(list.last, Int128(-1))
    }

    @Test("keys are the coding keys' string values, so keyboard-style userInfo keys come out as written")
    func codingKeysNameTheKeys() throws {
        let begin = CGRect(x: 0, y: 480, width: 320, height: 216)
        let end = CGRect(x: 0, y: 264, width: 320, height: 216)
        let change = KeyboardFrameChange(
            frameBegin: begin, frameEnd: end, duration: 0.25, curve: .keyboard, isLocal: true)
        let info = try UserInfoEncoder().encode(change)
        let expectedKeys: Set = [
            "UIKeyboardFrameBeginUserInfoKey",
            "UIKeyboardFrameEndUserInfoKey",
            "UIKeyboardAnimationDurationUserInfoKey",
            "UIKeyboardAnimationCurveUserInfoKey",
            "UIKeyboardIsLocalUserInfoKey",
        ]
        #expect(Set(info.keys.compactMap { $0.base as? String }) == expectedKeys)
        expectExactly(info["UIKeyboardFrameBeginUserInfoKey"], begin)
        expectExactly(info["UIKeyboardFrameEndUserInfoKey"], end)
        expectExactly(info["UIKeyboardAnimationDurationUserInfoKey"], 0.25)
        expectExactly(info["UIKeyboardAnimationCurveUserInfoKey"], 7)
        expectExactly(info["UIKeyboardIsLocalUserInfoKey"], true)
        #expect(try UserInfoDecoder().decode(KeyboardFrameChange.self, from: info) == change)
    }

    @Test("enums with raw values are stored as their raw values")
    func rawValueEnums() throws {
        let info = try UserInfoEncoder().encode(Sample.Chore(mood: .busy, priority: .high, history: [.low, .high]))
        expectExactly(info["mood"], "busy")
        expectExactly(info["priority"], 9)
        let history = encodedArray(info["history"])
        #expect(history.count == 2)
        expectExactly(history.first, 1)
        expectExactly(history.last, 9)
    }

    @Test("the encoder's userInfo reaches the models' encode(to:)")
    func userInfoIsPassedToModels() throws {
        var encoder = UserInfoEncoder()
        #expect(try encoder.encode(Sample.ReadsUserInfo())["label"] as? String == "none-label")
        let key = try #require(Sample.ReadsUserInfo.key)
        encoder.userInfo[key] = "custom"
        #expect(try encoder.encode(Sample.ReadsUserInfo())["label"] as? String == "custom-label")
    }
}

@Suite("UserInfoEncoder: optionals")
struct UserInfoEncoderOptionalTests {
    @Test("nil optionals are left out and present ones are stored as the wrapped value")
    func nilIsOmitted() throws {
        let rect = CGRect(x: 1, y: 2, width: 3, height: 4)
        let info = try UserInfoEncoder().encode(
            Sample.Optionals(present: 5, absent: nil, absentDate: nil, presentRect: rect))
        #expect(Set(info.keys.compactMap { $0.base as? String }) == ["present", "presentRect"])
        expectExactly(info["present"], 5)
        expectExactly(info["presentRect"], rect)
    }

    @Test("encodeNil stores NSNull")
    func encodeNilGivesNull() throws {
        let info = try UserInfoEncoder().encode(Sample.ExplicitNil(value: nil))
        #expect(info.count == 1)
        #expect(info["value"] is NSNull)
        expectExactly(try UserInfoEncoder().encode(Sample.ExplicitNil(value: 4))["value"], 4)
    }

    @Test("nil elements of an array are NSNull, so positions are kept")
    func nilInArrays() throws {
        let model = Sample.Collections(
            numbers: [],
            nested: [],
            maybe: [1, nil, 3],
            byName: [:],
            byNumber: [:],
            dates: []
        )
        let maybe = encodedArray(try UserInfoEncoder().encode(model)["maybe"])
        #expect(maybe.count == 3)
        expectExactly(maybe[0], 1)
        #expect(maybe[1] is NSNull)
        expectExactly(maybe[2], 3)
    }
}

@Suite("UserInfoEncoder: structure")
struct UserInfoEncoderStructureTests {
    @Test("a nested struct is a [String: Any] and an array of structs is an [Any] of them")
    func nestedStructsAndArrays() throws {
        let person = Sample.Person(
            name: "Ada",
            home: Sample.Address(street: "Main", number: 1),
            previous: [Sample.Address(street: "Old", number: 2), Sample.Address(street: "Older", number: 3)]
        )
        let info = try UserInfoEncoder().encode(person)
        expectExactly(info["name"], "Ada")
        let home = encodedDictionary(info["home"])
        #expect(home.count == 2)
        expectExactly(home["street"], "Main")
        expectExactly(home["number"], 1)
        let previous = encodedArray(info["previous"])
        #expect(previous.count == 2)
        expectExactly(encodedDictionary(previous[0])["street"], "Old")
        expectExactly(encodedDictionary(previous[1])["number"], 3)
    }

    @Test("arrays, arrays of arrays and dictionaries keep their element types")
    func collections() throws {
        let date = Date(timeIntervalSince1970: 0)
        let model = Sample.Collections(
            numbers: [3, 1, 2],
            nested: [["a"], [], ["b", "c"]],
            maybe: [],
            byName: ["pi": 3.14],
            byNumber: [7: "seven"],
            dates: [date]
        )
        let info = try UserInfoEncoder().encode(model)
        let numbers = encodedArray(info["numbers"])
        #expect(numbers.compactMap { $0 as? Int } == [3, 1, 2])
        let nested = encodedArray(info["nested"]).map { encodedArray($0).compactMap { $0 as? String } }
        #expect(nested == [["a"], [], ["b", "c"]])
        #expect(encodedArray(info["maybe"]).isEmpty)
        let byName = encodedDictionary(info["byName"])
        expectExactly(byName["pi"], 3.14)
        let byNumber = encodedDictionary(info["byNumber"])
        expectExactly(byNumber["7"], "seven")
        expectExactly(encodedArray(info["dates"]).first, date)
    }

    @Test("a top-level dictionary with String keys is a keyed container and encodes")
    func topLevelDictionary() throws {
        let info = try UserInfoEncoder().encode(["a": 1, "b": 2])
        #expect(info.count == 2)
        expectExactly(info["a"], 1)
        expectExactly(info["b"], 2)
    }

    @Test("a struct with no properties encodes as an empty dictionary")
    func emptyStruct() throws {
        #expect(try UserInfoEncoder().encode(Sample.Empty()).isEmpty)
        #expect(encodedDictionary(try UserInfoEncoder().encode(Sample.Nested(inner: Sample.Empty()))["inner"]).isEmpty)
    }

    @Test("containers handed out first and filled later end up in the output, in their places")
    func containersFilledLater() throws {
        let info = try UserInfoEncoder().encode(Sample.FillsLater())
        expectExactly(info["late"], "written after the nested containers")
        let inner = encodedDictionary(info["inner"])
        #expect(inner.count == 2)
        expectExactly(inner["a"], 10)
        expectExactly(inner["b"], 2)
        let list = encodedArray(info["list"])
        #expect(list.count == 3)
        expectExactly(encodedDictionary(list[0])["b"], "first")
        #expect(encodedArray(list[1]).compactMap { $0 as? Bool } == [true])
        expectExactly(list[2], Int8(3))
    }

    @Test("a subclass that encodes its superclass into the same container gets one dictionary with both")
    func subclassSharesTheContainer() throws {
        let info = try UserInfoEncoder().encode(Sample.Car())
        #expect(info.count == 2)
        expectExactly(info["wheels"], 4)
        expectExactly(info["brand"], "Zoom")
    }

    @Test("superEncoder writes under \"super\", superEncoder(forKey:) under its key, and an unused one is empty")
    func superEncoders() throws {
        let info = try UserInfoEncoder().encode(Sample.Truck())
        #expect(info.count == 4)
        expectExactly(info["load"], 12.5)
        expectExactly(encodedDictionary(info["super"])["wheels"], 4)
        expectExactly(encodedDictionary(info["base"])["wheels"], 4)
        #expect(encodedDictionary(info["unused"]).isEmpty)
    }

    @Test("a model that encodes a struct through a single-value container stores that struct's dictionary")
    func singleValueWrapperOfStruct() throws {
        let info = try UserInfoEncoder().encode(Sample.Wrapper(inner: Sample.Address(street: "Wrapped", number: 9)))
        #expect(info.count == 2)
        expectExactly(info["street"], "Wrapped")
        expectExactly(info["number"], 9)
    }
}

@Suite("UserInfoEncoder: errors")
struct UserInfoEncoderErrorTests {
    /// Top-level values that are not keyed containers.
    enum NotKeyed: String, CaseIterable {
        case integer
        case string
        case array
        case rawValueEnum
        case nothingEncoded

        func encode() throws {
            let encoder = UserInfoEncoder()
            switch self {
            case .integer: _ = try encoder.encode(42)
            case .string: _ = try encoder.encode("text")
            case .array: _ = try encoder.encode([1, 2, 3])
            case .rawValueEnum: _ = try encoder.encode(Sample.Mood.calm)
            case .nothingEncoded: _ = try encoder.encode(Sample.Nothing())
            }
        }
    }

    @Test("a top-level value that is not a keyed container is EncodingError.invalidValue", arguments: NotKeyed.allCases)
    func topLevelNonKeyed(value: NotKeyed) {
        let context = expectInvalidValue { try value.encode() }
        #expect(context?.codingPath.isEmpty == true)
    }

    @Test("an error the model throws that is not an EncodingError is wrapped, with the original underneath")
    func foreignErrorsAreWrapped() {
        let context = expectInvalidValue {
            _ = try UserInfoEncoder().encode(Sample.Nested(inner: Sample.ThrowsCustom()))
        }
        #expect(context?.underlyingError is Sample.CustomFailure)
    }

    @Test("an EncodingError the model throws comes out unchanged, with its coding path")
    func encodingErrorsPassThrough() {
        struct Refuses: Encodable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(
                    0,
                    EncodingError.Context(codingPath: encoder.codingPath, debugDescription: "refused")
                )
            }
        }
        let refused = expectInvalidValue { _ = try UserInfoEncoder().encode(Sample.Nested(inner: [Refuses()])) }
        #expect(refused?.debugDescription == "refused")
        #expect(refused?.codingPath.map(\.stringValue) == ["inner", "Index 0"])
        #expect(refused?.codingPath.last?.intValue == 0)
    }

    @Test("asking one encoder for a keyed and then an unkeyed container is EncodingError.invalidValue")
    func twoContainerKinds() {
        let context = expectInvalidValue {
            _ = try UserInfoEncoder().encode(Sample.Nested(inner: Sample.KeyedThenUnkeyed()))
        }
        #expect(context?.codingPath.map(\.stringValue) == ["inner"])
    }

    @Test("a second value in a single-value container is EncodingError.invalidValue")
    func twoSingleValues() {
        let context = expectInvalidValue {
            _ = try UserInfoEncoder().encode(Sample.Nested(inner: Sample.TwoSingleValues()))
        }
        #expect(context?.codingPath.map(\.stringValue) == ["inner"])
    }
}
