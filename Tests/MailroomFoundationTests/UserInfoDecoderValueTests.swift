import Foundation
import MailroomFoundation
import Testing

@Suite("UserInfoDecoder values: strings and booleans are read as stored, never converted")
struct UserInfoDecoderStringAndBoolTests {
    @Test("A String and an NSString decode as the same String")
    func stringsDecode() throws {
        #expect(try decodeValue(String.self, from: "héllo") == "héllo")
        #expect(try decodeValue(String.self, from: NSString(string: "héllo")) == "héllo")
        #expect(try decodeValue(String.self, from: "") == "")
    }

    @Test("A number is not a String")
    func numberIsNotAString() throws {
        let failure = try #require(valueFailure(String.self, from: 5))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.path == ["value"])
        #expect(failure.type == "String")
        #expect(failure.message == "Expected String but found 5 (Int).")
        #expect(
            valueFailure(String.self, from: NSNumber(value: 5))?.message == "Expected String but found 5 (NSNumber).")
    }

    @Test("Swift Bools and boolean NSNumbers decode as Bool")
    func boolsDecode() throws {
        #expect(try decodeValue(Bool.self, from: true) == true)
        #expect(try decodeValue(Bool.self, from: false) == false)
        #expect(try decodeValue(Bool.self, from: NSNumber(value: true)) == true)
        #expect(try decodeValue(Bool.self, from: NSNumber(value: false)) == false)
        #expect(try decodeValue(Bool.self, from: kCFBooleanTrueEquivalent) == true)
    }

    @Test("An integer NSNumber holding 0 or 1 is not a Bool")
    func integerNumberIsNotABool() throws {
        for number in [NSNumber(value: 1), NSNumber(value: 0), NSNumber(value: Int8(1)), NSNumber(value: UInt8(0))] {
            let failure = try #require(valueFailure(Bool.self, from: number))
            #expect(failure.kind == .typeMismatch)
            #expect(failure.path == ["value"])
            #expect(failure.message == "Expected Bool but found \(number) (NSNumber), which is a number, not a Bool.")
        }
    }

    @Test("Swift integers, doubles and strings are not Bools")
    func otherValuesAreNotBools() throws {
        #expect(
            valueFailure(Bool.self, from: 1)?.message
                == "Expected Bool but found 1 (Int), which is a number, not a Bool.")
        #expect(valueFailure(Bool.self, from: 1.0)?.kind == .typeMismatch)
        #expect(valueFailure(Bool.self, from: "true")?.message == "Expected Bool but found \"true\" (String).")
    }

    @Test("A Bool, Swift or NSNumber, is not a number")
    func boolIsNotANumber() throws {
        let failure = try #require(valueFailure(Int.self, from: true))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.message == "Expected Int but found true (Bool), which is a Bool, not a number.")
        #expect(
            valueFailure(Int.self, from: NSNumber(value: true))?.message
                == "Expected Int but found true (NSNumber), which is a Bool, not a number.")
        #expect(valueFailure(Double.self, from: NSNumber(value: false))?.kind == .typeMismatch)
        #expect(valueFailure(UInt8.self, from: false)?.kind == .typeMismatch)
    }

    /// A boolean NSNumber made the way Objective-C code and `JSONSerialization` make one.
    private var kCFBooleanTrueEquivalent: Any {
        (try? JSONSerialization.jsonObject(with: Data("[true]".utf8)) as? [Any])?.first ?? NSNull()
    }
}

@Suite("UserInfoDecoder integers: any exactly representable number decodes, anything else is a type mismatch")
struct UserInfoDecoderIntegerTests {
    @Test("Every integer width decodes its minimum and maximum from Swift integers and from NSNumbers")
    func boundaryValuesDecode() throws {
        try expectBoundaries(Int.self, NSNumber(value: Int.min), NSNumber(value: Int.max))
        try expectBoundaries(Int8.self, NSNumber(value: Int8.min), NSNumber(value: Int8.max))
        try expectBoundaries(Int16.self, NSNumber(value: Int16.min), NSNumber(value: Int16.max))
        try expectBoundaries(Int32.self, NSNumber(value: Int32.min), NSNumber(value: Int32.max))
        try expectBoundaries(Int64.self, NSNumber(value: Int64.min), NSNumber(value: Int64.max))
        try expectBoundaries(UInt.self, NSNumber(value: UInt.min), NSNumber(value: UInt.max))
        try expectBoundaries(UInt8.self, NSNumber(value: UInt8.min), NSNumber(value: UInt8.max))
        try expectBoundaries(UInt16.self, NSNumber(value: UInt16.min), NSNumber(value: UInt16.max))
        try expectBoundaries(UInt32.self, NSNumber(value: UInt32.min), NSNumber(value: UInt32.max))
        try expectBoundaries(UInt64.self, NSNumber(value: UInt64.min), NSNumber(value: UInt64.max))
    }

