/// What a writer unlinked under the office lock, to release only after unlocking (see ``Reclamation``).
/// Holds one object without allocating, since unregistering unlinks exactly one.
struct Garbage: ~Copyable {
    private var first: AnyObject?
    private var more: [AnyObject] = []

    var isEmpty: Bool { first == nil }

    var objects: [AnyObject] {
        guard let first else { return [] }
        return [first] + more
    }

    mutating func append(_ object: AnyObject) {
        if first == nil {
            first = object
        } else {
            more.append(object)
        }
    }
}
