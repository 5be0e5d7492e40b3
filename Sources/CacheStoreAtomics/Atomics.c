// Every function of this target is `static inline`, in include/CacheStoreAtomics.h; the globals are
// defined here.
#include "CacheStoreAtomics.h"

uint64_t cachestore_anonymous_effect_serial = 0;
_Thread_local uintptr_t cachestore_turns_held = 0;