    private func expectBoundaries<Integer: FixedWidthInteger & Decodable>(
        _ type: Integer.Type, _ minNumber: NSNumber, _ maxNumber: NSNumber,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(try decodeValue(type, from: Integer.min) == .min, sourceLocation: sourceLocation)
        #expect(try decodeValue(type, from: Integer.max) == .max, sourceLocation: sourceLocation)
        #expect(try decodeValue(type, from: minNumber) == .min, sourceLocation: sourceLocation)
        #expect(try decodeValue(type, from: maxNumber) == .max, sourceLocation: sourceLocation)
    }

    @Test("UInt64.max in an NSNumber decodes exactly as UInt64 and UInt, and does not fit Int64")
    func uint64MaxFromNSNumber() throws {
        let number = NSNumber(value: UInt64.max)
        #expect(try decodeValue(UInt64.self, from: number) == 18_446_744_073_709_551_615)
        #expect(try decodeValue(UInt.self, from: number) == UInt.max)
        let failure = try #require(valueFailure(Int64.self, from: number))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.message == "Expected Int64 but found 18446744073709551615 (NSNumber), which does not fit.")
    }

    @Test("A value of any integer type decodes as any other integer type that holds it")
    func integersConvertBetweenWidths() throws {
        #expect(try decodeValue(Int8.self, from: 127) == 127)
        #expect(try decodeValue(Int.self, from: UInt8(200)) == 200)
        #expect(try decodeValue(UInt16.self, from: Int64(65_535)) == 65_535)
        #expect(try decodeValue(Int64.self, from: UInt32.max) == 4_294_967_295)
        #expect(try decodeValue(UInt8.self, from: NSNumber(value: Int64(255))) == 255)
    }

    @Test("An integer out of the type's range is a type mismatch saying it does not fit")
    func outOfRangeIntegers() throws {
        let failure = try #require(valueFailure(Int8.self, from: 300))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.path == ["value"])
        #expect(failure.type == "Int8")
        #expect(failure.message == "Expected Int8 but found 300 (Int), which does not fit.")
        #expect(
            valueFailure(Int8.self, from: -129)?.message == "Expected Int8 but found -129 (Int), which does not fit.")
        #expect(valueFailure(UInt8.self, from: NSNumber(value: 256))?.kind == .typeMismatch)
        #expect(valueFailure(Int32.self, from: Int64(Int32.max) + 1)?.kind == .typeMismatch)
        #expect(valueFailure(Int64.self, from: UInt64(Int64.max) + 1)?.kind == .typeMismatch)
    }

    @Test("A negative number into an unsigned type is a type mismatch")
    func negativeIntoUnsigned() throws {
        let failure = try #require(valueFailure(UInt.self, from: -1))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.message == "Expected UInt but found -1 (Int), which does not fit.")
        #expect(valueFailure(UInt64.self, from: NSNumber(value: -1))?.kind == .typeMismatch)
        #expect(
            valueFailure(UInt8.self, from: -1.0)?.message
                == "Expected UInt8 but found -1.0 (Double), which does not fit.")
    }

    @Test("A whole floating-point number decodes as an integer")
    func wholeFloatingPointDecodes() throws {
        #expect(try decodeValue(Int.self, from: 2.0) == 2)
        #expect(try decodeValue(Int.self, from: NSNumber(value: 2.0)) == 2)
        #expect(try decodeValue(UInt8.self, from: Float(255)) == 255)
        #expect(try decodeValue(Int64.self, from: -0.0) == 0)
        #expect(try decodeValue(Int64.self, from: 9_007_199_254_740_992.0) == 9_007_199_254_740_992)
    }

    @Test("A fractional number into an integer is a type mismatch, not rounded")
    func fractionIsNotAnInteger() throws {
        let failure = try #require(valueFailure(Int.self, from: 2.5))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.message == "Expected Int but found 2.5 (Double), which is not a whole number.")
        #expect(
            valueFailure(Int.self, from: NSNumber(value: 0.1))?.message
                == "Expected Int but found 0.1 (NSNumber), which is not a whole number.")
    }

    @Test("NaN and infinities into an integer are type mismatches")
    func nonFiniteIsNotAnInteger() throws {
        for value: Any in [Double.nan, Double.infinity, -Double.infinity, Float.nan, NSNumber(value: Double.infinity)] {
            let failure = try #require(valueFailure(Int.self, from: value))
            #expect(failure.kind == .typeMismatch)
            #expect(failure.message.hasSuffix("which is not a finite number."))
        }
    }

    @Test("A whole floating-point number too large for the integer type does not fit")
    func largeFloatingPointDoesNotFit() throws {
        #expect(
            valueFailure(Int64.self, from: 1e19)?.message
                == "Expected Int64 but found 1e+19 (Double), which does not fit.")
        #expect(try decodeValue(UInt64.self, from: 1e19) == 10_000_000_000_000_000_000)
    }

    @Test("A String holding digits is not an integer")
    func digitsAreNotAnInteger() throws {
        let failure = try #require(valueFailure(Int.self, from: "5"))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.type == "Int")
        #expect(failure.message == "Expected Int but found \"5\" (String).")
    }

    @Test("Int128 and UInt128 decode from their own values and from NSNumbers")
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func wideIntegersDecode() throws {
        #expect(try decodeValue(Int128.self, from: Int128.max) == .max)
        #expect(try decodeValue(Int128.self, from: Int128.min) == .min)
        #expect(try decodeValue(UInt128.self, from: UInt128.max) == .max)
        #expect(try decodeValue(Int128.self, from: NSNumber(value: Int64.min)) == Int128(Int64.min))
        #expect(try decodeValue(UInt128.self, from: NSNumber(value: UInt64.max)) == UInt128(UInt64.max))
        #expect(try decodeValue(Int64.self, from: Int128(42)) == 42)
        #expect(valueFailure(Int64.self, from: Int128.max)?.kind == .typeMismatch)
        #expect(valueFailure(UInt128.self, from: -1)?.kind == .typeMismatch)
    }
}

