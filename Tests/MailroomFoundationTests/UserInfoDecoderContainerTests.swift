import Foundation
import MailroomFoundation
import Testing

@Suite("UserInfoDecoder containers: keyed, unkeyed and single-value containers work at any depth")
struct UserInfoDecoderContainerTests {
    @Test("nestedContainer(keyedBy:forKey:) and nestedUnkeyedContainer(forKey:) read nested dictionaries and arrays")
    func nestedContainersForKey() throws {
        struct Reader: Decodable {
            let name: String
            let numbers: [Int]

            init(from decoder: any Decoder) throws {
                let root = try decoder.container(keyedBy: AnyKey.self)
                let inner = try root.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("inner"))
                name = try inner.decode(String.self, forKey: AnyKey("name"))
                var list = try inner.nestedUnkeyedContainer(forKey: AnyKey("list"))
                var numbers: [Int] = []
                while !list.isAtEnd {
                    numbers.append(try list.decode(Int.self))
                }
                self.numbers = numbers
            }
        }
        let userInfo: [AnyHashable: Any] = ["inner": ["name": "n", "list": [1, 2, 3]] as [String: Any]]
        let reader = try decode(Reader.self, from: userInfo)
        #expect(reader.name == "n")
        #expect(reader.numbers == [1, 2, 3])
    }

    @Test("An unkeyed container's nested containers read dictionaries and arrays inside the array")
    func nestedContainersInUnkeyed() throws {
        struct Reader: Decodable {
            let values: [String]

            init(from decoder: any Decoder) throws {
                var list = try decoder.container(keyedBy: AnyKey.self).nestedUnkeyedContainer(forKey: AnyKey("list"))
                let keyed = try list.nestedContainer(keyedBy: AnyKey.self)
                var unkeyed = try list.nestedUnkeyedContainer()
                values = [
                    try keyed.decode(String.self, forKey: AnyKey("a")),
                    try unkeyed.decode(String.self),
                    try unkeyed.decode(String.self),
                    try list.decode(String.self),
                ]
                #expect(list.isAtEnd)
            }
        }
        let userInfo: [AnyHashable: Any] = ["list": [["a": "x"], ["y", "z"], "w"] as [Any]]
        #expect(try decode(Reader.self, from: userInfo).values == ["x", "y", "z", "w"])
    }

    @Test("superDecoder() reads the key \"super\" and superDecoder(forKey:) reads its key")
    func superDecoders() throws {
        class Base: Decodable {
            let id: Int

            init(id: Int) {
                self.id = id
            }

            required init(from decoder: any Decoder) throws {
                id = try decoder.container(keyedBy: AnyKey.self).decode(Int.self, forKey: AnyKey("id"))
            }
        }
        final class Derived: Base {
            let name: String
            let other: Int

            required init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: AnyKey.self)
                name = try container.decode(String.self, forKey: AnyKey("name"))
                other = try Base(from: container.superDecoder(forKey: AnyKey("parent"))).id
                try super.init(from: container.superDecoder())
            }
        }
        let userInfo: [AnyHashable: Any] = ["name": "n", "super": ["id": 1], "parent": ["id": 2]]
        let derived = try decode(Derived.self, from: userInfo)
        #expect(derived.name == "n")
        #expect(derived.id == 1)
        #expect(derived.other == 2)
    }

    @Test("A super decoder's failures carry the \"super\" key in their path, and a missing super is keyNotFound")
    func superDecoderPaths() throws {
        final class Derived: Decodable {
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: AnyKey.self)
                _ = try Box<Int8>(from: container.superDecoder())
            }
        }
        let failure = try #require(decodingFailure(Derived.self, from: ["super": ["value": 1000]]))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.path == ["super", "value"])
        let missing = try #require(decodingFailure(Derived.self, from: [:]))
        #expect(missing.kind == .keyNotFound)
        #expect(missing.key == "super")
    }

    @Test("An unkeyed container's superDecoder() reads the current element and moves on")
    func unkeyedSuperDecoder() throws {
        struct Reader: Decodable {
            let first: Box<String>
            let second: String

            init(from decoder: any Decoder) throws {
                var list = try decoder.container(keyedBy: AnyKey.self).nestedUnkeyedContainer(forKey: AnyKey("list"))
                first = try Box<String>(from: list.superDecoder())
                #expect(list.currentIndex == 1)
                second = try list.decode(String.self)
            }
        }
        let reader = try decode(Reader.self, from: ["list": [["value": "a"], "b"] as [Any]])
        #expect(reader.first.value == "a")
        #expect(reader.second == "b")
    }

    @Test("count, currentIndex and isAtEnd follow the elements decoded; a failed decode does not move on")
    func unkeyedBookkeeping() throws {
        struct Reader: Decodable {
            var log: [String] = []

            init(from decoder: any Decoder) throws {
                var list = try decoder.container(keyedBy: AnyKey.self).nestedUnkeyedContainer(forKey: AnyKey("list"))
                log.append("count \(list.count ?? -1) index \(list.currentIndex) end \(list.isAtEnd)")
                log.append("nil \(try list.decodeNil()) index \(list.currentIndex)")
                log.append("int \(try list.decode(Int.self)) index \(list.currentIndex)")
                log.append("nil \(try list.decodeNil()) index \(list.currentIndex)")
                do {
                    _ = try list.decode(Int.self)
                } catch {
                    log.append("failed index \(list.currentIndex)")
                }
                log.append("string \(try list.decode(String.self)) index \(list.currentIndex) end \(list.isAtEnd)")
            }
        }
        let reader = try decode(Reader.self, from: ["list": [NSNull(), 7, "s"] as [Any]])
        #expect(
            reader.log == [
                "count 3 index 0 end false", "nil true index 1", "int 7 index 2", "nil false index 2", "failed index 2",
                "string s index 3 end true",
            ])
    }

    @Test("Decoding past the end of an array is valueNotFound at the missing index")
    func pastTheEnd() throws {
        struct Reader: Decodable {
            init(from decoder: any Decoder) throws {
                var list = try decoder.container(keyedBy: AnyKey.self).nestedUnkeyedContainer(forKey: AnyKey("list"))
                _ = try list.decode(Int.self)
                _ = try list.decode(Int.self)
            }
        }
        let failure = try #require(decodingFailure(Reader.self, from: ["list": [1]]))
        #expect(failure.kind == .valueNotFound)
        #expect(failure.path == ["list", "Index 1"])
        #expect(failure.type == "Int")
        #expect(failure.message == "Expected Int at index 1, but the array has 1 element.")
    }

    @Test("decodeNil and nested containers past the end are valueNotFound too")
    func otherReadsPastTheEnd() throws {
        struct Reader: Decodable {
            init(from decoder: any Decoder) throws {
                var list = try decoder.container(keyedBy: AnyKey.self).nestedUnkeyedContainer(forKey: AnyKey("list"))
                let attempts: [() throws -> Void] = [
                    { _ = try list.decodeNil() },
                    { _ = try list.nestedContainer(keyedBy: AnyKey.self) },
                    { _ = try list.nestedUnkeyedContainer() },
                    { _ = try list.superDecoder() },
                ]
                for attempt in attempts {
                    #expect {
                        try attempt()
                    } throws: { error in
                        guard case .valueNotFound(_, let context) = error as? DecodingError else { return false }
                        return context.codingPath.map(\.stringValue) == ["list", "Index 0"]
                    }
                }
            }
        }
        _ = try decode(Reader.self, from: ["list": [Any]()])
    }

    @Test("Nested arrays and dictionaries decode from Swift and Foundation collections alike")
    func collectionsOfEveryKind() throws {
        struct Model: Decodable, Equatable {
            let matrix: [[Int]]
            let table: [String: [String: Double]]
            let boxes: [Box<String>]
        }
        let expected = Model(
            matrix: [[1, 2], [], [3]], table: ["a": ["x": 0.5], "b": [:]],
            boxes: [Box(value: "p"), Box(value: "q")])
        let swiftValues: [AnyHashable: Any] = [
            "matrix": [[1, 2], [], [3]] as [[Int]],
            "table": ["a": ["x": 0.5], "b": [String: Double]()] as [String: [String: Double]],
            "boxes": [["value": "p"], ["value": "q"]] as [[String: String]],
        ]
        let foundationValues: [AnyHashable: Any] = [
            "matrix": NSArray(array: [NSArray(array: [1, 2]), NSArray(), NSArray(array: [3])]),
            "table": NSDictionary(dictionary: ["a": NSDictionary(dictionary: ["x": 0.5]), "b": NSDictionary()]),
            "boxes": NSArray(array: [NSDictionary(dictionary: ["value": "p"]), ["value": "q"] as [AnyHashable: Any]]),
        ]
        #expect(try decode(Model.self, from: swiftValues) == expected)
        #expect(try decode(Model.self, from: foundationValues) == expected)
    }

    @Test("A top-level NSDictionary bridged to [AnyHashable: Any] decodes")
    func topLevelNSDictionary() throws {
        let dictionary = NSMutableDictionary()
        dictionary["name"] = NSString(string: "n")
        dictionary["count"] = NSNumber(value: 3)
        let userInfo = try #require(dictionary as? [AnyHashable: Any])
        struct Model: Decodable, Equatable {
            let name: String
            let count: Int
        }
        #expect(try decode(Model.self, from: userInfo) == Model(name: "n", count: 3))
    }

    @Test("A non-keyed type at the top level is a type mismatch describing the dictionary")
    func topLevelScalar() throws {
        let failure = try #require(decodingFailure(Int.self, from: ["a": 1, "b": 2]))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.path == [])
        #expect(failure.type == "Int")
        #expect(failure.message == "Expected Int but found a dictionary of 2 entries (Dictionary<AnyHashable, Any>).")
        #expect(decodingFailure([Int].self, from: [:])?.message.hasPrefix("Expected an array but found") == true)
        #expect(decodingFailure(CGRect.self, from: [:])?.kind == .typeMismatch)
    }

    @Test("A top-level single-value container holds the dictionary, so it can decode a model")
    func topLevelSingleValue() throws {
        struct Wrapper: Decodable {
            let inner: Box<Int>

            init(from decoder: any Decoder) throws {
                inner = try decoder.singleValueContainer().decode(Box<Int>.self)
            }
        }
        #expect(try decode(Wrapper.self, from: ["value": 4]).inner.value == 4)
        #expect(try decode([String: Int].self, from: ["a": 1]) == ["a": 1])
    }

    @Test("A keyed container over an array and an unkeyed container over a dictionary are type mismatches")
    func wrongContainerKind() throws {
        let keyed = try #require(decodingFailure(Box<Box<Int>>.self, from: ["value": [1, 2]]))
        #expect(keyed.kind == .typeMismatch)
        #expect(keyed.path == ["value"])
        #expect(keyed.message == "Expected a dictionary but found an array of 2 elements (Array<Int>).")
        let unkeyed = try #require(decodingFailure(Box<[Int]>.self, from: ["value": ["a": 1]]))
        #expect(unkeyed.kind == .typeMismatch)
        #expect(unkeyed.message == "Expected an array but found a dictionary of 1 entry (Dictionary<String, Int>).")
        #expect(decodingFailure(Box<[Int]>.self, from: ["value": "1,2"])?.kind == .typeMismatch)
    }

    @Test("The decoder's userInfo reaches every model's Decoder.userInfo")
    func userInfoReachesModels() throws {
        let key = try #require(CodingUserInfoKey(rawValue: "unit"))
        struct Reader: Decodable {
            let unit: String?

            init(from decoder: any Decoder) throws {
                let key = CodingUserInfoKey(rawValue: "unit")
                unit = key.flatMap { decoder.userInfo[$0] as? String }
            }
        }
        var decoder = UserInfoDecoder()
        #expect(decoder.userInfo.isEmpty)
        decoder.userInfo[key] = "pt"
        #expect(try decoder.decode(Box<[Reader]>.self, from: ["value": [[:]]]).value.first?.unit == "pt")
    }

    @Test("An error a model's init(from:) throws passes through unchanged")
    func modelErrorsPassThrough() throws {
        struct Refusal: Error, Equatable {}
        struct Refuses: Decodable {
            init(from decoder: any Decoder) throws {
                throw Refusal()
            }
        }
        #expect(throws: Refusal()) {
            try decode(Box<Refuses>.self, from: ["value": 1])
        }
    }
}

