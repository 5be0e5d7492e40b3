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
///
/// ```swift
/// let lock = Lock()
/// let count = lock.withLock { counter += 1; return counter }
/// ```
///
/// The primitive lives in the storage object's own allocation (see ``LockStorage``): one allocation
/// per lock, not two, which is one of the allocations a row's scoped store no longer makes.
@usableFromInline
package struct Lock: @unchecked Sendable {
    @usableFromInline let storage: LockStorage

    /// Creates an unlocked lock.
    @usableFromInline
    package init() {
        storage = LockStorage.make()
    }

    @inlinable
    package func lock() {
        storage.withUnsafeMutablePointerToElements { primitive in
            #if canImport(Darwin)
                os_unfair_lock_lock(primitive)
            #else
                _ = pthread_mutex_lock(primitive)
            #endif
        }
    }

    @inlinable
    package func unlock() {
        storage.withUnsafeMutablePointerToElements { primitive in
            #if canImport(Darwin)
                os_unfair_lock_unlock(primitive)
            #else
                _ = pthread_mutex_unlock(primitive)
            #endif
        }
    }

    /// Runs `body` with the lock held; `body` must not take it again.
    @inlinable
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// The platform primitive of a ``Lock``, allocated in the object's tail.
#if canImport(Darwin)
    @usableFromInline
    final class LockStorage: ManagedBuffer<Void, os_unfair_lock> {
        @usableFromInline
        static func make() -> LockStorage {
            let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in () }, to: LockStorage.self)
            storage.withUnsafeMutablePointerToElements { $0.initialize(to: os_unfair_lock()) }
            return storage
        }
    }
#else
    @usableFromInline
    final class LockStorage: ManagedBuffer<Void, pthread_mutex_t> {
        @usableFromInline
        static func make() -> LockStorage {
            let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in () }, to: LockStorage.self)
            storage.withUnsafeMutablePointerToElements { primitive in
                primitive.initialize(to: pthread_mutex_t())
                precondition(pthread_mutex_init(primitive, nil) == 0, "pthread_mutex_init failed")
            }
            return storage
        }

        deinit {
            withUnsafeMutablePointerToElements { primitive in
                pthread_mutex_destroy(primitive)
                primitive.deinitialize(count: 1)
            }
        }
    }
#endif
