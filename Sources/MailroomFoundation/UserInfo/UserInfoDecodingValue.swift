import Foundation

/// Reads a stored value the way every container sees it: through `AnyHashable` and `Optional` wrappers, with
/// `NSNull` and `Optional.none` as null.
enum UserInfoDecodingValue {
    /// The value `raw` holds, or nil when it is null.
    ///
    /// A `[AnyHashable: Any]` can hold an `Optional` or an `AnyHashable` as a value (`userInfo["k"] = maybeInt`
    /// compiles, with a warning); unwrapping them here keeps the conversions from seeing the boxes. Each turn of
    /// the loop removes one wrapper, so it ends.
    ///
    /// The checks test the value's metatype before casting the value: on Linux, `value is NSNull` for a Swift
    /// dictionary or array first bridges the whole collection to an `NSDictionary` or `NSArray`.
    static func unwrap(_ raw: Any) -> Any? {
        var value = raw
        while true {
            let dynamicType = type(of: value)
            if dynamicType is NSNull.Type { return nil }
            if dynamicType == AnyHashable.self, let hashable = value as? AnyHashable {
                value = hashable.base
            } else if dynamicType is any UserInfoDecodingOptional.Type,
                let optional = value as? any UserInfoDecodingOptional
            {
                guard let wrapped = optional.userInfoDecodingWrapped else { return nil }
                value = wrapped
            } else {
                return value
            }
        }
    }
}

/// Lets ``UserInfoDecodingValue/unwrap(_:)`` see through an `Optional` stored as `Any`, whatever its `Wrapped`.
protocol UserInfoDecodingOptional {
    /// The wrapped value, or nil for `.none`.
    var userInfoDecodingWrapped: Any? { get }
}

extension Optional: UserInfoDecodingOptional {
    var userInfoDecodingWrapped: Any? { map { $0 as Any } }
}
