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
/// The object is released when every thread that was reading at that moment has finished; at once when no
/// thread was. Releasing happens outside every lock, since a released closure may run a `deinit` that calls
/// back into Mailroom.
enum Reclamation {
    private struct Waiting {
        var stamp: UInt
        var objects: [AnyObject]
    }

    private static let waiting = Locked<[Waiting]>([])

    /// Releases `objects` once no reader can still reach them.
    static func retire(_ objects: [AnyObject]) {
        guard !objects.isEmpty else { return }
        waiting.withLock { waiting in
            let stamp = mailroom_epoch_advance()
            waiting.append(Waiting(stamp: stamp, objects: objects))
            mailroom_epoch_set_newest_retired(stamp)
        }
        collect()
    }

    /// Releases every retired object that no reader can still reach.
    static func collect() {
        let released: [Waiting] = waiting.withLock { waiting in
            let oldestReader = mailroom_epoch_oldest_reader()
            let free = waiting.prefix { $0.stamp <= oldestReader }
            waiting.removeFirst(free.count)
            mailroom_epoch_set_newest_retired(waiting.last?.stamp ?? 0)
            return Array(free)
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
