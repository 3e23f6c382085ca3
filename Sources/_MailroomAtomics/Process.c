// Registration numbers, and recognizing the main thread.
#include "_MailroomAtomics.h"

#include <pthread.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

/// Registration numbers are handed to each thread in blocks, so that registering takes no atomic operation
/// except once per block.
#define MAILROOM_NUMBERS_PER_BLOCK 1024
static uint64_t last_registration_block = 0;
static _Thread_local uint64_t next_registration_number = 0;
static _Thread_local uint64_t end_of_registration_block = 0;

_Thread_local int8_t mailroom_main_thread_state = 0;

bool mailroom_is_main_thread_slow(void) {
#if defined(__APPLE__)
    bool is_main = pthread_main_np() != 0;
#elif defined(__linux__)
    bool is_main = syscall(SYS_gettid) == getpid();
#else
#error "Mailroom needs a way to recognize the main thread on this platform"
#endif
    mailroom_main_thread_state = is_main ? 1 : 2;
    return is_main;
}

uint64_t mailroom_next_registration_number(void) {
    if (next_registration_number == end_of_registration_block) {
        uint64_t block = __atomic_fetch_add(&last_registration_block, 1, __ATOMIC_RELAXED);
        next_registration_number = block * MAILROOM_NUMBERS_PER_BLOCK + 1;
        end_of_registration_block = next_registration_number + MAILROOM_NUMBERS_PER_BLOCK;
    }
    return next_registration_number++;
}
