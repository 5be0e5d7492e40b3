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
/// platform's own primitive: `os_unfair_lock` on Apple systems, a `pthread_mutex_t` elsewhere. In
/// debug builds the mutex checks its use (an error-checking mutex, every result checked): locking it
/// twice on one thread, or unlocking it from another, stops the program with a message. Every lock of
/// the package is listed in ``LockCatalogue``.
///
/// ```swift
/// let lock = Lock()
/// let count = lock.withLock { counter += 1; return counter }
/// ```
///
/// The primitive lives in the storage object's own allocation (see ``LockStorage``): one allocation
/// per lock, not two.
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
                #if DEBUG
                    os_unfair_lock_assert_not_owner(primitive)
                #endif
                os_unfair_lock_lock(primitive)
            #else
                checked(pthread_mutex_lock(primitive), "pthread_mutex_lock")
            #endif
        }
    }

    @inlinable
    package func unlock() {
        storage.withUnsafeMutablePointerToElements { primitive in
            #if canImport(Darwin)
                #if DEBUG
                    os_unfair_lock_assert_owner(primitive)
                #endif
                os_unfair_lock_unlock(primitive)
            #else
                checked(pthread_mutex_unlock(primitive), "pthread_mutex_unlock")
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

/// Stops the program when a pthread call failed, in debug builds; a failure there is a broken
/// invariant (a lock relocked, or unlocked by a thread that does not hold it).
@inlinable @inline(__always)
func checked(_ result: Int32, _ call: StaticString) {
    #if DEBUG
        precondition(result == 0, "\(call) failed with error \(result)")
    #endif
}

/// Initializes `mutex`: an error-checking one in debug builds.
@usableFromInline
func initializeMutex(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
    mutex.initialize(to: pthread_mutex_t())
    var attributes = pthread_mutexattr_t()
    precondition(pthread_mutexattr_init(&attributes) == 0, "pthread_mutexattr_init failed")
    #if DEBUG
        precondition(
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK)) == 0,
            "pthread_mutexattr_settype failed")
    #endif
    precondition(pthread_mutex_init(mutex, &attributes) == 0, "pthread_mutex_init failed")
    pthread_mutexattr_destroy(&attributes)
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
            storage.withUnsafeMutablePointerToElements(initializeMutex)
            return storage
        }

        deinit {
            withUnsafeMutablePointerToElements { primitive in
                checked(pthread_mutex_destroy(primitive), "pthread_mutex_destroy")
                primitive.deinitialize(count: 1)
            }
        }
    }
#endif
