#include "HeapCounters.h"

// Any C library header defines __GLIBC__ on glibc; <stddef.h>, from the compiler, does not.
#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>

size_t heap_bytes_in_use(void) {
    // mallinfo2 sums every arena; its int-sized predecessor mallinfo wraps past 2 GB.
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
#elif defined(__APPLE__)
#include <malloc/malloc.h>

size_t heap_bytes_in_use(void) {
    malloc_statistics_t statistics;
    malloc_zone_statistics(NULL, &statistics);
    return statistics.size_in_use;
}
#else
size_t heap_bytes_in_use(void) {
    return 0;
}
#endif
