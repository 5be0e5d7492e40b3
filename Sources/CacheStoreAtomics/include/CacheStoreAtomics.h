#ifndef CACHESTORE_ATOMICS_H
#define CACHESTORE_ATOMICS_H

#include <stdbool.h>
#include <stdint.h>

// One machine word read and changed atomically, for the store's turn (ActionQueue.swift): Swift's
// `Atomic` (Synchronization) needs macOS 15 / iOS 18, and this package supports macOS 14 / iOS 17.
// `static inline`, so that Swift inlines each into its caller: no call, one instruction each.

/// Replaces `*word` with `desired` if it holds `expected` (acquire-release); returns whether it did.
static inline bool cachestore_atomic_compare_exchange(uintptr_t *word, uintptr_t expected, uintptr_t desired) {
    return __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/// The value of `*word` (acquire).
static inline uintptr_t cachestore_atomic_load(const uintptr_t *word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

/// Sets `*word` to `value` (release).
static inline void cachestore_atomic_store(uintptr_t *word, uintptr_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

/// The last serial number of an anonymous effect id (AnonymousEffectID.swift), for the whole process.
/// A C global, so it is initialized before the program runs: a Swift global is made on first use,
/// and every use of it asks `swift_once` whether it was made yet.
extern uint64_t cachestore_anonymous_effect_serial;

/// A serial number never returned before in this process (relaxed: it orders nothing else).
static inline uint64_t cachestore_next_anonymous_effect_serial(void) {
    return __atomic_add_fetch(&cachestore_anonymous_effect_serial, 1, __ATOMIC_RELAXED);
}

// The word of a `Lock` (Internal/Lock.swift) on Linux: 0 unlocked, 1 locked, 2 locked with threads
// waiting (a futex). Taking and releasing a free lock is one atomic instruction each, inlined into
// the caller, where `pthread_mutex_lock` and `pthread_mutex_unlock` are two calls into libc that do
// the same atomic work and keep an owner and a user count besides.
#ifdef __linux__
/// Waits until `*word` is free, then takes it (the contended path of `cachestore_lock`).
void cachestore_lock_contended(uint32_t *word);
/// Wakes one thread waiting for `word` (the contended path of `cachestore_unlock`).
void cachestore_unlock_contended(uint32_t *word);

/// Takes the lock at `word` (acquire), waiting while another thread holds it.
static inline void cachestore_lock(uint32_t *word) {
    uint32_t expected = 0;
    if (!__atomic_compare_exchange_n(word, &expected, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        cachestore_lock_contended(word);
    }
}

/// Releases the lock at `word` (release), waking a waiting thread if there is one.
static inline void cachestore_unlock(uint32_t *word) {
    if (__atomic_exchange_n(word, 0, __ATOMIC_RELEASE) == 2) {
        cachestore_unlock_contended(word);
    }
}
#endif

#endif
