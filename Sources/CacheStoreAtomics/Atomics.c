// The functions of this target are `static inline`, in include/CacheStoreAtomics.h, but for the
// contended paths of the lock; those and the one global are defined here.
#include "CacheStoreAtomics.h"

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

uint64_t cachestore_anonymous_effect_serial = 0;

#ifdef __linux__
/// Tells the CPU that this thread spins (a hint; no effect on memory).
static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

// A futex mutex in three states (0 free, 1 held, 2 held with waiters): a waiter marks the word 2
// and sleeps until it changes; the unlock that finds 2 wakes one waiter, which takes the lock as 2
// again, as it cannot know whether others still wait. Spins briefly first, as the lock is held
// only for a few dictionary operations.
void cachestore_lock_contended(uint32_t *word) {
    for (int spin = 0; spin < 100; spin++) {
        uint32_t expected = 0;
        if (__atomic_load_n(word, __ATOMIC_RELAXED) == 0
            && __atomic_compare_exchange_n(word, &expected, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            return;
        }
        cpu_relax();
    }
    while (__atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE) != 0) {
        syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
    }
}

void cachestore_unlock_contended(uint32_t *word) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
#endif
