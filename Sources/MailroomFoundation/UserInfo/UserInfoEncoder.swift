import Foundation

/// Encodes an `Encodable` model into a notification `userInfo` dictionary: what `UserInfoDecoder` reads back.
///
/// The dictionary holds plain Swift values, so code that reads `userInfo` by hand (an observer written for
/// `NotificationCenter`) finds what it expects:
///
/// - Keys are `String`s: each `CodingKey`'s `stringValue`. A model whose `CodingKeys` map a property to
///   `"UIKeyboardFrameEndUserInfoKey"` produces that key.
/// - `String`, `Bool`, every integer width (`Int`, `Int8` ... `UInt64`) and every floating-point width (`Float`,
///   `Double`) are stored as the Swift value of that same type, never converted; `nan` and infinities included.
/// - `Date`, `URL`, `Data`, `CGFloat`, `CGPoint`, `CGSize` and `CGRect` are stored as those Swift values, not as
///   the numbers or arrays their own `Encodable` conformances would write.
/// - A nested keyed container (a nested struct or class, a `Dictionary` with `String` or `Int` keys) is a
///   `[String: Any]`; an unkeyed container (an `Array`, a `Set`) is an `[Any]`.
/// - `encodeNil` stores `NSNull()`. An optional encoded with `encodeIfPresent` (what synthesized `Encodable`
///   does for optional properties) is left out when it is `nil`.
/// - An encoder that a model asked for but wrote nothing to (an unused `superEncoder`, say) is an empty
///   `[String: Any]`. Encoding the same key twice keeps the last value.
///
/// The encoder holds no state between calls; each call to ``encode(_:)`` builds a fresh dictionary.
public struct UserInfoEncoder: Sendable {
    /// Passed to the models' `encode(to:)` as `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// An encoder with an empty ``userInfo``.
    public init() {
        userInfo = [:]
    }

    /// The dictionary for `value`, whose top level must encode a keyed container (a struct or class with
    /// properties); otherwise `EncodingError.invalidValue`. Throws only `EncodingError`.
    ///
    /// An error that the model's own `encode(to:)` throws and that is not an `EncodingError` is wrapped in
    /// `EncodingError.invalidValue`, with the original as its `underlyingError`. Asking one encoder for two
    /// different kinds of container, or storing a second value in a single-value container, is also
    /// `EncodingError.invalidValue`.
    public func encode<T: Encodable>(_ value: T) throws -> [AnyHashable: Any] {
        let session = Session(userInfo: userInfo)
        let root = Node()
        do {
            try session.write(value, into: root, at: [])
        } catch let error as EncodingError {
            throw error
        } catch {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [],
                    debugDescription: "\(T.self).encode(to:) threw an error that is not an EncodingError.",
                    underlyingError: error
                )
            )
        }
        if let misuse = session.misuse {
            throw misuse
        }
        guard let fields = root.materializedFields() else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [],
                    debugDescription: "Top-level \(T.self) encoded \(root.shapeDescription), not a keyed container."
                )
            )
        }
        var dictionary: [AnyHashable: Any] = [:]
        dictionary.reserveCapacity(fields.count)
        for (key, field) in fields {
            dictionary[key] = field
        }
        return dictionary
    }
}
