// A libFuzzer target for `UserInfoDecoder` (and `UserInfoEncoder`, through round trips).
//
// Compiled standalone with the files of `Sources/MailroomFoundation/UserInfo` (see `run.sh`), so it names the coders
// without a module prefix. Each input's bytes are read as a sequence of choices that build nested `userInfo`
// dictionaries: mostly shaped like the models below (so decoding often gets deep), with a wrong type, a missing or
// extra key, a bridged Foundation object or an extreme number wherever a choice says so. Every dictionary is decoded
// into each model; when decoding succeeds, the value is encoded and decoded again, and the result must equal the
// first value, or the target aborts so that libFuzzer reports the input.

import Foundation

// MARK: - Models

private struct AllKinds: Codable, Equatable {
    var string: String
    var bool: Bool
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var double: Double
    var float: Float
    var date: Date
    var url: URL
    var data: Data
    var cgFloat: CGFloat
    var point: CGPoint
    var size: CGSize
    var rect: CGRect
}

private struct Item: Codable, Equatable {
    var id: Int
    var label: String
    var weight: Double?
}

private struct Nested: Codable, Equatable {
    var name: String
    var items: [Item]
    var table: [String: Int]
    var matrix: [[Double]]
    var child: Item?
    var lookup: [Int: String]
    var groups: [String: [Item]]
}

private struct Optionals: Codable, Equatable {
    var maybeInt: Int?
    var maybeString: String?
    var maybeDate: Date?
    var maybeRect: CGRect?
    var maybeItem: Item?
    var maybeList: [Int]?
    var maybeHoles: [String?]
}

private enum Mood: String, Codable, Equatable {
    case calm
    case busy
}

private enum Level: Int, Codable, Equatable {
    case low = 1
    case high = 9
}

private enum Bits: UInt8, Codable, Equatable {
    case none = 0
    case all = 255
}

private struct Enums: Codable, Equatable {
    var mood: Mood
    var level: Level
    var bits: Bits
    var moods: [Mood]
    var maybeLevel: Level?
    var moodTable: [String: Mood]
}

private struct KeyboardFrame: Codable, Equatable {
    var begin: CGRect
    var end: CGRect
    var duration: Double
    var curve: Int
    var isLocal: Bool?

    enum CodingKeys: String, CodingKey {
        case begin = "UIKeyboardFrameBeginUserInfoKey"
        case end = "UIKeyboardFrameEndUserInfoKey"
        case duration = "UIKeyboardAnimationDurationUserInfoKey"
        case curve = "UIKeyboardAnimationCurveUserInfoKey"
        case isLocal = "UIKeyboardIsLocalUserInfoKey"
    }
}

/// A recursive value with synthesized coding: each case is a keyed container holding `_0`, `_1`.
private indirect enum Expr: Codable, Equatable {
    case number(Double)
    case text(String)
    case pair(Expr, Expr)
    case list([Expr])
}

/// A recursive class tree that refuses to decode deeper than `maximumDepth` levels.
private final class TreeNode: Codable, Equatable {
    static let maximumDepth = 80

    let value: Int
    let children: [TreeNode]

    enum CodingKeys: String, CodingKey {
        case value
        case children
    }

    init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count <= 2 * Self.maximumDepth else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "tree too deep")
            )
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        value = try container.decode(Int.self, forKey: .value)
        children = try container.decode([TreeNode].self, forKey: .children)
    }

    static func == (lhs: TreeNode, rhs: TreeNode) -> Bool {
        lhs.value == rhs.value && lhs.children == rhs.children
    }
}

private struct Recursive: Codable, Equatable {
    var root: Expr
    var tree: TreeNode
}

// MARK: - Reading choices from the input

/// Reads the input as choices. Past the end every choice is zero, and zero always means "stop growing".
private struct Choices {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    /// How many values may still be made, counting a repeated array's elements; bounds the work per input.
    var budget: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        budget = 256 + 64 * bytes.count
    }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func below(_ limit: Int) -> Int {
        Int(byte()) % max(limit, 1)
    }

    mutating func word<T: FixedWidthInteger>(_ type: T.Type) -> T {
        var result: T = 0
        for _ in 0..<(T.bitWidth / 8) {
            result = result << 8 | T(truncatingIfNeeded: byte())
        }
        return result
    }

    mutating func pick<T>(_ options: [T]) -> T {
        options[below(options.count)]
    }
}

