import Foundation

/// Decodes a `Decodable` model from a notification's `userInfo` dictionary, reading the values Foundation and
/// Cocoa put there as they are, without converting one kind of value into another.
///
/// A model's coding keys are matched against the dictionary's keys by their `stringValue`, so a model can name
/// the system's keys directly:
///
/// ```swift
/// struct KeyboardFrameChange: Decodable {
///     var frameEnd: CGRect
///     var duration: Double
///
///     enum CodingKeys: String, CodingKey {
///         case frameEnd = "UIKeyboardFrameEndUserInfoKey"
///         case duration = "UIKeyboardAnimationDurationUserInfoKey"
///     }
/// }
///
/// let change = try UserInfoDecoder().decode(KeyboardFrameChange.self, from: notification.userInfo ?? [:])
/// ```
///
/// The top level is a keyed container over the dictionary. Decoding a type that does not read a keyed container
/// (an `Int`, a `Date`, an array) at the top level throws `DecodingError.typeMismatch`.
///
/// ## Keys
///
/// - A dictionary key matches a coding key when it is a `String`, an `NSString`, or any `RawRepresentable` whose
///   raw value is a `String` (such as `Notification.Name`), equal to the coding key's `stringValue`. Matching is
///   exact and case sensitive; a coding key's `intValue` is not used.
/// - Keys of any other type (an `Int`, a `UUID`) are ignored: they never match and are not in `allKeys`.
/// - When two keys of one dictionary have the same string (`"id"` and `Key(rawValue: "id")`), asking for that key
///   throws `DecodingError.dataCorrupted` naming it, rather than picking one of the two values.
///
/// ## Containers
///
/// Keyed containers read any dictionary (`[AnyHashable: Any]`, `[String: Any]`, `NSDictionary`) and unkeyed
/// containers any array (`[Any]`, `NSArray`), at any depth, including through `superDecoder()`, which reads the
/// value for the key `"super"`, and `superDecoder(forKey:)`; both throw `keyNotFound` when the key is missing.
///
/// ## Values
///
/// Only these conversions happen; anything else is a `DecodingError.typeMismatch`:
///
/// - `String`: a `String` or `NSString`. A number is not a string.
/// - `Bool`: a `Bool`, or a boolean `NSNumber` (`NSNumber(value: true)`, which is `kCFBooleanTrue` on Apple
///   platforms and an `__NSCFBoolean` on Linux too). An `NSNumber` made from an integer, even `0` or `1`, is not a
///   `Bool`, and a `Bool` is not a number, on every platform.
/// - Integers (`Int`, `Int8` … `Int64`, `UInt` … `UInt64`, and `Int128`, `UInt128` where the standard library
///   has them): any integer or floating-point number, as a Swift value or an `NSNumber`, whose value the type
///   holds exactly. `2.0` decodes as the `Int` 2; `300` into `Int8`, `-1` into `UInt`, `2.5`, NaN and infinities
///   into any integer are errors.
/// - Floating point (`Double`, `Float`, `CGFloat`, and `Float16` where it exists): any integer or floating-point
///   number, rounded to the nearest value of the type. A finite number too large for the type (`1e300` into
///   `Float`) is an error; NaN and infinities stay what they are.
/// - `Date`, `URL`, `Data`: a `Date` or `NSDate`, a `URL` or `NSURL`, a `Data` or `NSData`. Nothing is parsed: a
///   `String` is not a `URL`, even when it reads as one, and a number is not a `Date`.
/// - `CGPoint`, `CGSize`, `CGRect`: the struct itself, or an `NSValue` holding one (`NSValue(rect:)`, or UIKit's
///   `NSValue(cgRect:)`), checked by its `objCType` first. An `NSValue` holding anything else is an error.
/// - Every other type decodes through its own `init(from:)`. For a `RawRepresentable` enum, a raw value with no
///   case is the `DecodingError.dataCorrupted` its synthesized initializer throws, at the value's coding path.
///
/// A value stored as `AnyHashable` or as a Swift `Optional` is read as the value it wraps.
///
/// ## Missing values
///
/// `NSNull` and a stored `Optional.none` are null. A missing key or a null value makes `decodeIfPresent` return
/// `nil` (and an optional property decode as `nil`); where a value is required they throw `keyNotFound` and
/// `valueNotFound`. A value of the wrong type is always an error, never `nil`.
///
/// ## Errors
///
/// Every failure the decoder detects is a `DecodingError` whose context holds the full coding path to the value:
/// the coding keys, with `"Index N"` keys (`intValue` N) for array elements, and a description naming the type
/// expected and the value found, such as "Expected Int8 but found 300 (Int), which does not fit." Decoding past
/// the end of an array throws `valueNotFound` at the index that is missing. Errors thrown by a model's own
/// `init(from:)` are passed on unchanged.
///
/// The decoder reads only the values the model asks for; the rest of the dictionary is never visited, so large
/// or deeply nested values the model does not read cost nothing.
public struct UserInfoDecoder: Sendable {
    /// Values every model's `init(from:)` can read as `Decoder.userInfo`. Empty by default.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates a decoder with an empty ``userInfo``.
    public init() {
        userInfo = [:]
    }

    /// Decodes a value of `type` from a notification's `userInfo` dictionary.
    ///
    /// - Parameters:
    ///   - type: The model to decode. Its `init(from:)` receives a keyed container over `userInfo`.
    ///   - userInfo: The dictionary to read, typically `notification.userInfo`.
    /// - Returns: The decoded model.
    /// - Throws: A `DecodingError` with the coding path of the failing value, following the rules described on
    ///   ``UserInfoDecoder``, or an error thrown by the model's own `init(from:)`.
    public func decode<T: Decodable>(_ type: T.Type, from userInfo: [AnyHashable: Any]) throws -> T {
        try UserInfoDecodingDecoder.decode(type, from: userInfo, at: [], userInfo: self.userInfo)
    }
}
