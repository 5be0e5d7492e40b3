// Every function of this target is `static inline`, in include/CacheStoreAtomics.h; the one global is
// defined here.
#include "CacheStoreAtomics.h"

uint64_t cachestore_anonymous_effect_serial = 0;