@Suite("UserInfoDecoder floating point: numbers round to the nearest value, finite values must fit")
struct UserInfoDecoderFloatingPointTests {
    @Test("Double decodes from Doubles, Floats, integers and NSNumbers")
    func doublesDecode() throws {
        #expect(try decodeValue(Double.self, from: 0.25) == 0.25)
        #expect(try decodeValue(Double.self, from: NSNumber(value: 0.25)) == 0.25)
        #expect(try decodeValue(Double.self, from: Float(0.1)) == Double(Float(0.1)))
        #expect(try decodeValue(Double.self, from: NSNumber(value: Float(0.1))) == Double(Float(0.1)))
        #expect(try decodeValue(Double.self, from: 3) == 3.0)
        #expect(try decodeValue(Double.self, from: NSNumber(value: UInt64.max)) == 18_446_744_073_709_551_616.0)
        #expect(try decodeValue(Double.self, from: Double.greatestFiniteMagnitude) == .greatestFiniteMagnitude)
    }

    @Test("A Double decodes as a Float rounded to the nearest Float")
    func doubleRoundsToFloat() throws {
        #expect(try decodeValue(Float.self, from: 0.1) == Float(0.1))
        #expect(try decodeValue(Float.self, from: NSNumber(value: 0.1)) == Float(0.1))
        #expect(try decodeValue(Float.self, from: Double(Float.greatestFiniteMagnitude)) == .greatestFiniteMagnitude)
        #expect(try decodeValue(Float.self, from: 16_777_217) == 16_777_216)
    }

    @Test("A finite Double too large for Float is a type mismatch")
    func tooLargeForFloat() throws {
        let failure = try #require(valueFailure(Float.self, from: 1e300))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.path == ["value"])
        #expect(failure.message == "Expected Float but found 1e+300 (Double), which does not fit.")
        #expect(valueFailure(Float.self, from: NSNumber(value: -1e39))?.kind == .typeMismatch)
    }

    @Test("NaN and infinities decode as themselves")
    func nonFiniteValuesStay() throws {
        #expect(try decodeValue(Double.self, from: Double.nan).isNaN)
        #expect(try decodeValue(Float.self, from: NSNumber(value: Double.nan)).isNaN)
        #expect(try decodeValue(Float.self, from: Double.infinity) == .infinity)
        #expect(try decodeValue(Double.self, from: -Float.infinity) == -.infinity)
    }

