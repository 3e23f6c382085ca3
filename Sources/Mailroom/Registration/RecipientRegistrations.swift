/// The method registrations of one recipient object, which `office.unregister(object)` removes.
///
/// The first is kept inline: most objects register once or a few times, and an array for each would cost every
/// method registration an allocation (64 bytes) of its own.
struct RecipientRegistrations {
    private var first: RecipientId
    private var more: [RecipientId] = []

    init(_ id: RecipientId) {
        first = id
    }

    /// Every id, the first one registered first.
    var ids: [RecipientId] {
        [first] + more
    }

    mutating func append(_ id: RecipientId) {
        more.append(id)
    }

    /// Removes `id`; returns true when none is left.
    mutating func remove(_ id: RecipientId) -> Bool {
        if first == id {
            guard !more.isEmpty else { return true }
            first = more.removeFirst()
        } else {
            more.removeAll { $0 == id }
        }
        return false
    }
}
