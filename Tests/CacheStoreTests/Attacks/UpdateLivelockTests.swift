import CacheStore
import Foundation
import Testing

/// `update` reruns its closure when another thread wrote the key meanwhile. Closures that write
/// keys other threads are updating (or their own key) must still all finish, and lose nothing.
@Suite struct UpdateLivelockTests {
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
}
