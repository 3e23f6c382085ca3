#ifndef HEAP_COUNTERS_H
#define HEAP_COUNTERS_H

#include <stddef.h>

/// The bytes the process's heap has handed out and not taken back: on glibc, `mallinfo2()`'s `uordblks` (chunks
/// in use in every arena, their malloc overhead included) plus `hblkhd` (large blocks allocated with mmap). Freed
/// chunks kept in a thread's cache still count as in use. Exact and identical from run to run for the same
/// sequence of allocations, unlike resident memory.
size_t heap_bytes_in_use(void);

#endif
