// The contended paths of `mailroom_lock` on Linux (see _MailroomAtomics.h).
#include "_MailroomAtomics.h"

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Takes the lock, which was seen in state `seen` (not 0): marks it as having waiters (2) and sleeps until the
/// thread that holds it gives it back, then tries again. A thread that takes it this way leaves it at 2, so
/// that giving it back wakes the next waiter, if any.
void mailroom_lock_wait(mailroom_lock *lock, uint32_t seen) {
    if (seen != 2) {
        seen = __atomic_exchange_n(&lock->state, 2, __ATOMIC_ACQUIRE);
    }
    while (seen != 0) {
        // Returns at once if the state is no longer 2; spurious wake-ups only cost another exchange.
        syscall(SYS_futex, &lock->state, FUTEX_WAIT_PRIVATE, 2, 0, 0, 0);
        seen = __atomic_exchange_n(&lock->state, 2, __ATOMIC_ACQUIRE);
    }
}

/// Gives back a lock that had waiters (its state was 2, now 1): unlocks it and wakes one of them.
void mailroom_lock_wake(mailroom_lock *lock) {
    __atomic_store_n(&lock->state, 0, __ATOMIC_RELEASE);
    syscall(SYS_futex, &lock->state, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
}
#endif
