import Foundation
import Mailroom
import MailroomFoundation
import Testing

// Shared fixtures for the UserInfoDecoder tests: decoding helpers, an error summary the tests compare, and the
// models they decode.

/// Decodes `type` from `userInfo` with a default decoder.
func decode<T: Decodable>(_ type: T.Type, from userInfo: [AnyHashable: Any]) throws -> T {
    try UserInfoDecoder().decode(type, from: userInfo)
}

/// Decodes `Box<Value>` from `["value": value]`, returning the unboxed value.
func decodeValue<Value: Decodable>(_ type: Value.Type, from value: Any) throws -> Value {
    try decode(Box<Value>.self, from: ["value": value]).value
}

/// A `DecodingError` reduced to what the tests compare: its case, the coding path as key strings, the missing key
/// for `keyNotFound`, the expected type for `typeMismatch` and `valueNotFound`, and the description.
struct DecodingFailure: CustomStringConvertible {
    enum Kind: Equatable {
        case typeMismatch, valueNotFound, keyNotFound, dataCorrupted
    }

    let kind: Kind
    let path: [String]
    let key: String?
    let type: String?
    let message: String

    init(_ error: DecodingError) {
        switch error {
        case .typeMismatch(let type, let context):
            self.init(.typeMismatch, context, type: "\(type)")
        case .valueNotFound(let type, let context):
            self.init(.valueNotFound, context, type: "\(type)")
        case .keyNotFound(let key, let context):
            self.init(.keyNotFound, context, key: key.stringValue)
        case .dataCorrupted(let context):
            self.init(.dataCorrupted, context)
        @unknown default:
            self.init(.dataCorrupted, .init(codingPath: [], debugDescription: "unknown DecodingError \(error)"))
        }
    }

    private init(_ kind: Kind, _ context: DecodingError.Context, key: String? = nil, type: String? = nil) {
        self.kind = kind
        path = context.codingPath.map(\.stringValue)
        self.key = key
        self.type = type
        message = context.debugDescription
    }

    var description: String {
        "\(kind) at \(path)\(key.map { " key \($0)" } ?? "")\(type.map { " type \($0)" } ?? ""): \(message)"
    }
}

/// The `DecodingError` decoding `type` from `userInfo` throws, or nil (recording an issue) when it succeeds or
/// throws another error.
func decodingFailure<T: Decodable>(
    _ type: T.Type, from userInfo: [AnyHashable: Any], sourceLocation: SourceLocation = #_sourceLocation
) -> DecodingFailure? {
    do {
        let decoded = try decode(type, from: userInfo)
        Issue.record("Expected a DecodingError, decoded \(decoded)", sourceLocation: sourceLocation)
    } catch let error as DecodingError {
        return DecodingFailure(error)
    } catch {
        Issue.record("Expected a DecodingError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// The `DecodingError` decoding `Box<Value>` from `["value": value]` throws.
func valueFailure<Value: Decodable>(
    _ type: Value.Type, from value: Any, sourceLocation: SourceLocation = #_sourceLocation
) -> DecodingFailure? {
    decodingFailure(Box<Value>.self, from: ["value": value], sourceLocation: sourceLocation)
}

/// `rect` as the system stores it in a notification: an `NSValue` where Foundation can make one, else the struct.
func storedRect(_ rect: CGRect) -> Any {
    #if !canImport(Darwin) || os(macOS)
    NSValue(rect: rect)
    #else
    rect
    #endif
}

// MARK: - Models
/// A coding key for any string, for models that read keys they do not declare.
struct AnyKey: CodingKey {
    let stringValue: String
    let intValue: Int? = nil

    init(_ stringValue: String) {
        self.stringValue = stringValue
    }

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        return nil
    }
}

/// One required value under the key `"value"`.
struct Box<Value: Decodable>: Decodable {
    let value: Value
}

extension Box: Equatable where Value: Equatable {}

/// One optional value under the key `"value"`, decoded with `decodeIfPresent`.
struct OptionalBox<Value: Decodable>: Decodable {
    let value: Value?
}

enum Curve: Int, Codable, Equatable {
    case easeInOut = 0
    case easeIn = 1
    case easeOut = 2
    case linear = 3
    case keyboard = 7
}

enum Mode: String, Decodable, Equatable {
    case light, dark
}

/// A dictionary key that is neither a `String` nor a `Notification.Name`, and does not hash like its raw value.
struct InfoKey: RawRepresentable, Hashable {
    let rawValue: String
}

/// The userInfo of UIKit's keyboard notifications, with the system's key names; also mail, for the bridge.
struct KeyboardFrameChange: Mail, Codable, Equatable {
    let frameBegin: CGRect
    let frameEnd: CGRect
    let duration: Double
    let curve: Curve
    let isLocal: Bool

    enum CodingKeys: String, CodingKey {
        case frameBegin = "UIKeyboardFrameBeginUserInfoKey"
        case frameEnd = "UIKeyboardFrameEndUserInfoKey"
        case duration = "UIKeyboardAnimationDurationUserInfoKey"
        case curve = "UIKeyboardAnimationCurveUserInfoKey"
        case isLocal = "UIKeyboardIsLocalUserInfoKey"
    }
}

/// Orders with lines: a keyed container holding an array of keyed containers holding arrays, for failures three
/// and more levels deep.
struct Shipment: Decodable, Equatable {
    let orders: [Order]
}

struct Order: Decodable, Equatable {
    let id: String
    let lines: [Line]
}

struct Line: Decodable, Equatable {
    let sku: String
    let quantity: UInt8
    let mode: Mode?
}