// MARK: - Shapes the dictionaries are built from

/// What a position of a model expects. A class rather than an indirect enum: the models' shapes live in globals
/// for the whole run, and LeakSanitizer does not recognize the tagged pointers of an indirect enum's boxes.
private final class Shape: Sendable {
    enum Kind {
        case string
        case bool
        case int
        case int8
        case int16
        case int32
        case int64
        case uint
        case uint8
        case uint16
        case uint32
        case uint64
        case double
        case float
        case date
        case url
        case data
        case cgFloat
        case point
        case size
        case rect
        /// One of `options`: the raw values of an enum.
        case oneOf
        /// An array of `element`.
        case array
        /// A dictionary with String keys and `element` values.
        case dictionary
        /// A keyed container with `fields`.
        case object
        case expr
        case tree
    }

    let kind: Kind
    let element: Shape?
    let fields: [(String, Shape)]
    let options: [any Sendable]

    private init(_ kind: Kind, element: Shape? = nil, fields: [(String, Shape)] = [], options: [any Sendable] = []) {
        self.kind = kind
        self.element = element
        self.fields = fields
        self.options = options
    }

    static let string = Shape(.string)
    static let bool = Shape(.bool)
    static let int = Shape(.int)
    static let int8 = Shape(.int8)
    static let int16 = Shape(.int16)
    static let int32 = Shape(.int32)
    static let int64 = Shape(.int64)
    static let uint = Shape(.uint)
    static let uint8 = Shape(.uint8)
    static let uint16 = Shape(.uint16)
    static let uint32 = Shape(.uint32)
    static let uint64 = Shape(.uint64)
    static let double = Shape(.double)
    static let float = Shape(.float)
    static let date = Shape(.date)
    static let url = Shape(.url)
    static let data = Shape(.data)
    static let cgFloat = Shape(.cgFloat)
    static let point = Shape(.point)
    static let size = Shape(.size)
    static let rect = Shape(.rect)
    static let expr = Shape(.expr)
    static let tree = Shape(.object, fields: [("value", .int), ("children", Shape(.array, element: Shape(.tree)))])

    static func oneOf(_ options: [any Sendable]) -> Shape { Shape(.oneOf, options: options) }
    static func array(_ element: Shape) -> Shape { Shape(.array, element: element) }
    static func dictionary(_ element: Shape) -> Shape { Shape(.dictionary, element: element) }
    static func object(_ fields: [(String, Shape)]) -> Shape { Shape(.object, fields: fields) }
}

private let itemShape = Shape.object([("id", .int), ("label", .string), ("weight", .double)])

private let modelShapes: [(String, Shape)] = [
    // AllKinds
    ("string", .string), ("bool", .bool), ("int", .int), ("int8", .int8), ("int16", .int16),
    ("int32", .int32), ("int64", .int64), ("uint", .uint), ("uint8", .uint8), ("uint16", .uint16),
    ("uint32", .uint32), ("uint64", .uint64), ("double", .double), ("float", .float), ("date", .date),
    ("url", .url), ("data", .data), ("cgFloat", .cgFloat), ("point", .point), ("size", .size), ("rect", .rect),
    // Nested
    ("name", .string), ("items", .array(itemShape)), ("table", .dictionary(.int)),
    ("matrix", .array(.array(.double))), ("child", itemShape), ("lookup", .dictionary(.string)),
    ("groups", .dictionary(.array(itemShape))),
    // Optionals
    ("maybeInt", .int), ("maybeString", .string), ("maybeDate", .date), ("maybeRect", .rect),
    ("maybeItem", itemShape), ("maybeList", .array(.int)), ("maybeHoles", .array(.string)),
    // Enums
    ("mood", .oneOf(["calm", "busy", "Calm", ""])), ("level", .oneOf([1, 9, 2, Int8(9)])),
    ("bits", .oneOf([UInt8(0), UInt8(255), 255, UInt8(7)])), ("moods", .array(.oneOf(["calm", "busy"]))),
    ("maybeLevel", .oneOf([1, 9])), ("moodTable", .dictionary(.oneOf(["calm", "busy", "sad"]))),
    // KeyboardFrame
    ("UIKeyboardFrameBeginUserInfoKey", .rect), ("UIKeyboardFrameEndUserInfoKey", .rect),
    ("UIKeyboardAnimationDurationUserInfoKey", .double), ("UIKeyboardAnimationCurveUserInfoKey", .int),
    ("UIKeyboardIsLocalUserInfoKey", .bool),
    // Recursive
    ("root", .expr), ("tree", .tree),
]

