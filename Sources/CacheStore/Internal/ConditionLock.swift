#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A mutex with a condition variable, for state that threads wait on (a `pthread_mutex_t` and a
/// `pthread_cond_t`). In debug builds the mutex is an error-checking one and every call's result is
/// checked: a failure there is a broken invariant.
///
/// ```swift
/// lock.lock()
/// while !isDone { lock.wait() }
/// lock.unlock()
/// ```
///
/// Both primitives live in one allocation (see ``ConditionLockStorage``).
@usableFromInline
struct ConditionLock: @unchecked Sendable {
    @usableFromInline let storage: ConditionLockStorage

    @usableFromInline
    init() {
        storage = ConditionLockStorage.make()
    }

    @inlinable
    func lock() {
        storage.withUnsafeMutablePointerToElements { mutex in checked(pthread_mutex_lock(mutex), "pthread_mutex_lock") }
    }

    @inlinable
    func unlock() {
        storage.withUnsafeMutablePointerToElements { mutex in
            checked(pthread_mutex_unlock(mutex), "pthread_mutex_unlock")
        }
    }

    /// Runs `body` with the lock held.
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Releases the lock until ``broadcast()`` is called, then takes it again. Lock held.
    func wait() {
        storage.withUnsafeMutablePointers { condition, mutex in
            precondition(pthread_cond_wait(condition, mutex) == 0, "pthread_cond_wait failed")
        }
    }

    /// Releases the lock until ``broadcast()`` is called or `timeout` passes, then takes it again;
    /// returns `false` when the time passed. Lock held.
    func wait(timeout: Duration) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        var deadline = timespec()
        deadline.tv_sec = now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        let result = storage.withUnsafeMutablePointers { condition, mutex in
            pthread_cond_timedwait(condition, mutex, &deadline)
        }
        precondition(result == 0 || result == ETIMEDOUT, "pthread_cond_timedwait failed: \(result)")
        return result == 0
    }

    /// Wakes every thread in ``wait()``.
    @inlinable
    func broadcast() {
        storage.withUnsafeMutablePointerToHeader { condition in
            checked(pthread_cond_broadcast(condition), "pthread_cond_broadcast")
        }
    }
}

/// A ``ConditionLock``'s condition variable (the header) and mutex (the one element), in one object.
@usableFromInline
final class ConditionLockStorage: ManagedBuffer<pthread_cond_t, pthread_mutex_t> {
    @usableFromInline
    static func make() -> ConditionLockStorage {
        let storage = unsafeDowncast(
            create(minimumCapacity: 1) { _ in pthread_cond_t() }, to: ConditionLockStorage.self)
        storage.withUnsafeMutablePointers { condition, mutex in
            precondition(pthread_cond_init(condition, nil) == 0, "pthread_cond_init failed")
            initializeMutex(mutex)
        }
        return storage
    }

    deinit {
        withUnsafeMutablePointers { condition, mutex in
            checked(pthread_cond_destroy(condition), "pthread_cond_destroy")
            checked(pthread_mutex_destroy(mutex), "pthread_mutex_destroy")
            mutex.deinitialize(count: 1)
        }
    }
}
