import Foundation

/// A number read from a user-info value, in the widest exact form its source had, so range checks are exact.
///
/// Numbers are classified here by their dynamic type rather than with `as?`, because bridging casts are too
/// lenient for the decoder's rules on both Linux and Apple platforms: `NSNumber(value: 1) as? Bool` is `true`,
/// `NSNumber(value: 2.0) as? Int` is `2`, and `NSNumber(value: true) as? Int` is `1`.
enum UserInfoDecodingNumber: CustomStringConvertible {
    case boolean(Bool)
    case signed(Int64)
    case unsigned(UInt64)
    /// An integer of a type wider than 64 bits (`Int128`, `UInt128`), kept as it is so conversions stay exact.
    case wideInteger(any BinaryInteger)
    /// `Float`, `CGFloat` and `Float16` sources are widened to `Double`, which is exact.
    case floating(Double)

    /// Classifies `value`, or returns nil when it is not a number (a `String` holding digits is not).
    init?(_ value: Any) {
        // Checked first: a Swift `Int` also casts `as? NSNumber`, but its metatype is not an NSNumber class.
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            self.init(number)
            return
        }
        switch value {
        case let number as Int: self = .signed(Int64(number))
        case let number as Double: self = .floating(number)
        case let boolean as Bool: self = .boolean(boolean)
        case let number as Int8: self = .signed(Int64(number))
        case let number as Int16: self = .signed(Int64(number))
        case let number as Int32: self = .signed(Int64(number))
        case let number as Int64: self = .signed(number)
        case let number as UInt: self = .unsigned(UInt64(number))
        case let number as UInt8: self = .unsigned(UInt64(number))
        case let number as UInt16: self = .unsigned(UInt64(number))
        case let number as UInt32: self = .unsigned(UInt64(number))
        case let number as UInt64: self = .unsigned(number)
        case let number as Float: self = .floating(Double(number))
        case let number as CGFloat: self = .floating(Double(number.native))
        case let number as any BinaryInteger: self = .wideInteger(number)
        default:
            #if !((os(macOS) || targetEnvironment(macCatalyst)) && arch(x86_64))
            if let number = value as? Float16 {
                self = .floating(Double(number))
                return
            }
            #endif
            return nil
        }
    }

    /// Classifies an `NSNumber` by its class and `objCType`, which say what it was made from.
    ///
    /// A boolean `NSNumber` has its own class on every platform (`__NSCFBoolean`, the class of `kCFBooleanTrue`
    /// on Apple platforms and of `NSNumber(value: true)` on Linux), so it is told apart from an integer 0 or 1,
    /// including an `NSNumber(value: Int8(1))`, whose `objCType` is also `"c"` on Apple platforms.
    init?(_ number: NSNumber) {
        if ObjectIdentifier(type(of: number)) == Self.booleanClass {
            self = .boolean(number.boolValue)
            return
        }
        switch Unicode.Scalar(UInt8(bitPattern: number.objCType.pointee)) {
        case "c", "s", "i", "l", "q": self = .signed(number.int64Value)
        case "C", "S", "I", "L", "Q": self = .unsigned(number.uint64Value)
        case "f", "d": self = .floating(number.doubleValue)
        case "B": self = .boolean(number.boolValue)
        default: return nil
        }
    }

    var description: String {
        switch self {
        case .boolean(let value): "\(value)"
        case .signed(let value): "\(value)"
        case .unsigned(let value): "\(value)"
        case .wideInteger(let value): "\(value)"
        case .floating(let value): "\(value)"
        }
    }

    private static let booleanClass = ObjectIdentifier(type(of: NSNumber(value: true)))
}
