#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Bionic)
import Bionic
#else
#error("Mailroom needs pthreads")
#endif

/// State that is only read or changed while holding a pthread mutex.
///
/// The one place in Mailroom that touches a platform lock; `package`, so that MailroomFoundation uses it too. A pthread mutex rather than `Synchronization.Mutex`:
/// on Linux the latter's futex path makes ThreadSanitizer report races that are not there.
/// The lock is not recursive: `body` must not call back into `withLock` of the same instance.
package final class Locked<State>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Behind a pointer rather than in a stored `var`: Swift checks every `inout` use of a class's stored
    /// variable for exclusive access at run time, which the mutex already guarantees.
    private let state = UnsafeMutablePointer<State>.allocate(capacity: 1)

    package init(_ state: State) {
        self.state.initialize(to: state)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state.pointee)
    }
}
