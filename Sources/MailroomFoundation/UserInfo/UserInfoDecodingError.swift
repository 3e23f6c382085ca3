import Foundation

/// Builds the decoder's `DecodingError`s, so that every error names the type expected and the value found in the
/// same words, and never describes a container by printing it (which could be huge or deeply nested).
enum UserInfoDecodingError {
    static func typeMismatch(
        _ expected: Any.Type, found value: Any, because reason: String? = nil, at codingPath: [any CodingKey]
    ) -> DecodingError {
        let detail = reason.map { ", \($0)" } ?? ""
        return .typeMismatch(
            expected,
            .init(
                codingPath: codingPath,
                debugDescription: "Expected \(name(of: expected)) but found \(describe(value))\(detail)."))
    }

    static func valueNotFound(_ expected: Any.Type, at codingPath: [any CodingKey]) -> DecodingError {
        .valueNotFound(
            expected, .init(codingPath: codingPath, debugDescription: "Expected \(name(of: expected)) but found null."))
    }

    /// Reading an array past its end; `codingPath` ends with the index that is missing.
    static func pastEnd(_ expected: Any.Type, count: Int, at codingPath: [any CodingKey]) -> DecodingError {
        let index = codingPath.last?.intValue ?? count
        return .valueNotFound(
            expected,
            .init(
                codingPath: codingPath,
                debugDescription:
                    "Expected \(name(of: expected)) at index \(index), but the array has \(counted(count, "element"))."
            ))
    }

    static func keyNotFound(_ key: some CodingKey, at codingPath: [any CodingKey]) -> DecodingError {
        .keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value for key \"\(key.stringValue)\"."))
    }

    /// Two or more keys of one dictionary have `key`'s string; `codingPath` is the dictionary's.
    static func ambiguousKey(
        _ key: some CodingKey, clashingKeys: [String], at codingPath: [any CodingKey]
    ) -> DecodingError {
        .dataCorrupted(
            .init(
                codingPath: codingPath + [key],
                debugDescription:
                    "Key \"\(key.stringValue)\" is ambiguous: the dictionary has \(clashingKeys.count) keys with "
                    + "that string, \(clashingKeys.joined(separator: " and "))."))
    }

    /// How an error names an expected type: the containers by their kind, everything else by its Swift name.
    static func name(of type: Any.Type) -> String {
        if type == [Any].self { return "an array" }
        if type == [String: Any].self { return "a dictionary" }
        if type == Any?.self { return "a value or null" }
        if type == Any.self { return "a value" }
        return String(describing: type)
    }

    /// A short description of a found value: scalars with their value and type, containers by their size.
    static func describe(_ value: Any) -> String {
        let typeName = self.typeName(of: value)
        if let number = UserInfoDecodingNumber(value) {
            return "\(number) (\(typeName))"
        }
        if let string = value as? String {
            let shown = string.count > 60 ? "\(string.prefix(60))…" : string
            return "\"\(shown)\" (\(typeName))"
        }
        if let date = value as? Date, date.timeIntervalSinceReferenceDate.isNaN {
            // `Date.description` stops the process for this one.
            return "a date of NaN seconds since 2001 (\(typeName))"
        }
        if value is Date || value is URL || value is Data || value is CGRect || value is CGPoint || value is CGSize {
            return "\(value) (\(typeName))"
        }
        if type(of: value) is NSValue.Type, let boxed = value as? NSValue {
            return "an NSValue holding \(UserInfoDecodingGeometry.heldType(boxed))"
        }
        if let array = value as? [Any] {
            return "an array of \(counted(array.count, "element")) (\(typeName))"
        }
        if let dictionary = value as? [AnyHashable: Any] {
            return "a dictionary of \(counted(dictionary.count, "entry", plural: "entries")) (\(typeName))"
        }
        return "a value of type \(typeName)"
    }

    /// The type of a found value, with Foundation's private subclasses (`__NSCFBoolean`, `NSTaggedPointerString`)
    /// named by the class callers know.
    private static func typeName(of value: Any) -> String {
        switch type(of: value) {
        case is NSNumber.Type: "NSNumber"
        case is NSString.Type: "NSString"
        case is NSDictionary.Type: "NSDictionary"
        case is NSArray.Type: "NSArray"
        case is NSDate.Type: "NSDate"
        case is NSData.Type: "NSData"
        case is NSURL.Type: "NSURL"
        case is NSValue.Type: "NSValue"
        case let other: String(describing: other)
        }
    }

    private static func counted(_ count: Int, _ singular: String, plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
    }
}