    @Test("CGFloat decodes from CGFloats, Doubles and NSNumbers")
    func cgFloatsDecode() throws {
        #expect(try decodeValue(CGFloat.self, from: CGFloat(1.5)) == 1.5)
        #expect(try decodeValue(CGFloat.self, from: 1.5) == 1.5)
        #expect(try decodeValue(CGFloat.self, from: NSNumber(value: 1.5)) == 1.5)
        #expect(try decodeValue(Double.self, from: CGFloat(2.5)) == 2.5)
        #expect(try decodeValue(Int.self, from: CGFloat(4)) == 4)
        #expect(valueFailure(CGFloat.self, from: "1.5")?.message == "Expected CGFloat but found \"1.5\" (String).")
    }

    #if !((os(macOS) || targetEnvironment(macCatalyst)) && arch(x86_64))
    @Test("Float16 decodes by the same rules, and a value above its range does not fit")
    func float16Decodes() throws {
        #expect(try decodeValue(Float16.self, from: 0.5) == 0.5)
        #expect(try decodeValue(Float16.self, from: NSNumber(value: 65_504)) == 65_504)
        #expect(try decodeValue(Double.self, from: Float16(0.25)) == 0.25)
        #expect(
            valueFailure(Float16.self, from: 70_000)?.message
                == "Expected Float16 but found 70000 (Int), which does not fit.")
    }
    #endif

    @Test("A String holding a number is not a floating-point number")
    func digitsAreNotAFloat() throws {
        #expect(valueFailure(Double.self, from: "0.25")?.message == "Expected Double but found \"0.25\" (String).")
    }
}

@Suite("UserInfoDecoder Foundation values: Date, URL and Data are read as stored, never parsed")
struct UserInfoDecoderFoundationValueTests {
    @Test("Date decodes from a Date and from an NSDate")
    func datesDecode() throws {
        let date = Date(timeIntervalSinceReferenceDate: 123_456.75)
        #expect(try decodeValue(Date.self, from: date) == date)
        #expect(try decodeValue(Date.self, from: NSDate(timeIntervalSinceReferenceDate: 123_456.75)) == date)
    }

    @Test("A number or a String is not a Date")
    func numberIsNotADate() throws {
        let failure = try #require(valueFailure(Date.self, from: 123_456.75))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.type == "Date")
        #expect(failure.message == "Expected Date but found 123456.75 (Double).")
        #expect(valueFailure(Date.self, from: "2024-01-01T00:00:00Z")?.kind == .typeMismatch)
    }

    @Test("URL decodes from a URL and from an NSURL")
    func urlsDecode() throws {
        let url = try #require(URL(string: "https://example.com/a?b=c"))
        #expect(try decodeValue(URL.self, from: url) == url)
        #expect(try decodeValue(URL.self, from: NSURL(string: "https://example.com/a?b=c") ?? NSNull()) == url)
        let fileURL = URL(fileURLWithPath: "/tmp/file.txt")
        #expect(try decodeValue(URL.self, from: fileURL) == fileURL)
    }

    @Test("A String is not a URL, even when it reads as an absolute URL")
    func stringIsNotAURL() throws {
        let failure = try #require(valueFailure(URL.self, from: "https://example.com"))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.type == "URL")
        #expect(
            failure.message
                == "Expected URL but found \"https://example.com\" (String), and strings are not parsed as URLs.")
    }

    @Test("Data decodes from Data and from NSData")
    func dataDecodes() throws {
        let bytes: [UInt8] = [0, 1, 2, 255]
        #expect(try decodeValue(Data.self, from: Data(bytes)) == Data(bytes))
        #expect(try decodeValue(Data.self, from: NSData(bytes: bytes, length: bytes.count)) == Data(bytes))
        #expect(try decodeValue(Data.self, from: Data()) == Data())
    }

    @Test("An array of bytes or a String is not Data")
    func bytesAreNotData() throws {
        let failure = try #require(valueFailure(Data.self, from: [UInt8(1), 2, 3]))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.message == "Expected Data but found an array of 3 elements (Array<UInt8>).")
        #expect(valueFailure(Data.self, from: "AAEC")?.kind == .typeMismatch)
    }
}

