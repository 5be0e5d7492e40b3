// Every function of this target is `static inline`, in include/CacheStoreAtomics.h; a C target needs
// one source file.
#include "CacheStoreAtomics.h"