private let vocabulary: [String] =
    modelShapes.map(\.0) + [
        "id", "label", "weight", "value", "children", "number", "text", "pair", "list", "_0", "_1", "super",
        "0", "1", "-1", "1.5", "true", "nan", "1e400", "", "\u{0}", "é", "e\u{301}", "🙂",
    ]

private let maximumDepth = 64

// MARK: - Building values

private struct Builder {
    var choices: Choices

    /// A value for `shape`: usually of that shape, sometimes anything at all.
    mutating func value(_ shape: Shape, depth: Int) -> Any {
        choices.budget -= 1
        if choices.budget <= 0 || depth >= maximumDepth {
            return leaf()
        }
        let mode = choices.byte()
        if mode >= 0xE8 {
            return anything(depth: depth)
        }
        switch shape.kind {
        case .string: return mode >= 0xD0 ? NSString(string: string()) : string()
        case .bool: return mode >= 0xD8 ? NSNumber(value: mode & 1 == 0) : mode & 1 == 0
        case .int: return mode >= 0xD0 ? number() : choices.word(Int.self)
        case .int8: return choices.word(Int8.self)
        case .int16: return choices.word(Int16.self)
        case .int32: return choices.word(Int32.self)
        case .int64: return choices.word(Int64.self)
        case .uint: return choices.word(UInt.self)
        case .uint8: return choices.word(UInt8.self)
        case .uint16: return choices.word(UInt16.self)
        case .uint32: return choices.word(UInt32.self)
        case .uint64: return choices.word(UInt64.self)
        case .double: return mode >= 0xD0 ? number() : double()
        case .float: return Float(double())
        case .date: return date()
        case .url: return url()
        case .data: return data()
        case .cgFloat: return CGFloat(double())
        case .point: return CGPoint(x: double(), y: double())
        case .size: return CGSize(width: double(), height: double())
        case .rect: return mode >= 0xD0 ? NSValue(rect: rect()) : rect()
        case .oneOf: return shape.options.isEmpty ? leaf() : choices.pick(shape.options)
        case .array:
            let element = shape.element ?? .int
            return array(depth: depth) { $0.value(element, depth: depth + 1) }
        case .dictionary:
            let element = shape.element ?? .int
            return dictionary(depth: depth) { $0.value(element, depth: depth + 1) }
        case .object: return object(shape.fields, depth: depth)
        case .expr: return expr(depth: depth)
        case .tree: return object(Shape.tree.fields, depth: depth)
        }
    }

    /// The fields in order, each present with its shape, present with anything, or absent; then extra keys.
    mutating func object(_ fields: [(String, Shape)], depth: Int) -> Any {
        var entries: [(AnyHashable, Any)] = []
        for (name, shape) in fields {
            let presence = choices.byte()
            if presence >= 0xF4 { continue }
            let value = presence >= 0xEC ? anything(depth: depth + 1) : value(shape, depth: depth + 1)
            entries.append((key(name), value))
        }
        for _ in 0..<(choices.byte() >= 0xF0 ? choices.below(4) : 0) {
            entries.append((key(string()), anything(depth: depth + 1)))
        }
        return container(entries)
    }

    /// `Expr` as its synthesized coding writes it: `{"pair": {"_0": ..., "_1": ...}}`.
    mutating func expr(depth: Int) -> Any {
        let payload: [(String, Shape)]
        let name: String
        switch depth >= maximumDepth - 2 ? 0 : choices.below(4) {
        case 0:
            (name, payload) = ("number", [("_0", .double)])
        case 1:
            (name, payload) = ("text", [("_0", .string)])
        case 2:
            (name, payload) = ("pair", [("_0", .expr), ("_1", .expr)])
        default:
            (name, payload) = ("list", [("_0", .array(.expr))])
        }
        return object([(name, .object(payload))], depth: depth)
    }

