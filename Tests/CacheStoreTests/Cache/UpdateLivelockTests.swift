import CacheStore
import Foundation
import Testing

/// `update` reruns its closure when another thread wrote the key meanwhile. Closures that write
/// keys other threads are updating (or their own key) must still all finish, and lose nothing.
@Suite(.timeLimit(.minutes(2))) struct UpdateLivelockTests {
    static let iterations = 2_000

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
