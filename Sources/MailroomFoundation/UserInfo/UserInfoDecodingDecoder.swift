import Foundation

/// The `Decoder` a model's `init(from:)` receives: one value of the user-info tree and the coding path to it.
///
/// A class so that a model asking for its keyed container more than once (a class and its superclass, say) has
/// the dictionary's keys normalised only once.
final class UserInfoDecodingDecoder: Decoder {
    /// The value to decode, or nil for a null (`NSNull`, a stored `Optional.none`).
    let value: Any?
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    private var cachedEntries: UserInfoDecodingEntries?

    init(value: Any?, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]) {
        self.value = value
        self.codingPath = codingPath
        self.userInfo = userInfo
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let entries = try keyedEntries()
        return KeyedDecodingContainer(
            UserInfoDecodingKeyedContainer<Key>(entries: entries, codingPath: codingPath, userInfo: userInfo))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let value else {
            throw UserInfoDecodingError.valueNotFound([Any].self, at: codingPath)
        }
        guard let elements = value as? [Any] else {
            throw UserInfoDecodingError.typeMismatch([Any].self, found: value, at: codingPath)
        }
        return UserInfoDecodingUnkeyedContainer(elements: elements, codingPath: codingPath, userInfo: userInfo)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        UserInfoDecodingSingleValueContainer(value: value, codingPath: codingPath, userInfo: userInfo)
    }

    private func keyedEntries() throws -> UserInfoDecodingEntries {
        if let cachedEntries { return cachedEntries }
        guard let value else {
            throw UserInfoDecodingError.valueNotFound([String: Any].self, at: codingPath)
        }
        guard let entries = UserInfoDecodingEntries(value) else {
            throw UserInfoDecodingError.typeMismatch(
                [String: Any].self, found: value, at: codingPath)
        }
        cachedEntries = entries
        return entries
    }

    /// Decodes one value found at `codingPath`: the single path every container's `decode` methods take.
    ///
    /// The types ``UserInfoDecodingScalar`` names are converted here by the decoder's rules, because their own
    /// `init(from:)` would expect another shape (a number for `Date`, an array for `CGRect`); every other type
    /// gets a decoder of its own. The coding path is built only when an error or a nested decoder needs it,
    /// which keeps decoding a large array of numbers from allocating a path per element.
    static func decode<T: Decodable>(
        _ type: T.Type, from value: Any?, at codingPath: @autoclosure () -> [any CodingKey],
        userInfo: [CodingUserInfoKey: Any]
    ) throws -> T {
        if let scalar = UserInfoDecodingScalar(type) {
            guard let value else { throw UserInfoDecodingError.valueNotFound(type, at: codingPath()) }
            return try scalar.decode(type, from: value, at: codingPath())
        }
        return try T(from: UserInfoDecodingDecoder(value: value, codingPath: codingPath(), userInfo: userInfo))
    }
}
