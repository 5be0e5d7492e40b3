import CacheStore
import Foundation
import Testing

/// `update` is a compare-and-swap loop: "when another thread writes the key meanwhile, the closure
/// runs again on the new value" (Threading article). That must hold also when the closure itself
/// writes the key after the other thread did.
@Suite struct UpdateConflictTests {
    @Test func anotherThreadsWriteIsNotLostWhenTheUpdaterAlsoWritesTheKey() async {
        let cache = CacheStore<Key>(initialValues: [.count: 0])
        let runs = AttackBox(0)
        await offThePool {
            cache.update(.count, as: Int.self) { count in
                runs.value += 1
                if runs.value == 1 {
                    // Another writer adds 100 while this closure runs ...
                    onAnotherThread { cache.update(.count, as: Int.self) { count in count = (count ?? 0) + 100 } }
                    // ... and the closure then writes the key itself (a nested write it may make).
                    cache.set(value: (count ?? 0) + 1, forKey: .count)
                }
                count = (count ?? 0) + 1
            }
        }
        #expect(runs.value >= 2, "the closure was not run again after another thread wrote .count")
        #expect(
            (cache.get(.count, as: Int.self) ?? 0) >= 100,
            "the other thread's +100 was overwritten: \(cache.get(.count, as: Int.self) ?? -1)")
    }
}