    /// Any kind of value, including the kinds no model expects.
    mutating func anything(depth: Int) -> Any {
        choices.budget -= 1
        if choices.budget <= 0 || depth >= maximumDepth {
            return leaf()
        }
        switch choices.below(36) {
        case 0: return string()
        case 1: return NSString(string: string())
        case 2: return choices.byte() & 1 == 0
        case 3: return choices.word(Int.self)
        case 4: return choices.word(Int8.self)
        case 5: return choices.word(Int16.self)
        case 6: return choices.word(Int32.self)
        case 7: return choices.word(Int64.self)
        case 8: return choices.word(UInt.self)
        case 9: return choices.word(UInt8.self)
        case 10: return choices.word(UInt16.self)
        case 11: return choices.word(UInt32.self)
        case 12: return choices.word(UInt64.self)
        case 13: return double()
        case 14: return Float(double())
        case 15: return number()
        case 16: return date()
        case 17: return url()
        case 18: return data()
        case 19: return CGFloat(double())
        case 20: return CGPoint(x: double(), y: double())
        case 21: return CGSize(width: double(), height: double())
        case 22: return rect()
        case 23:
            switch choices.below(3) {
            case 0: return NSValue(rect: rect())
            case 1: return NSValue(point: CGPoint(x: double(), y: double()))
            default: return NSValue(size: CGSize(width: double(), height: double()))
            }
        case 24: return NSNull()
        case 25: return array(depth: depth) { $0.anything(depth: depth + 1) }
        case 26: return dictionary(depth: depth) { $0.anything(depth: depth + 1) }
        case 27: return repeated(depth: depth)
        case 28: return choices.pick(["1", "0", "true", "nan", "-inf", "1e400", "0x10", "2001-01-01T00:00:00Z"])
        case 29:
            let elements = (0..<choices.below(4)).map { _ in anything(depth: depth + 1) }
            return choices.byte() & 1 == 0 ? NSArray(array: elements) : NSMutableArray(array: elements)
        case 30: return NSDate(timeIntervalSinceReferenceDate: double())
        case 31: return NSData(data: Data(bytes()))
        case 32: return Notification.Name(string())
        case 33: return expr(depth: depth)
        case 34: return value(choices.pick(modelShapes).1, depth: depth + 1)
        default: return [(0..<choices.below(3)).map { _ in choices.word(Int8.self) }]
        }
    }

    /// A value that costs no further choices, for when the depth or the budget is spent.
    mutating func leaf() -> Any {
        switch choices.below(4) {
        case 0: return 0
        case 1: return ""
        case 2: return NSNull()
        default: return [String: Any]()
        }
    }

    /// An array of one value repeated up to the budget's limit: large counts without large inputs.
    mutating func repeated(depth: Int) -> Any {
        let before = choices.budget
        let element = anything(depth: depth + 1)
        let cost = max(before - choices.budget, 1)
        let wanted = Int(choices.word(UInt16.self)) * (choices.byte() & 1 == 0 ? 1 : 16)
        let count = max(min(wanted, choices.budget / cost), 0)
        choices.budget -= count * cost
        return [Any](repeating: element, count: count)
    }

    mutating func array(depth: Int, element: (inout Builder) -> Any) -> Any {
        let count = choices.below(8)
        var elements: [Any] = []
        for _ in 0..<count {
            elements.append(element(&self))
        }
        return choices.byte() >= 0xF8 ? NSArray(array: elements) : elements
    }

    /// Up to 5 entries under keys made from random strings.
    mutating func dictionary(depth: Int, element: (inout Builder) -> Any) -> Any {
        var entries: [(AnyHashable, Any)] = []
        for _ in 0..<choices.below(6) {
            let name = string()
            entries.append((key(name), element(&self)))
        }
        return container(entries)
    }

    /// A key for `name`: usually the `String`, sometimes an `NSString`, a `Notification.Name` or an `Int`.
    mutating func key(_ name: String) -> AnyHashable {
        switch choices.byte() {
        case 0..<0xE0: return AnyHashable(name)
        case 0xE0..<0xE8: return AnyHashable(NSString(string: name))
        case 0xE8..<0xF0: return AnyHashable(Notification.Name(name))
        case 0xF0..<0xF8: return AnyHashable(Int(name) ?? Int(choices.word(Int8.self)))
        default: return AnyHashable(NSNumber(value: Int(name) ?? 1))
        }
    }

