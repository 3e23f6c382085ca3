import Foundation

/// A keyed container over one dictionary of the user-info tree.
///
/// Every `decode` overload hands its value to ``UserInfoDecodingDecoder/decode(_:from:at:userInfo:)``, so the
/// conversion rules live in one place; this type only finds the value for a key.
struct UserInfoDecodingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let entries: UserInfoDecodingEntries
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]

    var allKeys: [Key] {
        entries.names.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool {
        entries.contains(key.stringValue)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try value(forKey: key) == nil
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeValue(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeValue(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeValue(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeValue(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeValue(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeValue(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeValue(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeValue(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeValue(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeValue(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeValue(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeValue(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeValue(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeValue(type, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try decodeValue(type, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try decodeValue(type, forKey: key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decodeValue(type, forKey: key) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(forKey: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(forKey: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        try decoder(forKey: UserInfoDecodingKey.superKey)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try decoder(forKey: key)
    }

    private func decodeValue<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try UserInfoDecodingDecoder.decode(type, from: value(forKey: key), at: codingPath + [key], userInfo: userInfo)
    }

    private func decoder(forKey key: some CodingKey) throws -> UserInfoDecodingDecoder {
        UserInfoDecodingDecoder(value: try value(forKey: key), codingPath: codingPath + [key], userInfo: userInfo)
    }

    /// The value for `key`, or nil when it is null; throws when the key is missing or matches two dictionary keys.
    private func value(forKey key: some CodingKey) throws -> Any? {
        switch entries.lookup(key.stringValue) {
        case .found(let raw):
            return UserInfoDecodingValue.unwrap(raw)
        case .missing:
            throw UserInfoDecodingError.keyNotFound(key, at: codingPath)
        case .ambiguous(let clashingKeys):
            throw UserInfoDecodingError.ambiguousKey(key, clashingKeys: clashingKeys, at: codingPath)
        }
    }
}
