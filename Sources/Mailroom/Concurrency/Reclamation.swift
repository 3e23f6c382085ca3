internal import _MailroomAtomics

/// A stretch of code that reads the routing tables without a lock.
///
/// Whatever a writer unlinks while a section is open stays allocated until the section ends: a post can walk
/// a list of recipients while another thread unregisters one of them. Sections nest, and handlers run inside
/// them, so a handler may post, register and unregister.
struct ReadSection {
    /// The calling thread's `mailroom_reader`, opaque to Swift.
    private let reader: OpaquePointer

    @inline(__always) init() {
        reader = mailroom_read_begin().unsafelyUnwrapped
    }

    @inline(__always) func end() {
        if mailroom_read_end(reader) {
            Reclamation.collect()
        }
    }

    /// True while the calling thread is inside a section.
    static var isOpen: Bool { mailroom_is_reading() }
}

/// Frees unlinked objects once no read section that might still see them is open (epoch-based reclamation).
///
/// A writer first unlinks an object from every table a reader could reach, then hands it to ``retire(_:)``.
/// The object is released at once when no thread is reading (the common case), otherwise when every thread
/// that was reading at that moment has finished. Releasing happens outside every lock, since a released
/// closure may run a `deinit` that calls back into Mailroom.
enum Reclamation {
    private struct Waiting {
        var stamp: UInt
        var objects: [AnyObject]
    }

    private static let waiting = Locked<[Waiting]>([])

    /// Releases `garbage` once no reader can still reach it: when this returns if no thread is reading.
    static func retire(_ garbage: consuming Garbage) {
        guard !garbage.isEmpty else { return }
        // The objects were unlinked before this fence (inside `mailroom_epoch_oldest_reader`): a reader that
        // starts after it cannot reach them, and if none is reading now, nothing can.
        guard mailroom_epoch_oldest_reader() != .max else { return }
        waiting.withLock { waiting in
            let stamp = mailroom_epoch_advance()
            waiting.append(Waiting(stamp: stamp, objects: garbage.objects))
            mailroom_epoch_set_newest_retired(stamp)
        }
        collect()
    }

    /// Releases every retired object that no reader can still reach.
    static func collect() {
        let released: [Waiting] = waiting.withLock { waiting in
            let oldestReader = mailroom_epoch_oldest_reader()
            let free = waiting.firstIndex { $0.stamp > oldestReader } ?? waiting.count
            let released: [Waiting]
            if free == waiting.count {
                released = waiting
                waiting = []
            } else {
                released = Array(waiting[..<free])
                waiting.removeFirst(free)
            }
            mailroom_epoch_set_newest_retired(waiting.last?.stamp ?? 0)
            return released
        }
        withExtendedLifetime(released) {}
    }

    /// Marks the moment something was unlinked, for a caller that frees it itself (see ``isFree(since:)``).
    static func stamp() -> UInt {
        mailroom_epoch_advance()
    }

    /// True when no read section that was open at `stamp` is still open.
    static func isFree(since stamp: UInt) -> Bool {
        mailroom_epoch_oldest_reader() >= stamp
    }
}

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
