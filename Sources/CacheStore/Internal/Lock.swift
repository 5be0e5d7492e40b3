#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A small mutual-exclusion lock, held briefly around shared state, never while user code runs.
///
/// `Synchronization.Mutex` needs macOS 15; this package supports macOS 14, so it wraps the
/// platform's own primitive: `os_unfair_lock` on Apple systems, a `pthread_mutex_t` elsewhere.
@usableFromInline
package final class Lock: @unchecked Sendable {
    #if canImport(Darwin)
        @usableFromInline let primitive: UnsafeMutablePointer<os_unfair_lock>
    #else
        @usableFromInline let primitive: UnsafeMutablePointer<pthread_mutex_t>
    #endif

    /// Creates an unlocked lock.
    @usableFromInline
    package init() {
        primitive = .allocate(capacity: 1)
        #if canImport(Darwin)
            primitive.initialize(to: os_unfair_lock())
        #else
            primitive.initialize(to: pthread_mutex_t())
            precondition(pthread_mutex_init(primitive, nil) == 0, "pthread_mutex_init failed")
        #endif
    }

    deinit {
        #if !canImport(Darwin)
            pthread_mutex_destroy(primitive)
        #endif
        primitive.deinitialize(count: 1)
        primitive.deallocate()
    }

    @inlinable
    package func lock() {
        #if canImport(Darwin)
            os_unfair_lock_lock(primitive)
        #else
            pthread_mutex_lock(primitive)
        #endif
    }

    @inlinable
    package func unlock() {
        #if canImport(Darwin)
            os_unfair_lock_unlock(primitive)
        #else
            pthread_mutex_unlock(primitive)
        #endif
    }

    /// Runs `body` with the lock held; `body` must not take it again.
    @inlinable
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