@Suite("UserInfoDecoder scale: deep and large inputs decode without crashing or slowing down")
struct UserInfoDecoderScaleTests {
    final class Chain: Decodable {
        let depth: Int
        let next: Chain?

        enum CodingKeys: CodingKey {
            case next
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            next = try container.decodeIfPresent(Chain.self, forKey: .next)
            depth = (next?.depth ?? 0) + 1
        }
    }

    private func chain(depth: Int, innermost: [AnyHashable: Any] = [:]) -> [AnyHashable: Any] {
        var value = innermost
        for _ in 1..<depth {
            value = ["next": value]
        }
        return value
    }

    @Test("A model nested 200 levels deep decodes, and a failure at the bottom has all 200 keys in its path")
    func deepModel() throws {
        #expect(try decode(Chain.self, from: chain(depth: 200)).depth == 200)
        let failure = try #require(decodingFailure(Chain.self, from: chain(depth: 200, innermost: ["next": 5])))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.path == Array(repeating: "next", count: 200))
    }

    @Test("A deeply nested value the model does not read costs nothing, and one of the wrong type is described flatly")
    func deepUnreadValue() throws {
        var deep: Any = 1
        for _ in 0..<5_000 {
            deep = [deep]
        }
        #expect(try decode(Box<Int>.self, from: ["value": 1, "unread": deep]).value == 1)
        let failure = try #require(valueFailure(Int.self, from: deep))
        #expect(failure.message == "Expected Int but found an array of 1 element (Array<Any>).")
    }

    @Test("An array of a million NSNumbers decodes, and a bad last element is reported at its index")
    func hugeArray() throws {
        let count = 1_000_000
        let numbers = NSMutableArray(capacity: count)
        for index in 0..<count {
            numbers.add(NSNumber(value: index))
        }
        let decoded = try decodeValue([Int].self, from: numbers)
        #expect(decoded.count == count)
        #expect(decoded.last == count - 1)
        numbers.add("not a number")
        let failure = try #require(valueFailure([Int].self, from: numbers))
        #expect(failure.path == ["value", "Index 1000000"])
    }

    @Test("A dictionary of 200,000 keys of mixed types decodes in linear time", .timeLimit(.minutes(1)))
    func hugeDictionary() throws {
        var userInfo: [AnyHashable: Any] = [:]
        for index in 0..<100_000 {
            userInfo["s\(index)"] = index
            userInfo[InfoKey(rawValue: "r\(index)")] = index
        }
        let decoded = try decode([String: Int].self, from: userInfo)
        #expect(decoded.count == 200_000)
        #expect(decoded["r99999"] == 99_999)
    }
}
