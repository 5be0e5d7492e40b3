#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A small mutual-exclusion lock, held briefly around shared state.
///
/// `Synchronization.Mutex` needs macOS 15; this package supports macOS 14, so it wraps the
/// platform's own primitive: `os_unfair_lock` on Apple systems, a `pthread_mutex_t` elsewhere. A
/// recursive lock (``init(recursive:)``) is a `pthread_mutex_t` everywhere.
@usableFromInline
package final class Lock: @unchecked Sendable {
    #if canImport(Darwin)
        @usableFromInline let unfair: UnsafeMutablePointer<os_unfair_lock>?
    #endif
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>?

    /// Creates a lock; a `recursive` one may be taken again by the thread that holds it.
    @usableFromInline
    package init(recursive: Bool = false) {
        #if canImport(Darwin)
            if !recursive {
                unfair = .allocate(capacity: 1)
                unfair?.initialize(to: os_unfair_lock())
                mutex = nil
                return
            }
            unfair = nil
        #endif
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(recursive ? PTHREAD_MUTEX_RECURSIVE : PTHREAD_MUTEX_NORMAL))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        self.mutex = mutex
    }

    deinit {
        #if canImport(Darwin)
            unfair?.deinitialize(count: 1)
            unfair?.deallocate()
        #endif
        if let mutex {
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
            mutex.deallocate()
        }
    }

    @inlinable
    package func lock() {
        #if canImport(Darwin)
            if let unfair { return os_unfair_lock_lock(unfair) }
        #endif
        pthread_mutex_lock(mutex.unsafelyUnwrapped)
    }

    @inlinable
    package func unlock() {
        #if canImport(Darwin)
            if let unfair { return os_unfair_lock_unlock(unfair) }
        #endif
        pthread_mutex_unlock(mutex.unsafelyUnwrapped)
    }

    /// Runs `body` with the lock held. Unless the lock is recursive, `body` must not take it again.
    @inlinable
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
