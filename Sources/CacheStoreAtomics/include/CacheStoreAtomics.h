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

/// How many turns the calling thread holds now: of stores (ActionQueue.swift) and of keys' updates
/// (RootCore.swift). A thread that holds one never blocks waiting for another, so no two threads can
/// wait for each other.
extern _Thread_local uintptr_t cachestore_turns_held;

/// Counts a turn the calling thread took.
static inline void cachestore_turn_taken(void) {
    cachestore_turns_held += 1;
}

/// Counts a turn the calling thread gave up.
static inline void cachestore_turn_given_up(void) {
    cachestore_turns_held -= 1;
}

/// Whether the calling thread holds a turn.
static inline bool cachestore_holds_turn(void) {
    return cachestore_turns_held != 0;
}

#endif
