// Word-sized atomics, reader epochs, and a few facts about threads, for Mailroom.
//
// Swift has no atomics that build on every platform Mailroom supports (Synchronization's `Atomic` needs
// macOS 15 / iOS 18), so the few atomic operations the library needs live here, as `static inline`
// functions that the Swift compiler inlines into its callers. Nothing in this module is public API.

#ifndef MAILROOM_ATOMICS_H
#define MAILROOM_ATOMICS_H

#include <stdbool.h>
#include <stdint.h>

// MARK: - Atomic words

static inline uintptr_t mailroom_load_relaxed(const uintptr_t *word) {
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

static inline uintptr_t mailroom_load_acquire(const uintptr_t *word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

static inline void mailroom_store_relaxed(uintptr_t *word, uintptr_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELAXED);
}

static inline void mailroom_store_release(uintptr_t *word, uintptr_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

/// Sequentially consistent increment; returns the new value.
static inline uintptr_t mailroom_increment(uintptr_t *word) {
    return __atomic_add_fetch(word, 1, __ATOMIC_SEQ_CST);
}

/// Sequentially consistent compare-and-swap: stores `desired` if the word holds `expected`; returns whether it
/// did.
static inline bool mailroom_compare_exchange(uintptr_t *word, uintptr_t expected, uintptr_t desired) {
    return __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/// Sequentially consistent decrement; returns the new value.
static inline uintptr_t mailroom_decrement(uintptr_t *word) {
    return __atomic_sub_fetch(word, 1, __ATOMIC_SEQ_CST);
}

// MARK: - Reader epochs
//
// Epoch-based reclamation. A thread that reads the routing tables without a lock announces, in a slot of its
// own, the global epoch it saw when it started; a writer that unlinks an object stamps it with a new epoch and
// frees it only once every announcing reader started at or after that stamp. The reader's cost is one
// thread-local load and one store to a cache line no other thread writes.

/// One thread's announcement. `epoch` is 0 while the thread reads nothing.
typedef struct mailroom_reader {
    uintptr_t epoch;              // written by the owner, read by writers
    uintptr_t depth;              // nesting of read sections; owner only
    struct mailroom_reader *next; // registry list; immutable once linked
    uintptr_t owned;              // 1 while a live thread owns the slot
    char padding[32];             // one cache line per reader
} __attribute__((aligned(64))) mailroom_reader;

/// Epochs shared by all offices, on a cache line of their own.
typedef struct mailroom_epochs {
    uintptr_t current;         // advanced by every retirement
    uintptr_t newest_retired;  // stamp of the newest object still waiting, 0 when nothing waits
    char padding[48];
} __attribute__((aligned(64))) mailroom_epochs;

extern mailroom_epochs mailroom_global_epochs;
extern _Thread_local mailroom_reader *mailroom_current_reader;

/// Gives the calling thread a reader slot (reusing one a finished thread left) and returns it.
mailroom_reader *mailroom_reader_attach(void);

/// Starts a read section on the calling thread; sections nest.
static inline mailroom_reader *mailroom_read_begin(void) {
    mailroom_reader *reader = mailroom_current_reader;
    if (__builtin_expect(reader == 0, 0)) {
        reader = mailroom_reader_attach();
    }
    if (reader->depth++ == 0) {
        uintptr_t epoch = __atomic_load_n(&mailroom_global_epochs.current, __ATOMIC_ACQUIRE);
        __atomic_store_n(&reader->epoch, epoch, __ATOMIC_SEQ_CST);
    }
    return reader;
}

/// Ends a read section. Returns true when the outermost section ended while objects retired after it began
/// are waiting: the caller should then try to free them, since this reader may have been the one holding them.
///
/// Both the store and the load are sequentially consistent: a writer that retires an object stores its stamp,
/// then reads every reader's epoch. With weaker orders each side could miss the other's store, the writer
/// seeing this reader still open and this reader seeing nothing waiting, and the object would wait for the next
/// retirement in the process instead of being freed now.
static inline bool mailroom_read_end(mailroom_reader *reader) {
    if (--reader->depth != 0) {
        return false;
    }
    uintptr_t epoch = __atomic_load_n(&reader->epoch, __ATOMIC_RELAXED);
    __atomic_store_n(&reader->epoch, 0, __ATOMIC_SEQ_CST);
    return epoch < __atomic_load_n(&mailroom_global_epochs.newest_retired, __ATOMIC_SEQ_CST);
}

/// Advances the global epoch and returns the new value: the stamp of objects unlinked before this call.
static inline uintptr_t mailroom_epoch_advance(void) {
    return mailroom_increment(&mailroom_global_epochs.current);
}

/// Records the stamp of the newest object waiting to be freed (0: nothing waits), for `mailroom_read_end`.
static inline void mailroom_epoch_set_newest_retired(uintptr_t stamp) {
    __atomic_store_n(&mailroom_global_epochs.newest_retired, stamp, __ATOMIC_SEQ_CST);
}

/// The oldest epoch any reader announced, or UINTPTR_MAX when no thread is reading. An object stamped with
/// `stamp` may be freed when this returns a value >= `stamp`.
uintptr_t mailroom_epoch_oldest_reader(void);

/// True on the process's main thread, where the main actor runs. Answered once per thread, then from a
/// thread-local cache.
bool mailroom_is_main_thread_slow(void);
extern _Thread_local int8_t mailroom_main_thread_state; // 0: not asked yet, 1: main thread, 2: another thread

static inline bool mailroom_is_main_thread(void) {
    int8_t state = mailroom_main_thread_state;
    if (__builtin_expect(state == 0, 0)) {
        return mailroom_is_main_thread_slow();
    }
    return state == 1;
}

#if defined(__linux__)
// libdispatch's own functions and main queue, declared here rather than through <dispatch/dispatch.h>, which this
// module cannot include. Only the addresses are compared.
extern void *dispatch_get_current_queue(void);
extern struct dispatch_queue_static_s _dispatch_main_q;

/// True in a block of the main queue. On Linux, once the main thread is parked (`dispatchMain()`, an `async`
/// main), the main queue's blocks, and with them the main actor, run on other threads. A block of a queue that
/// targets the main queue is not recognized here (the caller asks `DispatchQueue.getSpecific` then).
static inline bool mailroom_is_main_queue(void) {
    return dispatch_get_current_queue() == (void *)&_dispatch_main_q;
}
#endif

/// Process-wide unique registration numbers, from 1, increasing on each thread (not across threads).
uint64_t mailroom_next_registration_number(void);

// MARK: - Lock

#if defined(__linux__)
/// A mutex in one word: 0 unlocked, 1 locked, 2 locked with threads (maybe) waiting. Taking and giving back an
/// uncontended lock is one atomic operation each, inlined into the caller; a thread that finds it taken waits on
/// a futex (Lock.c). This is the third mutex of Ulrich Drepper's "Futexes Are Tricky" (2011).
typedef struct {
    uint32_t state;
} mailroom_lock;

void mailroom_lock_wait(mailroom_lock *lock, uint32_t seen);
void mailroom_lock_wake(mailroom_lock *lock);

static inline void mailroom_lock_init(mailroom_lock *lock) {
    lock->state = 0;
}

static inline void mailroom_lock_destroy(mailroom_lock *lock) {
    (void)lock;
}

static inline void mailroom_lock_acquire(mailroom_lock *lock) {
    uint32_t seen = 0;
    if (!__atomic_compare_exchange_n(&lock->state, &seen, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        mailroom_lock_wait(lock, seen);
    }
}

static inline void mailroom_lock_release(mailroom_lock *lock) {
    if (__atomic_fetch_sub(&lock->state, 1, __ATOMIC_RELEASE) != 1) {
        mailroom_lock_wake(lock);
    }
}
#else
#include <pthread.h>

/// A pthread mutex where there is no futex.
typedef struct {
    pthread_mutex_t mutex;
} mailroom_lock;

static inline void mailroom_lock_init(mailroom_lock *lock) {
    pthread_mutex_init(&lock->mutex, 0);
}

static inline void mailroom_lock_destroy(mailroom_lock *lock) {
    pthread_mutex_destroy(&lock->mutex);
}

static inline void mailroom_lock_acquire(mailroom_lock *lock) {
    pthread_mutex_lock(&lock->mutex);
}

static inline void mailroom_lock_release(mailroom_lock *lock) {
    pthread_mutex_unlock(&lock->mutex);
}
#endif

#endif
