import CacheStore
import Foundation
import Testing

/// `update` is a compare-and-swap loop: "when another thread writes the key meanwhile, the closure
/// runs again on the new value" (Threading article), so another thread's write is never lost. (A
/// closure that writes the cache itself has side effects, which a rerun repeats: the article says to
/// keep the closure free of them.)
@Suite(.timeLimit(.minutes(2))) struct UpdateConflictTests {
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
}