    /// A dictionary of the entries as `[String: Any]` (when every key is a String), `[AnyHashable: Any]` or an
    /// `NSDictionary`. A later entry with an equal key replaces an earlier one.
    mutating func container(_ entries: [(AnyHashable, Any)]) -> Any {
        // Keys that are equal replace each other here, found with `==` alone: on Linux some equal keys hash
        // differently (`AnyHashable(NSNumber(value: 1))` and `AnyHashable(1)`; two `NSString`s of "é", composed
        // and decomposed), and a Dictionary holding both stops the process, as it would for the app posting it.
        var unique: [(AnyHashable, Any)] = []
        for (key, value) in entries {
            if let index = unique.firstIndex(where: { $0.0 == key }) {
                unique[index].1 = value
            } else {
                unique.append((key, value))
            }
        }
        var dictionary: [AnyHashable: Any] = [:]
        for (key, value) in unique {
            dictionary[key] = value
        }
        switch choices.byte() {
        case 0..<0xC0:
            var strings: [String: Any] = [:]
            for (key, value) in dictionary {
                guard let string = key.base as? String else { return dictionary }
                strings[string] = value
            }
            return strings
        case 0xC0..<0xF0:
            return dictionary
        default:
            let result = NSMutableDictionary()
            for (key, value) in dictionary {
                result.setObject(value, forKey: key)
            }
            return result
        }
    }

    mutating func string() -> String {
        let mode = choices.byte()
        if mode < 0xC0 {
            return vocabulary[Int(mode) % vocabulary.count]
        }
        let count = choices.below(24)
        let bytes = (0..<count).map { _ in choices.byte() }
        return String(decoding: bytes, as: UTF8.self)
    }

    mutating func double() -> Double {
        let special: [Double] = [
            0, -0.0, 1, -1, 1.5, -2.25, .nan, -.nan, .infinity, -.infinity, .greatestFiniteMagnitude,
            -.greatestFiniteMagnitude, .leastNonzeroMagnitude, .ulpOfOne, 127, 128, 255, 256, 32_767, 32_768,
            65_536, 2_147_483_648, 4_294_967_296, 9_007_199_254_740_992, 9.223_372_036_854_775_807e18,
            1.844_674_407_370_955_2e19, -9.223_372_036_854_775_808e18, 3.5e38, 1e300, 0.1,
        ]
        let index = choices.byte()
        if Int(index) < special.count * 6 {
            return special[Int(index) % special.count]
        }
        return Double(bitPattern: choices.word(UInt64.self))
    }

    /// An `NSNumber` of any width, or a Swift number of a width no model expects.
    mutating func number() -> Any {
        switch choices.below(10) {
        case 0: return NSNumber(value: choices.word(Int8.self))
        case 1: return NSNumber(value: choices.word(Int64.self))
        case 2: return NSNumber(value: choices.word(UInt64.self))
        case 3: return NSNumber(value: double())
        case 4: return NSNumber(value: Float(double()))
        case 5: return NSNumber(value: choices.byte() & 1 == 0)
        case 6: return NSNumber(value: choices.word(UInt8.self))
        case 7: return NSNumber(value: choices.word(Int32.self))
        case 8: return Decimal(choices.word(Int32.self))
        default: return double()
        }
    }

    mutating func date() -> Any {
        let interval = double()
        switch choices.below(8) {
        case 6: return NSDate(timeIntervalSinceReferenceDate: interval)
        case 7: return interval
        default: return Date(timeIntervalSinceReferenceDate: interval)
        }
    }

    mutating func url() -> Any {
        let text = choices.pick([
            "https://example.com/a?b=c#d", "file:///tmp/x", "relative/path", "mailto:a@b.c", "", string(),
        ])
        guard let url = URL(string: text) else { return text }
        switch choices.below(8) {
        case 5: return url.absoluteString
        case 6: return NSURL(string: text) ?? NSNull()
        case 7: return URL(string: "sub", relativeTo: url) ?? url
        default: return url
        }
    }

    mutating func bytes() -> [UInt8] {
        (0..<choices.below(16)).map { _ in choices.byte() }
    }

    mutating func data() -> Any {
        let bytes = bytes()
        return choices.byte() >= 0xF0 ? bytes as Any : Data(bytes)
    }

    mutating func rect() -> CGRect {
        CGRect(x: double(), y: double(), width: double(), height: double())
    }
}

// MARK: - Checks

