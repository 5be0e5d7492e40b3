import CacheStore
import Dispatch
import Foundation
import Testing

/// The package's `Lock` (`pthread_mutex_t` on Linux, `os_unfair_lock` on Apple systems): mutual exclusion
/// under contention, and a waiter woken when the holder releases it.
@Suite(.timeLimit(.minutes(2))) struct LockTests {
    /// Eight threads on fewer cores take one lock 2,000 times each: holders are preempted while
    /// others wait, so the contended path (sleeping in the mutex) runs too.
    ///
    /// On threads of their own, off the concurrency pool: run on it (`concurrentPerform` from the
    /// test's thread, 20,000 times each), the test took 46 s under ThreadSanitizer, and every
    /// `async` test of the run waited for the pool that long (two timed out at 30 s).
    @Test func threadsTakingOneLockNeverHoldItTogether() async {
        let counter = LockedCounter()
        await offThePool {
            onThreads(8) { _ in
                for _ in 0..<2_000 { counter.increment() }
            }
        }
        #expect(counter.count == 16_000)
        #expect(counter.overlaps == 0)
    }

    /// A thread that finds the lock held waits until the holder releases it.
    /// (Off the concurrency pool, as its waits block a thread.)
    @Test func aWaiterTakesTheLockOnceItsHolderReleasesIt() async {
        let (waitedWhileHeld, tookItOnRelease) = await offThePool {
            let lock = Lock()
            let acquired = DispatchSemaphore(value: 0)
            let started = DispatchSemaphore(value: 0)
            lock.lock()
            Thread.detachNewThread {
                started.signal()
                lock.lock()
                lock.unlock()
                acquired.signal()
            }
            started.wait()
            // Held long enough for the waiter to sleep.
            let waitedWhileHeld = acquired.wait(timeout: .now() + .milliseconds(100)) == .timedOut
            lock.unlock()
            return (waitedWhileHeld, acquired.wait(timeout: .now() + .seconds(5)) == .success)
        }
        #expect(waitedWhileHeld)
        #expect(tookItOnRelease)
    }

    // MARK: - The lock under a cache's contended updates

    /// The keys of the cache whose updates contend for its lock.
    enum Key: Hashable, Sendable { case a, b, c }

    /// Four threads increment one key 2,000 times each through `update`: with the lock contended
    /// (waiters marked, woken), no increment is lost and no thread sleeps forever.
    ///
    /// On threads of their own, off the concurrency pool: run on `DispatchQueue.global()`, 20,000
    /// times each, the blocked workers were the pool's own threads on Linux, and under
    /// ThreadSanitizer every `async` test of the run waited about 60 s (CI failed).
    @Test func contendedUpdatesLoseNothing() async {
        let cache = CacheStore<Key>(initialValues: [.a: 0])
        let finished = await finishes(within: 120) {
            onThreads(4) { _ in
                for _ in 0..<2_000 { cache.update(.a, as: Int.self) { $0 = ($0 ?? 0) + 1 } }
            }
        }
        #expect(finished)
        #expect(cache.get(.a, as: Int.self) == 8_000)
    }
}

/// A counter whose increment reads, then writes, under a `Lock`, and notes any overlap of holders.
private final class LockedCounter: @unchecked Sendable {
    private let lock = Lock()
    private var holders = 0
    private(set) var count = 0
    private(set) var overlaps = 0

    func increment() {
        lock.withLock {
            holders += 1
            if holders > 1 { overlaps += 1 }
            let before = count
            count = before + 1
            holders -= 1
        }
    }
}
