import CacheStore
import Foundation
import Observation
import Testing

/// `withObservationTracking` registers its observer only after its `apply` closure returns. A write
/// by another thread between the read and that registration must not silence the writes that come
/// after the registration: the observer is registered, so the next write must fire it.
@Suite(.timeLimit(.minutes(2))) struct ObservationRegistrationRaceTests {
    @Observable final class Model: @unchecked Sendable {
        var count = 0
    }

    /// The control: an `@Observable` class, in the same interleaving, fires on the second write.
    @Test func anObservableClassFiresOnTheWriteAfterRegistration() async {
        let model = Model()
        let fired = AttackBox(0)
        await offThePool {
            withObservationTracking {
                _ = model.count
                onAnotherThread { model.count = 1 }
            } onChange: {
                fired.value += 1
            }
            model.count = 2
        }
        #expect(fired.value == 1)
    }

    @Test func aWriteBeforeRegistrationDoesNotSilenceTheNextWriteOfTheKey() async {
        let cache = CacheStore<Key>(initialValues: [.count: 0])
        let fired = AttackBox(0)
        await offThePool {
            withObservationTracking {
                _ = cache.get(.count, as: Int.self)
                onAnotherThread { cache.set(value: 1, forKey: .count) }  // lands before registration
            } onChange: {
                fired.value += 1
            }
            cache.set(value: 2, forKey: .count)  // after registration: must fire
        }
        #expect(fired.value == 1, "the observer registered before the second write was never told of it")
    }

    @Test func aWriteBeforeRegistrationDoesNotSilenceTheNextInsertForAllValues() async {
        let cache = CacheStore<Key>(initialValues: [.count: 0])
        let fired = AttackBox(0)
        await offThePool {
            withObservationTracking {
                _ = cache.allValues
                onAnotherThread { cache.set(value: "Ada", forKey: .name) }  // lands before registration
            } onChange: {
                fired.value += 1
            }
            cache.set(value: true, forKey: .flag)  // a new key after registration: must fire
        }
        #expect(fired.value == 1, "an allValues observer registered before an insert was never told of it")
    }
}