/// Equality that counts not-a-number as equal to itself, for comparing encoded dictionaries of decoded values.
private func same(_ lhs: Any, _ rhs: Any) -> Bool {
    switch (lhs, rhs) {
    case (let lhs as [String: Any], let rhs as [String: Any]):
        return lhs.count == rhs.count && lhs.allSatisfy { key, value in rhs[key].map { same(value, $0) } ?? false }
    case (let lhs as [AnyHashable: Any], let rhs as [AnyHashable: Any]):
        return lhs.count == rhs.count && lhs.allSatisfy { key, value in rhs[key].map { same(value, $0) } ?? false }
    case (let lhs as [Any], let rhs as [Any]):
        return lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { same($0, $1) }
    case (let lhs as Double, let rhs as Double):
        return sameNumber(lhs, rhs)
    case (let lhs as Float, let rhs as Float):
        return sameNumber(Double(lhs), Double(rhs))
    case (let lhs as CGFloat, let rhs as CGFloat):
        return sameNumber(Double(lhs), Double(rhs))
    case (let lhs as Date, let rhs as Date):
        return sameNumber(lhs.timeIntervalSinceReferenceDate, rhs.timeIntervalSinceReferenceDate)
    case (let lhs as CGPoint, let rhs as CGPoint):
        return sameNumber(Double(lhs.x), Double(rhs.x)) && sameNumber(Double(lhs.y), Double(rhs.y))
    case (let lhs as CGSize, let rhs as CGSize):
        return same(CGPoint(x: lhs.width, y: lhs.height), CGPoint(x: rhs.width, y: rhs.height))
    case (let lhs as CGRect, let rhs as CGRect):
        return same(lhs.origin, rhs.origin) && same(lhs.size, rhs.size)
    default:
        guard type(of: lhs) == type(of: rhs), let lhs = lhs as? AnyHashable, let rhs = rhs as? AnyHashable else {
            return false
        }
        return lhs == rhs
    }
}

private func sameNumber(_ lhs: Double, _ rhs: Double) -> Bool {
    lhs == rhs || (lhs.isNaN && rhs.isNaN)
}

private func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("UserInfoFuzzer: \(message)\n".utf8))
    abort()
}

/// Decodes `T` from `info`; when that succeeds, encodes the value, decodes it again and demands an equal value.
private func check<T: Codable & Equatable>(_ type: T.Type, from info: [AnyHashable: Any]) {
    guard let first = try? UserInfoDecoder().decode(T.self, from: info) else { return }
    let encoded: [AnyHashable: Any]
    do {
        encoded = try UserInfoEncoder().encode(first)
    } catch {
        fail("UserInfoEncoder cannot encode the decoded \(T.self) \(first): \(error)")
    }
    let second: T
    do {
        second = try UserInfoDecoder().decode(T.self, from: encoded)
    } catch {
        fail("UserInfoDecoder cannot decode what UserInfoEncoder wrote for \(T.self) \(first): \(encoded): \(error)")
    }
    guard first != second else { return }
    // Synthesized equality says nan != nan; the encodings tell whether anything else differs.
    do {
        let reencoded = try UserInfoEncoder().encode(second)
        if same(encoded, reencoded) { return }
        fail("round trip changed \(T.self):\n  first  \(first)\n  second \(second)\n  via \(encoded)")
    } catch {
        fail("UserInfoEncoder cannot encode the round-tripped \(T.self) \(second): \(error)")
    }
}

// MARK: - Entry point

/// With `FUZZ_DUMP=1` in the environment, every dictionary is printed before it is decoded: run the binary on one
/// input to see what it builds.
private let dumpsInputs = ProcessInfo.processInfo.environment["FUZZ_DUMP"] == "1"

/// libFuzzer's entry point: builds `userInfo` dictionaries from the input and decodes them into every model.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var builder = Builder(choices: Choices(UnsafeBufferPointer(start: data, count: size)))
    // A few dictionaries per input, each top level shaped like the union of the models' keys.
    for _ in 0..<(1 + builder.choices.below(3)) {
        let top = builder.object(modelShapes, depth: 0)
        guard let info = top as? [AnyHashable: Any] else { continue }
        if dumpsInputs {
            FileHandle.standardError.write(Data("UserInfoFuzzer input: \(info)\n".utf8))
        }
        check(AllKinds.self, from: info)
        check(Nested.self, from: info)
        check(Optionals.self, from: info)
        check(Enums.self, from: info)
        check(KeyboardFrame.self, from: info)
        check(Recursive.self, from: info)
        if builder.choices.position >= size { break }
    }
    return 0
}