@Suite("UserInfoDecoder geometry: CGPoint, CGSize and CGRect come from the struct or an NSValue holding it")
struct UserInfoDecoderGeometryTests {
    private let point = CGPoint(x: 1.5, y: -2)
    private let size = CGSize(width: 320, height: 216.5)
    private let rect = CGRect(x: 0, y: 480, width: 320, height: 216)

    @Test("The structs decode as themselves")
    func structsDecode() throws {
        #expect(try decodeValue(CGPoint.self, from: point) == point)
        #expect(try decodeValue(CGSize.self, from: size) == size)
        #expect(try decodeValue(CGRect.self, from: rect) == rect)
    }

    #if !canImport(Darwin) || os(macOS)
    @Test("An NSValue holding a point, size or rect decodes as that struct")
    func nsValuesDecode() throws {
        #expect(try decodeValue(CGPoint.self, from: NSValue(point: point)) == point)
        #expect(try decodeValue(CGSize.self, from: NSValue(size: size)) == size)
        #expect(try decodeValue(CGRect.self, from: NSValue(rect: rect)) == rect)
    }

    @Test("An NSValue holding another struct is a type mismatch, never a crash")
    func mismatchedNSValuesThrow() throws {
        let failure = try #require(valueFailure(CGRect.self, from: NSValue(point: point)))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.path == ["value"])
        #expect(failure.type == "CGRect")
        #if canImport(Darwin)
        #expect(failure.message == "Expected CGRect but found an NSValue holding {CGPoint=dd}.")
        #else
        #expect(failure.message == "Expected CGRect but found an NSValue holding CGPoint.")
        #endif
        #expect(valueFailure(CGPoint.self, from: NSValue(rect: rect))?.kind == .typeMismatch)
        #expect(valueFailure(CGSize.self, from: NSValue(point: point))?.kind == .typeMismatch)
        #expect(valueFailure(CGRect.self, from: NSValue(size: size))?.kind == .typeMismatch)
        #expect(valueFailure(CGRect.self, from: NSValue(range: NSRange(location: 1, length: 2)))?.kind == .typeMismatch)
    }
    #endif

    @Test("A number or the array form of the struct's own Codable is not a CGRect or a CGPoint")
    func otherShapesAreNotGeometry() throws {
        let failure = try #require(valueFailure(CGRect.self, from: NSNumber(value: 5)))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.message == "Expected CGRect but found 5 (NSNumber).")
        #expect(valueFailure(CGPoint.self, from: [1.0, 2.0])?.kind == .typeMismatch)
        // CGPoint's description differs between Linux and Apple platforms; the type name does not.
        let pointFailure = try #require(valueFailure(CGSize.self, from: point))
        #expect(pointFailure.message.hasPrefix("Expected CGSize but found "))
        #expect(pointFailure.message.hasSuffix(" (CGPoint)."))
    }
}

@Suite("UserInfoDecoder RawRepresentable enums decode through their raw value")
struct UserInfoDecoderEnumTests {
    @Test("An Int enum decodes from an Int or an NSNumber, a String enum from a String or an NSString")
    func enumsDecode() throws {
        #expect(try decodeValue(Curve.self, from: 7) == .keyboard)
        #expect(try decodeValue(Curve.self, from: NSNumber(value: 3)) == .linear)
        #expect(try decodeValue(Mode.self, from: "dark") == .dark)
        #expect(try decodeValue(Mode.self, from: NSString(string: "light")) == .light)
    }

    @Test("A raw value with no case is dataCorrupted at the value's coding path")
    func unknownRawValue() throws {
        let failure = try #require(valueFailure(Curve.self, from: NSNumber(value: 4)))
        #expect(failure.kind == .dataCorrupted)
        #expect(failure.path == ["value"])
        #expect(failure.message.contains("Curve"))
        let nested = try #require(decodingFailure(Box<[Mode]>.self, from: ["value": ["light", "sepia"]]))
        #expect(nested.kind == .dataCorrupted)
        #expect(nested.path == ["value", "Index 1"])
    }

    @Test("A raw value of the wrong type is a type mismatch naming the raw type")
    func wrongRawType() throws {
        let failure = try #require(valueFailure(Mode.self, from: 1))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.path == ["value"])
        #expect(failure.message == "Expected String but found 1 (Int).")
        #expect(valueFailure(Curve.self, from: "7")?.kind == .typeMismatch)
        #expect(valueFailure(Curve.self, from: 7.5)?.kind == .typeMismatch)
    }
}
