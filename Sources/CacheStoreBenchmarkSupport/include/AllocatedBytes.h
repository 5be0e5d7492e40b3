#ifndef CACHESTORE_ALLOCATED_BYTES_H
#define CACHESTORE_ALLOCATED_BYTES_H

#include <stddef.h>

/// Bytes the C allocator has handed out and not had back, or -1 where this platform cannot tell.
/// Used by the benchmarks' memory cases and by the memory probe of the engine's tests.
long long cachestore_allocated_bytes(void);

#endif
