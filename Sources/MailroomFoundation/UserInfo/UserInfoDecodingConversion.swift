import Foundation

/// The conversion rules documented on ``UserInfoDecoder``, one function per kind of value, each returning the
/// converted value or throwing `typeMismatch` at `codingPath`. Values reach them already unwrapped and not null.
enum UserInfoDecodingConversion {
    static func bool(from value: Any, at codingPath: @autoclosure () -> [any CodingKey]) throws -> Bool {
        switch UserInfoDecodingNumber(value) {
        case .boolean(let boolean):
            return boolean
        case .some:
            throw UserInfoDecodingError.typeMismatch(
                Bool.self, found: value, because: "which is a number, not a Bool", at: codingPath())
        case nil:
            throw UserInfoDecodingError.typeMismatch(Bool.self, found: value, at: codingPath())
        }
    }

    static func string(from value: Any, at codingPath: @autoclosure () -> [any CodingKey]) throws -> String {
        guard let string = value as? String else {
            throw UserInfoDecodingError.typeMismatch(String.self, found: value, at: codingPath())
        }
        return string
    }

    /// An integer or floating-point number whose value `Integer` holds exactly.
    static func integer<Integer: FixedWidthInteger>(
        _ type: Integer.Type, from value: Any, at codingPath: @autoclosure () -> [any CodingKey]
    ) throws -> Integer {
        func mismatch(_ reason: String? = nil) -> DecodingError {
            UserInfoDecodingError.typeMismatch(type, found: value, because: reason, at: codingPath())
        }
        switch UserInfoDecodingNumber(value) {
        case nil:
            throw mismatch()
        case .boolean:
            throw mismatch("which is a Bool, not a number")
        case .signed(let number):
            guard let integer = Integer(exactly: number) else { throw mismatch("which does not fit") }
            return integer
        case .unsigned(let number):
            guard let integer = Integer(exactly: number) else { throw mismatch("which does not fit") }
            return integer
        case .wideInteger(let number):
            guard let integer = Integer(exactly: number) else { throw mismatch("which does not fit") }
            return integer
        case .floating(let number):
            guard number.isFinite else { throw mismatch("which is not a finite number") }
            guard number == number.rounded(.towardZero) else { throw mismatch("which is not a whole number") }
            guard let integer = Integer(exactly: number) else { throw mismatch("which does not fit") }
            return integer
        }
    }

    /// Any number, rounded to the nearest `Floating`; a finite number that rounds to an infinity does not fit.
    ///
    /// `expected` is the type errors name, which differs from `Floating` for `CGFloat` (decoded as its native type).
    static func floatingPoint<Floating: BinaryFloatingPoint>(
        _ type: Floating.Type, reportedAs expected: Any.Type, from value: Any,
        at codingPath: @autoclosure () -> [any CodingKey]
    ) throws -> Floating {
        let converted: Floating
        switch UserInfoDecodingNumber(value) {
        case nil:
            throw UserInfoDecodingError.typeMismatch(expected, found: value, at: codingPath())
        case .boolean:
            throw UserInfoDecodingError.typeMismatch(
                expected, found: value, because: "which is a Bool, not a number", at: codingPath())
        case .signed(let number):
            converted = Floating(number)
        case .unsigned(let number):
            converted = Floating(number)
        case .wideInteger(let number):
            converted = Floating(number)
        case .floating(let number):
            guard number.isFinite else { return Floating(number) }
            converted = Floating(number)
        }
        guard converted.isFinite else {
            throw UserInfoDecodingError.typeMismatch(
                expected, found: value, because: "which does not fit", at: codingPath())
        }
        return converted
    }

    /// `value` as a `T`, read by `read` (by default a cast: a `Date` or `NSDate`, a `Data` or `NSData`), or a type
    /// mismatch naming `T`.
    static func exactly<T>(
        _ type: T.Type, from value: Any, at codingPath: @autoclosure () -> [any CodingKey],
        read: (Any) -> T? = { $0 as? T }
    ) throws -> T {
        guard let result = read(value) else {
            throw UserInfoDecodingError.typeMismatch(T.self, found: value, at: codingPath())
        }
        return result
    }

    /// A `URL` or `NSURL`. A `String` is refused even when it reads as a URL: like every other value, a URL is
    /// taken as the poster stored it, never parsed.
    static func url(from value: Any, at codingPath: @autoclosure () -> [any CodingKey]) throws -> URL {
        guard let url = value as? URL else {
            let reason = value is String ? "and strings are not parsed as URLs" : nil
            throw UserInfoDecodingError.typeMismatch(URL.self, found: value, because: reason, at: codingPath())
        }
        return url
    }
}
