#if Postgres
/// A trace context's carrier as it travels with linked mail: the keys and values an instrument injects, as one line
/// of JSON, an object of strings with its keys sorted.
///
/// Written and read here rather than with Foundation's coders, which cost several microseconds a mail each way
/// (docs/performance.md); any JSON library reads what ``encode(_:)`` writes, and ``decode(_:)`` reads any such
/// object, whatever its spacing, escapes and order.
enum Carrier {
    /// The JSON of `carrier`: its keys in order, each key and value with `"`, `\` and the control characters
    /// escaped, so that it holds no newline.
    static func encode(_ carrier: [String: String]) -> String {
        var json = "{"
        for (index, key) in carrier.keys.sorted().enumerated() {
            if index > 0 { json += "," }
            append(key, to: &json)
            json += ":"
            append(carrier[key] ?? "", to: &json)
        }
        return json + "}"
    }

    /// The object of strings that `json` is, or `nil` when it is not one (another value, a syntax error, a lone
    /// surrogate).
    static func decode(_ json: String) -> [String: String]? {
        var reader = Reader(bytes: Array(json.utf8))
        return reader.object()
    }

    private static func append(_ string: String, to json: inout String) {
        json += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "\n": json += "\\n"
            case "\r": json += "\\r"
            case "\t": json += "\\t"
            case _ where scalar.value < 0x20:
                let digits = String(scalar.value, radix: 16)
                json += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default: json.unicodeScalars.append(scalar)
            }
        }
        json += "\""
    }

    /// Reads JSON's grammar, as far as an object of strings needs it, from UTF-8.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func object() -> [String: String]? {
            var object: [String: String] = [:]
            guard take(UInt8(ascii: "{")) else { return nil }
            if !take(UInt8(ascii: "}")) {
                repeat {
                    guard let key = string(), take(UInt8(ascii: ":")), let value = string() else { return nil }
                    object[key] = value
                } while take(UInt8(ascii: ","))
                guard take(UInt8(ascii: "}")) else { return nil }
            }
            skipSpace()
            return index == bytes.count ? object : nil
        }

        /// Takes `byte` after any whitespace; `false` when the next byte is another.
        private mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        private mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var utf8: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let scalar = escaped() else { return nil }
                    utf8.append(contentsOf: String(scalar).utf8)
                case 0..<0x20:
                    return nil
                default:
                    utf8.append(byte)
                }
            }
            return nil
        }

        /// The character of the escape after a backslash.
        private mutating func escaped() -> Unicode.Scalar? {
            guard index < bytes.count else { return nil }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                guard let unit = hexUnit() else { return nil }
                guard (0xD800..<0xDC00).contains(unit) else { return Unicode.Scalar(unit) }
                // A high surrogate: its low one must follow, as an escape of its own.
                guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else { return nil }
                index += 2
                guard let low = hexUnit(), (0xDC00..<0xE000).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            default: return nil
            }
        }

        /// The four hexadecimal digits of a `\u` escape.
        private mutating func hexUnit() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var unit: UInt32 = 0
            for byte in bytes[index..<index + 4] {
                guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { return nil }
                unit = unit << 4 | UInt32(digit)
            }
            index += 4
            return unit
        }
    }
}
#endif
