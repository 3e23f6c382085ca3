import Foundation

/// One dictionary's values by the string a `CodingKey` is matched against, built once per keyed container so
/// each lookup is a single hash, whatever the dictionary's key types.
///
/// A key's string is the key itself for a `String` or `NSString`, its raw value for a `RawRepresentable` with a
/// `String` raw value (`Notification.Name`); other keys are left out. Strings that more than one key gives are
/// remembered with those keys, so that reading one throws instead of returning an arbitrary one of the values.
struct UserInfoDecodingEntries {
    /// What a lookup finds.
    enum Lookup {
        case missing
        case found(Any)
        /// More than one key has the string; the descriptions of those keys, sorted.
        case ambiguous([String])
    }

    private let values: [String: Any]
    private let clashes: [String: [String]]

    /// Reads `value` as a dictionary, or returns nil when it is not one.
    init?(_ value: Any) {
        if type(of: value) == [String: Any].self, let strings = value as? [String: Any] {
            // Already keyed by String: no two keys can give the same string.
            self.init(values: strings, clashes: [:])
        } else if let dictionary = value as? [AnyHashable: Any] {
            self.init(dictionary)
        } else {
            return nil
        }
    }

    init(_ dictionary: [AnyHashable: Any]) {
        var values: [String: Any] = [:]
        values.reserveCapacity(dictionary.count)
        var clashingNames: Set<String> = []
        for (key, value) in dictionary {
            guard let name = Self.name(of: key) else { continue }
            if values.updateValue(value, forKey: name) != nil {
                clashingNames.insert(name)
            }
        }
        var clashes: [String: [String]] = [:]
        if !clashingNames.isEmpty {
            for key in dictionary.keys {
                guard let name = Self.name(of: key), clashingNames.contains(name) else { continue }
                clashes[name, default: []].append("\"\(name)\" (\(type(of: key.base)))")
            }
            for name in clashes.keys { clashes[name]?.sort() }
        }
        self.init(values: values, clashes: clashes)
    }

    private init(values: [String: Any], clashes: [String: [String]]) {
        self.values = values
        self.clashes = clashes
    }

    /// Every string a key of the dictionary gives, once each, in no particular order.
    var names: Dictionary<String, Any>.Keys { values.keys }

    func contains(_ name: String) -> Bool { values[name] != nil }

    func lookup(_ name: String) -> Lookup {
        guard let value = values[name] else { return .missing }
        if !clashes.isEmpty, let keys = clashes[name] { return .ambiguous(keys) }
        return .found(value)
    }

    /// The string a dictionary key is matched by, or nil for a key of another type.
    static func name(of key: AnyHashable) -> String? {
        let base = key.base
        if let string = base as? String { return string }
        if let representable = base as? any RawRepresentable { return rawString(of: representable) }
        return nil
    }

    private static func rawString<Representable: RawRepresentable>(of key: Representable) -> String? {
        key.rawValue as? String
    }
}
