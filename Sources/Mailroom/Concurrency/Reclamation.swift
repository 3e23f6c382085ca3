internal import _MailroomAtomics

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
