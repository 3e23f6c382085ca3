import Foundation
import MailroomFoundation
import Testing

@Suite("UserInfoDecoder errors: each failure is the right DecodingError with the full coding path")
struct UserInfoDecoderErrorTests {
    /// A valid shipment: two orders, the second with two lines.
    private func shipment(
        replacingLine lineIndex: Int = 1, with line: [String: Any]? = nil
    ) -> [AnyHashable: Any] {
        var lines: [Any] = [
            ["sku": "A", "quantity": NSNumber(value: 1)],
            ["sku": NSString(string: "B"), "quantity": 2, "mode": "dark"],
        ]
        if let line {
            lines[lineIndex] = line
        }
        return [
            "orders": NSArray(array: [
                ["id": "o1", "lines": [Any]()] as [String: Any],
                NSDictionary(dictionary: ["id": "o2", "lines": lines]),
            ])
        ]
    }

    @Test("A valid shipment decodes every level")
    func validShipment() throws {
        let decoded = try decode(Shipment.self, from: shipment())
        #expect(
            decoded
                == Shipment(orders: [
                    Order(id: "o1", lines: []),
                    Order(
                        id: "o2",
                        lines: [Line(sku: "A", quantity: 1, mode: nil), Line(sku: "B", quantity: 2, mode: .dark)]),
                ]))
    }

    @Test("A missing key is keyNotFound with the path of its dictionary")
    func keyNotFoundAtTopLevel() throws {
        let failure = try #require(decodingFailure(Shipment.self, from: ["order": []]))
        #expect(failure.kind == .keyNotFound)
        #expect(failure.key == "orders")
        #expect(failure.path == [])
        #expect(failure.message == "No value for key \"orders\".")
    }

    @Test("A missing key four levels down is keyNotFound with the path through the arrays")
    func keyNotFoundDeep() throws {
        let failure = try #require(decodingFailure(Shipment.self, from: shipment(with: ["sku": "B"])))
        #expect(failure.kind == .keyNotFound)
        #expect(failure.key == "quantity")
        #expect(failure.path == ["orders", "Index 1", "lines", "Index 1"])
    }

    @Test("A value that does not fit five levels down is typeMismatch with the full path")
    func typeMismatchDeep() throws {
        let failure = try #require(decodingFailure(Shipment.self, from: shipment(with: ["sku": "B", "quantity": 300])))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.type == "UInt8")
        #expect(failure.path == ["orders", "Index 1", "lines", "Index 1", "quantity"])
        // The line went through `NSDictionary(dictionary:)`, which stores the Swift Int as an NSNumber.
        #expect(failure.message == "Expected UInt8 but found 300 (NSNumber), which does not fit.")
    }

    @Test("A null required value five levels down is valueNotFound with the full path")
    func valueNotFoundDeep() throws {
        let failure = try #require(
            decodingFailure(Shipment.self, from: shipment(with: ["sku": NSNull(), "quantity": 1])))
        #expect(failure.kind == .valueNotFound)
        #expect(failure.type == "String")
        #expect(failure.path == ["orders", "Index 1", "lines", "Index 1", "sku"])
    }

    @Test("An unknown enum raw value five levels down is dataCorrupted with the full path")
    func dataCorruptedDeep() throws {
        let failure = try #require(
            decodingFailure(Shipment.self, from: shipment(with: ["sku": "B", "quantity": 1, "mode": "sepia"])))
        #expect(failure.kind == .dataCorrupted)
        #expect(failure.path == ["orders", "Index 1", "lines", "Index 1", "mode"])
    }

    @Test("An optional value of the wrong type five levels down is typeMismatch, not nil")
    func optionalMismatchDeep() throws {
        let failure = try #require(
            decodingFailure(Shipment.self, from: shipment(with: ["sku": "B", "quantity": 1, "mode": 1])))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.path == ["orders", "Index 1", "lines", "Index 1", "mode"])
    }

    @Test("A line that is not a dictionary is typeMismatch at its index")
    func wrongContainerDeep() throws {
        var userInfo = shipment()
        userInfo["orders"] = [["id": "o1", "lines": ["A"]]]
        let failure = try #require(decodingFailure(Shipment.self, from: userInfo))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.path == ["orders", "Index 0", "lines", "Index 0"])
        #expect(failure.message == "Expected a dictionary but found \"A\" (String).")
    }

    @Test("Reading past the end of a nested array is valueNotFound with the missing index in the path")
    func pastTheEndDeep() throws {
        struct Pair: Decodable {
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                _ = try container.decode(Int.self)
                _ = try container.decode(Int.self)
            }
        }
        let userInfo: [AnyHashable: Any] = ["value": [["pairs": [[1, 2], [3]]]]]
        let failure = try #require(decodingFailure(Box<[[String: [Pair]]]>.self, from: userInfo))
        #expect(failure.kind == .valueNotFound)
        #expect(failure.path == ["value", "Index 0", "pairs", "Index 1", "Index 1"])
        #expect(failure.message == "Expected Int at index 1, but the array has 1 element.")
    }

    @Test("Index keys in paths have an intValue as well as their \"Index N\" string")
    func indexKeysHaveIntValues() throws {
        do {
            _ = try decode(Box<[Int]>.self, from: ["value": [1, 2, "3"] as [Any]])
            Issue.record("Expected a failure")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.intValue) == [nil, 2])
            #expect(context.codingPath.map(\.stringValue) == ["value", "Index 2"])
        }
    }

    @Test("Long strings are shortened in descriptions")
    func longStringsAreShortened() throws {
        let long = String(repeating: "x", count: 100)
        let failure = try #require(valueFailure(Int.self, from: long))
        #expect(failure.message == "Expected Int but found \"\(String(repeating: "x", count: 60))…\" (String).")
    }

    /// Found by the fuzzer (Tests/Fuzz): describing this date with `Date.description` stopped the process.
    @Test("A date of NaN seconds in the wrong place is a type mismatch that describes it, not a crash")
    func nanDatesAreDescribed() throws {
        let failure = try #require(valueFailure(String.self, from: Date(timeIntervalSinceReferenceDate: .nan)))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.message == "Expected String but found a date of NaN seconds since 2001 (Date).")
    }
}
