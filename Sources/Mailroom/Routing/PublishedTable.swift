/// A ``RouteTable`` whose current version is published in a word that posts read.
///
/// Posts may be reading a table when it is replaced (by a bigger one, or an empty one), so a replaced table is
/// never freed here: it is returned, for the caller to retire once it has unlocked.
struct PublishedTable {
    private var table = RouteTable()
    private let cell: AtomicWord

    init(cell: AtomicWord) {
        self.cell = cell
        cell.storeRelease(UInt(bitPattern: table.address))
    }

    /// Sets the value under `key`, in this table or, when it is full, in a bigger copy published in its place.
    /// - Returns: The table replaced, if it was, to retire.
    mutating func insert(_ value: UInt, for key: RouteTable.Key) -> RouteTable? {
        guard !table.insert(value, for: key) else { return nil }
        let grown = table.grown()
        _ = grown.insert(value, for: key)
        cell.storeRelease(UInt(bitPattern: grown.address))
        defer { table = grown }
        return table
    }

    func remove(_ key: RouteTable.Key) {
        table.remove(key)
    }

    /// Publishes an empty table in place of this one.
    /// - Returns: The table replaced, to retire.
    mutating func removeAll() -> RouteTable {
        let empty = RouteTable()
        cell.storeRelease(UInt(bitPattern: empty.address))
        defer { table = empty }
        return table
    }
}
