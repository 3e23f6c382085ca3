internal import _MailroomAtomics

/// State that is only read or changed while holding a lock.
///
/// The one place in Mailroom that takes a lock; `package`, so that MailroomFoundation uses it too. The lock is
/// `mailroom_lock` from the C shims: on Linux a futex-based mutex whose uncontended lock and unlock are one
/// atomic operation each, inlined here rather than called: registering and unregistering each take the lock,
/// and a call per lock and unlock would be a large part of their cost. Elsewhere a pthread mutex. Not
/// `Synchronization.Mutex`: on Linux its futex path makes ThreadSanitizer report races that are not there, while
/// this lock hands over through atomics that it sees. The lock is not recursive: `body` must not call back into
/// `withLock` of the same instance.
package final class Locked<State>: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<mailroom_lock>.allocate(capacity: 1)
    /// Behind a pointer rather than in a stored `var`: Swift checks every `inout` use of a class's stored
    /// variable for exclusive access at run time, which the lock already guarantees.
    private let state = UnsafeMutablePointer<State>.allocate(capacity: 1)

    package init(_ state: State) {
        self.state.initialize(to: state)
        mailroom_lock_init(lock)
    }

    deinit {
        mailroom_lock_destroy(lock)
        lock.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        mailroom_lock_acquire(lock)
        defer { mailroom_lock_release(lock) }
        return try body(&state.pointee)
    }
}
