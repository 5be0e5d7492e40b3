import CacheStore
import Foundation
import Testing

/// `update` reads, modifies and writes one key atomically. It is a compare-and-swap loop: "when another
/// thread writes the key meanwhile, the closure runs again on the new value" (Threading article), so another
/// thread's write is never lost. Its closure may read and write the cache (a rerun repeats its side effects:
/// the article says to keep the closure free of them), and updaters whose closures keep invalidating each
/// other take turns, so every one finishes.
@Suite(.timeLimit(.minutes(2))) struct UpdateTests {
    static let iterations = 2_000

    // MARK: - Another thread's write during the closure

    @Test func anotherThreadsWriteDuringTheClosureIsNeverLost() async {
        let cache = CacheStore<Key>(initialValues: [.count: 0])
        let runs = AttackBox(0)
        await offThePool {
            cache.update(.count, as: Int.self) { count in
                runs.value += 1
                if runs.value == 1 {
                    // Another writer adds 100 while this closure runs.
                    onAnotherThread { cache.update(.count, as: Int.self) { count in count = (count ?? 0) + 100 } }
                }
                count = (count ?? 0) + 1
            }
        }
        #expect(runs.value == 2, "the closure was not run again after another thread wrote .count")
        #expect(cache.get(.count, as: Int.self) == 101, "the other thread's +100 was lost")
    }

    /// The closure's own writes to other keys are not conflicts: it runs once.
    @Test func theClosuresOwnWritesAreNotConflicts() async {
        let cache = CacheStore<Key>(initialValues: [.count: 0])
        let runs = AttackBox(0)
        await offThePool {
            cache.update(.count, as: Int.self) { count in
                runs.value += 1
                cache.set(value: "written inside", forKey: .name)
                cache.set(value: 41, forKey: .count)
                count = 42
            }
        }
        #expect(runs.value == 1)
        #expect(cache.get(.count, as: Int.self) == 42)
        #expect(cache.get(.name, as: String.self) == "written inside")
    }

    // MARK: - A closure that reads the cache

    @Test func anUpdaterMayReadTheCache() async {
        let cache = CacheStore<Key>(initialValues: [.name: "Ada"])
        let seenName = Recorder<String?>()
        let finished = await expectFinishes("cache.update whose updater reads the cache") {
            cache.update(.count, as: Int.self) { count in
                seenName.append(cache.get(.name, as: String.self))
                count = 1
            }
        }
        guard finished else { return }
        #expect(seenName.values == ["Ada"])
        #expect(cache.get(.count, as: Int.self) == 1)
    }

    @Test func concurrentReadingUpdatersLoseNoIncrement() async {
        let threads = 4
        let incrementsPerThread = 2_000
        let cache = CacheStore<Key>(initialValues: [.count: 0, .name: "Ada"])
        let finished = await expectFinishes("4 threads updating one key while reading the cache", within: 20) {
            onThreads(threads) { _ in
                for _ in 0..<incrementsPerThread {
                    cache.update(.count, as: Int.self) { count in
                        _ = cache.get(.name, as: String.self)
                        _ = cache.contains(.flag)
                        count = (count ?? 0) + 1
                    }
                }
            }
        }
        guard finished else { return }
        #expect(cache.get(.count, as: Int.self) == threads * incrementsPerThread)
    }

    // MARK: - Closures that write keys other threads update

    @Test func twoUpdatersWritingEachOthersKeyBothFinish() async {
        let cache = CacheStore<Key>(initialValues: [.count: 0, .other: 0])
        let finished = await expectFinishes("two updates whose closures write each other's key", within: 30) {
            onThreads(2) { thread in
                let (mine, theirs): (Key, Key) = thread == 0 ? (.count, .other) : (.other, .count)
                for index in 0..<Self.iterations {
                    cache.update(mine, as: Int.self) { value in
                        cache.set(value: -index, forKey: .item(thread))
                        _ = cache.get(theirs, as: Int.self)
                        cache.set(value: true, forKey: .flag)
                        value = (value ?? 0) + 1
                    }
                }
            }
        }
        guard finished else { return }
        #expect(cache.get(.count, as: Int.self) == Self.iterations)
        #expect(cache.get(.other, as: Int.self) == Self.iterations)
    }

    @Test func updatersThatAlsoWriteTheirOwnKeyFinish() async {
        let threads = 4
        let cache = CacheStore<Key>(initialValues: [.count: 0])
        let finished = await expectFinishes("4 threads updating one key, each closure also writing it", within: 30) {
            onThreads(threads) { _ in
                for _ in 0..<Self.iterations {
                    cache.update(.count, as: Int.self) { value in
                        let next = (value ?? 0) + 1
                        cache.set(value: next, forKey: .count)  // a nested write of the key itself
                        value = next
                    }
                }
            }
        }
        guard finished else { return }
        // A rerun repeats the closure's own write (a side effect), so the count is not exact: what
        // matters here is that closures writing their own key neither livelock nor deadlock.
        #expect((cache.get(.count, as: Int.self) ?? 0) > 0)
    }

    /// Two updaters of one key whose closures each write the key while the other's closure runs: with
    /// optimistic reruns alone each invalidates the other on every try, forever; updaters that take
    /// turns after two conflicts both finish, each closure running a few times only.
    @Test func updatersThatInvalidateEachOtherOnEveryTryTakeTurns() async {
        let cache = CacheStore<Key>(initialValues: [.count: 0])
        let runs = ClosureCounter()
        let inClosure = ClosureCounter()
        let stop = LockedFlag()
        let finished = await finishes(within: 20) {
            onThreads(2) { thread in
                cache.update(.count, as: Int.self) { value in
                    runs.increment()
                    inClosure.increment()
                    // Waits (up to 50 ms) until the other updater's closure runs too, then writes the
                    // key: a write of another thread during that closure.
                    let deadline = Date() + 0.05
                    while inClosure.value < 2, Date() < deadline, !stop.isSet { usleep(100) }
                    if !stop.isSet { cache.set(value: -thread, forKey: .count) }
                    usleep(2_000)  // the other writes during this one
                    inClosure.decrement()
                    value = (value ?? 0) + 1
                }
            }
        }
        if !finished { stop.set() }  // lets the livelocked closures end
        #expect(finished, "the updates livelocked: \(runs.value) closure runs in 20 s")
        #expect(runs.value <= 12, "\(runs.value) closure runs for two updates")
    }
}

/// A counter shared between threads: how many closures run, or ran.
final class ClosureCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
    func decrement() { lock.withLock { count -= 1 } }
}

/// A flag set once, read from any thread.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false

    var isSet: Bool { lock.withLock { flag } }
    func set() { lock.withLock { flag = true } }
}
