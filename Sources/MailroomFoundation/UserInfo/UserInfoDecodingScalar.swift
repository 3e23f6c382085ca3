import Foundation

/// The types the decoder converts by its own rules instead of calling their `init(from:)`.
///
/// Intercepting by type is what lets `Date`, `URL`, `Data` and the geometry types be read from the objects
/// Cocoa stores (their own `init(from:)` expects a number, a keyed container or an array), and it spares the
/// numbers a decoder of their own for each array element.
enum UserInfoDecodingScalar {
    case bool, string, date, url, data, point, size, rect
    case double, float, cgFloat
    case int, int8, int16, int32, int64, int128
    case uint, uint8, uint16, uint32, uint64, uint128
    #if !((os(macOS) || targetEnvironment(macCatalyst)) && arch(x86_64))
    case float16
    #endif

    /// The scalar `type` is, or nil for a type that decodes itself.
    init?(_ type: Any.Type) {
        guard let scalar = Self.byType[ObjectIdentifier(type)] else { return nil }
        self = scalar
    }

    private static let byType: [ObjectIdentifier: Self] = {
        var table: [ObjectIdentifier: Self] = [
            ObjectIdentifier(Bool.self): .bool, ObjectIdentifier(String.self): .string,
            ObjectIdentifier(Date.self): .date, ObjectIdentifier(URL.self): .url, ObjectIdentifier(Data.self): .data,
            ObjectIdentifier(CGPoint.self): .point, ObjectIdentifier(CGSize.self): .size,
            ObjectIdentifier(CGRect.self): .rect,
            ObjectIdentifier(Double.self): .double, ObjectIdentifier(Float.self): .float,
            ObjectIdentifier(CGFloat.self): .cgFloat,
            ObjectIdentifier(Int.self): .int, ObjectIdentifier(Int8.self): .int8, ObjectIdentifier(Int16.self): .int16,
            ObjectIdentifier(Int32.self): .int32, ObjectIdentifier(Int64.self): .int64,
            ObjectIdentifier(UInt.self): .uint, ObjectIdentifier(UInt8.self): .uint8,
            ObjectIdentifier(UInt16.self): .uint16, ObjectIdentifier(UInt32.self): .uint32,
            ObjectIdentifier(UInt64.self): .uint64,
        ]
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) {
            table[ObjectIdentifier(Int128.self)] = .int128
            table[ObjectIdentifier(UInt128.self)] = .uint128
        }
        #if !((os(macOS) || targetEnvironment(macCatalyst)) && arch(x86_64))
        table[ObjectIdentifier(Float16.self)] = .float16
        #endif
        return table
    }()

    /// Converts `value` (unwrapped, not null) to `type`, which must be the type this scalar was made from.
    func decode<T>(_ type: T.Type, from value: Any, at codingPath: @autoclosure () -> [any CodingKey]) throws -> T {
        let decoded = try convert(value, at: codingPath())
        guard let result = decoded as? T else {
            // Unreachable while `byType` maps each type to its own case; kept so no path can trap.
            throw UserInfoDecodingError.typeMismatch(type, found: value, at: codingPath())
        }
        return result
    }

    private func convert(_ value: Any, at codingPath: @autoclosure () -> [any CodingKey]) throws -> Any {
        typealias Rules = UserInfoDecodingConversion
        switch self {
        case .bool: return try Rules.bool(from: value, at: codingPath())
        case .string: return try Rules.string(from: value, at: codingPath())
        case .date: return try Rules.exactly(Date.self, from: value, at: codingPath())
        case .url: return try Rules.url(from: value, at: codingPath())
        case .data: return try Rules.exactly(Data.self, from: value, at: codingPath())
        case .point:
            return try Rules.exactly(CGPoint.self, from: value, at: codingPath(), read: UserInfoDecodingGeometry.point)
        case .size:
            return try Rules.exactly(CGSize.self, from: value, at: codingPath(), read: UserInfoDecodingGeometry.size)
        case .rect:
            return try Rules.exactly(CGRect.self, from: value, at: codingPath(), read: UserInfoDecodingGeometry.rect)
        case .double:
            return try Rules.floatingPoint(Double.self, reportedAs: Double.self, from: value, at: codingPath())
        case .float: return try Rules.floatingPoint(Float.self, reportedAs: Float.self, from: value, at: codingPath())
        case .cgFloat:
            let native = try Rules.floatingPoint(
                CGFloat.NativeType.self, reportedAs: CGFloat.self, from: value, at: codingPath())
            return CGFloat(native)
        #if !((os(macOS) || targetEnvironment(macCatalyst)) && arch(x86_64))
        case .float16:
            return try Rules.floatingPoint(Float16.self, reportedAs: Float16.self, from: value, at: codingPath())
        #endif
        case .int: return try Rules.integer(Int.self, from: value, at: codingPath())
        case .int8: return try Rules.integer(Int8.self, from: value, at: codingPath())
        case .int16: return try Rules.integer(Int16.self, from: value, at: codingPath())
        case .int32: return try Rules.integer(Int32.self, from: value, at: codingPath())
        case .int64: return try Rules.integer(Int64.self, from: value, at: codingPath())
        case .uint: return try Rules.integer(UInt.self, from: value, at: codingPath())
        case .uint8: return try Rules.integer(UInt8.self, from: value, at: codingPath())
        case .uint16: return try Rules.integer(UInt16.self, from: value, at: codingPath())
        case .uint32: return try Rules.integer(UInt32.self, from: value, at: codingPath())
        case .uint64: return try Rules.integer(UInt64.self, from: value, at: codingPath())
        case .int128, .uint128:
            guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else {
                throw UserInfoDecodingError.typeMismatch(Any.self, found: value, at: codingPath())
            }
            return self == .int128
                ? try Rules.integer(Int128.self, from: value, at: codingPath())
                : try Rules.integer(UInt128.self, from: value, at: codingPath())
        }
    }
}
