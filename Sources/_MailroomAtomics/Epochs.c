#include "_MailroomAtomics.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

mailroom_epochs mailroom_global_epochs = {.current = 1, .newest_retired = 0};
_Thread_local mailroom_reader *mailroom_current_reader = 0;

static mailroom_reader *registry_head = 0;
static pthread_key_t thread_exit_key;
static pthread_once_t thread_exit_key_once = PTHREAD_ONCE_INIT;

// A finished thread hands its slot back for the next new thread; slots are never freed, so their number is
// bounded by the most threads that were ever reading at once.
static void release_reader(void *slot) {
    mailroom_reader *reader = slot;
    mailroom_current_reader = 0;
    __atomic_store_n(&reader->epoch, 0, __ATOMIC_RELEASE);
    reader->depth = 0;
    __atomic_store_n(&reader->owned, 0, __ATOMIC_RELEASE);
}

static void make_thread_exit_key(void) {
    if (pthread_key_create(&thread_exit_key, release_reader) != 0) {
        abort();
    }
}

static mailroom_reader *claim_free_reader(void) {
    for (mailroom_reader *reader = __atomic_load_n(&registry_head, __ATOMIC_ACQUIRE); reader != 0;
         reader = reader->next) {
        uintptr_t expected = 0;
        if (__atomic_compare_exchange_n(&reader->owned, &expected, 1, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            return reader;
        }
    }
    return 0;
}

static mailroom_reader *link_new_reader(void) {
    mailroom_reader *reader = 0;
    if (posix_memalign((void **)&reader, 64, sizeof(mailroom_reader)) != 0) {
        abort();
    }
    memset(reader, 0, sizeof(mailroom_reader));
    reader->owned = 1;
    mailroom_reader *head = __atomic_load_n(&registry_head, __ATOMIC_RELAXED);
    do {
        reader->next = head;
    } while (!__atomic_compare_exchange_n(&registry_head, &head, reader, true, __ATOMIC_RELEASE,
                                          __ATOMIC_RELAXED));
    return reader;
}

mailroom_reader *mailroom_reader_attach(void) {
    pthread_once(&thread_exit_key_once, make_thread_exit_key);
    mailroom_reader *reader = claim_free_reader();
    if (reader == 0) {
        reader = link_new_reader();
    }
    if (pthread_setspecific(thread_exit_key, reader) != 0) {
        abort();
    }
    mailroom_current_reader = reader;
    return reader;
}

uintptr_t mailroom_epoch_oldest_reader(void) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    uintptr_t oldest = UINTPTR_MAX;
    for (mailroom_reader *reader = __atomic_load_n(&registry_head, __ATOMIC_ACQUIRE); reader != 0;
         reader = reader->next) {
        uintptr_t epoch = __atomic_load_n(&reader->epoch, __ATOMIC_SEQ_CST);
        if (epoch != 0 && epoch < oldest) {
            oldest = epoch;
        }
    }
    return oldest;
}
