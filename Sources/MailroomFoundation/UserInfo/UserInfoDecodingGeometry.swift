import Foundation

/// Reads `CGPoint`, `CGSize` and `CGRect` from the struct itself or from an `NSValue` holding one.
///
/// An `NSValue` is read only once it is known to hold the requested struct: on Linux, `rectValue` on an
/// `NSValue(point:)` is a failed forced cast that stops the process, and `as? CGRect` never bridges an `NSValue`.
enum UserInfoDecodingGeometry {
    static func point(_ value: Any) -> CGPoint? {
        read(value, as: CGPoint.self)
    }

    static func size(_ value: Any) -> CGSize? {
        read(value, as: CGSize.self)
    }

    static func rect(_ value: Any) -> CGRect? {
        read(value, as: CGRect.self)
    }

    private static func read<Geometry>(_ value: Any, as type: Geometry.Type) -> Geometry? {
        // `NSNumber` is an `NSValue` too, and holds none of these structs.
        guard Swift.type(of: value) is NSValue.Type, let boxed = value as? NSValue else { return value as? Geometry }
        return unbox(boxed) as? Geometry
    }

    #if canImport(Darwin)
    /// What an `NSValue` holds, for an error: its Objective-C type encoding.
    static func heldType(_ boxed: NSValue) -> String {
        String(cString: boxed.objCType)
    }

    /// The point, size or rect an `NSValue` holds, told apart by its `objCType`; `nil` for anything else.
    private static func unbox(_ boxed: NSValue) -> Any? {
        switch String(cString: boxed.objCType) {
        case pointEncoding: return unboxPoint(boxed)
        case sizeEncoding: return unboxSize(boxed)
        case rectEncoding: return unboxRect(boxed)
        default: return nil
        }
    }
    #endif

    #if canImport(Darwin) && !os(macOS)
    // iOS, tvOS, watchOS, visionOS: Foundation has no `NSValue(rect:)` or `rectValue` there. UIKit's
    // `NSValue(cgRect:)` stores the struct under this encoding, and `getValue(_:size:)` copies it out.
    private static let floatCode = CGFloat.NativeType.self == Double.self ? "d" : "f"
    private static let pointEncoding = "{CGPoint=\(floatCode)\(floatCode)}"
    private static let sizeEncoding = "{CGSize=\(floatCode)\(floatCode)}"
    private static let rectEncoding = "{CGRect=\(pointEncoding)\(sizeEncoding)}"

    private static func unboxPoint(_ boxed: NSValue) -> CGPoint { copy(boxed, into: .zero) }
    private static func unboxSize(_ boxed: NSValue) -> CGSize { copy(boxed, into: .zero) }
    private static func unboxRect(_ boxed: NSValue) -> CGRect { copy(boxed, into: .zero) }

    private static func copy<Geometry>(_ boxed: NSValue, into initial: Geometry) -> Geometry {
        var result = initial
        boxed.getValue(&result, size: MemoryLayout<Geometry>.size)
        return result
    }
    #elseif canImport(Darwin)
    // macOS: the encodings come from Foundation itself.
    private static let pointEncoding = String(cString: NSValue(point: .zero).objCType)
    private static let sizeEncoding = String(cString: NSValue(size: .zero).objCType)
    private static let rectEncoding = String(cString: NSValue(rect: .zero).objCType)

    private static func unboxPoint(_ boxed: NSValue) -> CGPoint { boxed.pointValue }
    private static func unboxSize(_ boxed: NSValue) -> CGSize { boxed.sizeValue }
    private static func unboxRect(_ boxed: NSValue) -> CGRect { boxed.rectValue }
    #else
    // swift-corelibs-foundation (Linux, Windows, Android): the `NSValue` of a struct keeps it in a stored property,
    // `_value`, read here through `Mirror`. Its `objCType` is not used: there it allocates a C string on every call
    // and never frees it.

    /// What an `NSValue` holds, for an error: the type of the struct it stores.
    static func heldType(_ boxed: NSValue) -> String {
        unbox(boxed).map { String(describing: type(of: $0)) } ?? "no struct"
    }

    /// The struct an `NSValue` stores, whatever it is.
    private static func unbox(_ boxed: NSValue) -> Any? {
        Mirror(reflecting: boxed).children.first { $0.label == "_value" }?.value
    }
    #endif
}
