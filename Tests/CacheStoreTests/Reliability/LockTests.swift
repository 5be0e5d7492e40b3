import CacheStore
import Dispatch
import Foundation
import Testing

/// The package's `Lock` (a futex word on Linux, `os_unfair_lock` on Apple systems): mutual exclusion
/// under contention, and a waiter woken when the holder releases it.
@Suite struct LockTests {
    /// Eight threads on fewer cores take one lock 20,000 times each: holders are preempted while
    /// others wait, so the contended path (spinning, then sleeping on the futex) runs too.
    @Test func threadsTakingOneLockNeverHoldItTogether() {
        let counter = LockedCounter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<20_000 { counter.increment() }
        }
        #expect(counter.count == 160_000)
        #expect(counter.overlaps == 0)
    }

    /// A thread that finds the lock held waits, past its spinning, until the holder releases it.
    @Test func aWaiterTakesTheLockOnceItsHolderReleasesIt() {
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
        // Held long enough for the waiter to stop spinning and sleep.
        #expect(acquired.wait(timeout: .now() + .milliseconds(100)) == .timedOut)
        lock.unlock()
        #expect(acquired.wait(timeout: .now() + .seconds(5)) == .success)
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
