#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// State that is only read or changed while holding a lock.
///
/// The one place in MailroomObservability that takes a lock: a pthread mutex. Not `Synchronization.Mutex`: on
/// Linux its futex path makes ThreadSanitizer report races that are not there (and it needs macOS 15). The lock is
/// not recursive: `body` must not call `withLock` of the same instance.
final class Locked<State: Sendable>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Behind a pointer rather than in a stored `var`: Swift would check every `inout` use of a class's stored
    /// variable for exclusive access at run time, which the lock already guarantees.
    private let state = UnsafeMutablePointer<State>.allocate(capacity: 1)

    init(_ state: State) {
        self.state.initialize(to: state)
        let error = pthread_mutex_init(mutex, nil)
        precondition(error == 0, "pthread_mutex_init failed: \(error)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Runs `body` on the state, holding the lock.
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state.pointee)
    }
}
