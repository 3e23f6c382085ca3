// Registration numbers, registration options, and recognizing the main thread.
#include "_MailroomAtomics.h"

#include <pthread.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

static uint64_t last_registration_number = 0;

_Thread_local int8_t mailroom_main_thread_state = 0;
_Thread_local void *mailroom_enrollment_options = 0;

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
    return __atomic_add_fetch(&last_registration_number, 1, __ATOMIC_RELAXED);
}
