#include "AllocatedBytes.h"

#include <stdlib.h>  // defines __GLIBC__ on glibc systems

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define CACHESTORE_SANITIZER_ALLOCATOR 1
#endif
#endif

#if defined(CACHESTORE_SANITIZER_ALLOCATOR)
// Under a sanitizer, malloc is the sanitizer's own allocator, which the C library's statistics
// do not see.
#include <sanitizer/allocator_interface.h>

long long cachestore_allocated_bytes(void) { return (long long)__sanitizer_get_current_allocated_bytes(); }
#elif defined(__GLIBC__)
#include <malloc.h>

long long cachestore_allocated_bytes(void) {
    struct mallinfo2 info = mallinfo2();
    return (long long)info.uordblks + (long long)info.hblkhd;
}
#elif defined(__APPLE__)
#include <malloc/malloc.h>

long long cachestore_allocated_bytes(void) {
    malloc_statistics_t statistics;
    malloc_zone_statistics(NULL, &statistics);
    return (long long)statistics.size_in_use;
}
#else
long long cachestore_allocated_bytes(void) { return -1; }
#endif
