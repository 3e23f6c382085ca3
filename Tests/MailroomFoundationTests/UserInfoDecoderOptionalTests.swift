import Foundation
import MailroomFoundation
import Testing

@Suite("UserInfoDecoder optionals: missing and null are nil, a value of the wrong type is an error")
struct UserInfoDecoderOptionalTests {
    @Test("A missing key decodes as nil")
    func missingKeyIsNil() throws {
        #expect(try decode(OptionalBox<Int>.self, from: [:]).value == nil)
        #expect(try decode(OptionalBox<CGRect>.self, from: ["other": 1]).value == nil)
    }

    @Test("An NSNull value decodes as nil")
    func nsNullIsNil() throws {
        #expect(try decode(OptionalBox<Int>.self, from: ["value": NSNull()]).value == nil)
        #expect(try decode(OptionalBox<Date>.self, from: ["value": NSNull()]).value == nil)
        #expect(try decode(OptionalBox<[String]>.self, from: ["value": NSNull()]).value == nil)
    }

    @Test("A stored Optional.none decodes as nil, and a stored Optional.some as its value")
    func storedOptionalsAreUnwrapped() throws {
        let none: Int? = nil
        let some: Int? = 5
        let nested: String?? = .some("deep")
        #expect(try decode(OptionalBox<Int>.self, from: ["value": none as Any]).value == nil)
        #expect(try decode(OptionalBox<Int>.self, from: ["value": some as Any]).value == 5)
        #expect(try decode(Box<Int>.self, from: ["value": some as Any]).value == 5)
        #expect(try decode(Box<String>.self, from: ["value": nested as Any]).value == "deep")
        #expect(try decode(Box<Int>.self, from: ["value": AnyHashable(6)]).value == 6)
    }

    @Test("A present value of the wrong type is a type mismatch, not nil")
    func wrongTypeIsAnError() throws {
        let failure = try #require(decodingFailure(OptionalBox<Int>.self, from: ["value": "5"]))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.path == ["value"])
        #expect(failure.message == "Expected Int but found \"5\" (String).")
        #expect(decodingFailure(OptionalBox<Int8>.self, from: ["value": 300])?.kind == .typeMismatch)
        #expect(decodingFailure(OptionalBox<Bool>.self, from: ["value": NSNumber(value: 1)])?.kind == .typeMismatch)
    }

    @Test("A present value of the right type decodes")
    func presentValueDecodes() throws {
        #expect(try decode(OptionalBox<Int>.self, from: ["value": NSNumber(value: 42)]).value == 42)
        #expect(try decode(OptionalBox<Mode>.self, from: ["value": "dark"]).value == .dark)
    }

    @Test("A required value that is NSNull is valueNotFound at its path")
    func requiredNullIsValueNotFound() throws {
        let failure = try #require(decodingFailure(Box<Int>.self, from: ["value": NSNull()]))
        #expect(failure.kind == .valueNotFound)
        #expect(failure.path == ["value"])
        #expect(failure.type == "Int")
        #expect(failure.message == "Expected Int but found null.")
        let none: String? = nil
        #expect(decodingFailure(Box<String>.self, from: ["value": none as Any])?.kind == .valueNotFound)
    }

    @Test("A required model that is NSNull is valueNotFound when it asks for its container")
    func requiredNullModelIsValueNotFound() throws {
        let failure = try #require(decodingFailure(Box<Box<Int>>.self, from: ["value": NSNull()]))
        #expect(failure.kind == .valueNotFound)
        #expect(failure.path == ["value"])
        #expect(failure.message == "Expected a dictionary but found null.")
    }

    @Test("Nulls in an array decode as nil elements")
    func nullElementsAreNil() throws {
        let values = try decode(Box<[Int?]>.self, from: ["value": [1, NSNull(), 3] as [Any]]).value
        #expect(values == [1, nil, 3])
        let fromNSArray = try decode(Box<[Int?]>.self, from: ["value": NSArray(array: [NSNull(), 2])]).value
        #expect(fromNSArray == [nil, 2])
    }

    @Test("decodeNil(forKey:) is true for null and false for a value; contains is true for both")
    func decodeNilForKey() throws {
        struct Probe: Decodable {
            let results: [Bool]

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: AnyKey.self)
                results = [
                    try container.decodeNil(forKey: AnyKey("null")),
                    try container.decodeNil(forKey: AnyKey("value")),
                    container.contains(AnyKey("null")),
                    container.contains(AnyKey("value")),
                    container.contains(AnyKey("missing")),
                ]
            }
        }
        let userInfo: [AnyHashable: Any] = ["null": NSNull(), "value": 1]
        #expect(try decode(Probe.self, from: userInfo).results == [true, false, true, true, false])
    }

    @Test("decodeNil(forKey:) for a missing key is keyNotFound")
    func decodeNilForMissingKey() throws {
        struct Probe: Decodable {
            init(from decoder: any Decoder) throws {
                _ = try decoder.container(keyedBy: AnyKey.self).decodeNil(forKey: AnyKey("missing"))
            }
        }
        let failure = try #require(decodingFailure(Probe.self, from: ["other": 1]))
        #expect(failure.kind == .keyNotFound)
        #expect(failure.key == "missing")
        #expect(failure.path == [])
    }

    @Test("A single-value container reports a null as decodeNil")
    func singleValueDecodeNil() throws {
        struct NullCheck: Decodable {
            let isNull: Bool

            init(from decoder: any Decoder) throws {
                isNull = try decoder.singleValueContainer().decodeNil()
            }
        }
        #expect(try decode(Box<NullCheck>.self, from: ["value": NSNull()]).value.isNull)
        #expect(try decode(Box<NullCheck>.self, from: ["value": 0]).value.isNull == false)
    }
}
