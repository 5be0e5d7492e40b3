import CacheStore
import Foundation
import Testing

/// An `update` closure may read the cache it updates, and updates stay atomic with respect to each
/// other while it does (issue 11: "an update closure that reads the same cache deadlocks").
@Suite(.timeLimit(.minutes(2))) struct UpdateReentrancyTests {
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
}
