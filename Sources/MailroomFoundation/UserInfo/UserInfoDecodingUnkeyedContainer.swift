import Foundation

/// An unkeyed container over one array of the user-info tree.
///
/// `currentIndex` moves on only when a value was decoded, so after an error the same element can be read again
/// as another type. Reading past the end throws `valueNotFound` at the missing index.
struct UserInfoDecodingUnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [Any]
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    private(set) var currentIndex = 0

    init(elements: [Any], codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]) {
        self.elements = elements
        self.codingPath = codingPath
        self.userInfo = userInfo
    }

    var count: Int? { elements.count }

    var isAtEnd: Bool { currentIndex >= elements.count }

    mutating func decodeNil() throws -> Bool {
        guard try next(expecting: Any?.self) == nil else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeNext(type) }
    mutating func decode(_ type: String.Type) throws -> String { try decodeNext(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decodeNext(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decodeNext(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decodeNext(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeNext(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeNext(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeNext(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeNext(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeNext(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeNext(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeNext(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeNext(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeNext(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try decodeNext(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try decodeNext(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeNext(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try nextDecoder(expecting: [String: Any].self).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try nextDecoder(expecting: [Any].self).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = try nextDecoder(expecting: Any.self)
        currentIndex += 1
        return decoder
    }

    private mutating func decodeNext<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try next(expecting: type)
        let decoded = try UserInfoDecodingDecoder.decode(type, from: value, at: currentPath, userInfo: userInfo)
        currentIndex += 1
        return decoded
    }

    private func nextDecoder(expecting type: Any.Type) throws -> UserInfoDecodingDecoder {
        let value = try next(expecting: type)
        return UserInfoDecodingDecoder(value: value, codingPath: currentPath, userInfo: userInfo)
    }

    /// The current element, or nil when it is null; throws `valueNotFound` past the end.
    private func next(expecting type: Any.Type) throws -> Any? {
        guard currentIndex < elements.count else {
            throw UserInfoDecodingError.pastEnd(type, count: elements.count, at: currentPath)
        }
        return UserInfoDecodingValue.unwrap(elements[currentIndex])
    }

    /// The coding path of the current element.
    private var currentPath: [any CodingKey] {
        codingPath + [UserInfoDecodingKey(index: currentIndex)]
    }
}
