#if Observability
/// The values a label takes for the types it names (mail types, error types): the module-qualified name
/// (`String(reflecting:)`) of each of the first `limit` distinct types seen, and `"other"` for every later one, so
/// that a label never has more than `limit + 1` values and this table never holds more than `limit` types.
struct TypeLabels: Sendable {
    /// One type's label: its value, and the key its metrics are kept under.
    struct Label: Sendable {
        /// The key shared by every type of this label value: the first such type's identity, or ``otherKey``.
        let key: ObjectIdentifier
        /// The type's name, or `"other"`.
        let value: String

        /// True for a type beyond the limit, which has no name of its own.
        var isOther: Bool { key == TypeLabels.otherKey }
    }

    /// The value of the label for every type beyond the limit.
    static let other = "other"
    /// The key of ``other``: no real type's identity.
    static let otherKey = ObjectIdentifier(Other.self)
    private enum Other {}

    let limit: Int
    private var labels: [ObjectIdentifier: Label] = [:]
    /// The key of each name: two types of the same name (which `String(reflecting:)` makes rare) share one.
    private var keys: [String: ObjectIdentifier] = [:]

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// The label of `type`, naming it if fewer than `limit` types were named before.
    mutating func label(for type: Any.Type) -> Label {
        let id = ObjectIdentifier(type)
        if let label = labels[id] {
            return label
        }
        guard labels.count < limit else {
            return Label(key: Self.otherKey, value: Self.other)
        }
        let name = String(reflecting: type)
        let label = Label(key: keys[name, default: id], value: name)
        keys[name] = label.key
        labels[id] = label
        return label
    }
}
#endif
