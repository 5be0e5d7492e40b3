import CacheStore
import Observation
import Testing

/// Counts how often `onChange` fires for the reads `read` makes.
func fireCount(for read: @escaping @Sendable () -> Void) -> Recorder<Void> {
    let fired = Recorder<Void>()
    withObservationTracking(read, onChange: { fired.append(()) })
    return fired
}

/// `Store` and `CacheStore` are `Observable`: reading a key inside `withObservationTracking` tracks that key
/// only, an absent key included; a write, a removal or a store action tells the observers of the keys it
/// changed, and an observer may send an action to the store it observes.
@Suite(.timeLimit(.minutes(2))) struct ObservationTests {
    @Test func readingAKeyTracksThatKeyOnly() {
        let cache = CacheStore<Key>(initialValues: [.count: 0, .name: "x"])
        let fired = fireCount { _ = cache.get(.count, as: Int.self) }
        cache.set(value: "y", forKey: .name)
        #expect(fired.values.isEmpty)
        cache.set(value: 1, forKey: .count)
        #expect(fired.values.count == 1)
    }

    @Test func readingAnAbsentKeyFiresWhenItIsAdded() {
        let cache = CacheStore<Key>(initialValues: [:])
        let fired = fireCount { _ = cache.contains(.flag) }
        cache.set(value: true, forKey: .flag)
        #expect(fired.values.count == 1)
    }

    @Test func removalFires() {
        let cache = CacheStore<Key>(initialValues: [.count: 1])
        let fired = fireCount { _ = cache.get(.count, as: Int.self) }
        cache.remove(.count)
        #expect(fired.values.count == 1)
    }

    @Test func storeActionsFireObserversOfTheKeysTheyWrite() {
        let store = Store(initialValues: [.count: 0], actionHandler: counterHandler)
        let countFired = fireCount { _ = store.get(.count, as: Int.self) }
        let nameFired = fireCount { _ = store.get(.name, as: String.self) }
        store.handle(action: .increment)
        #expect(countFired.values.count == 1)
        #expect(nameFired.values.isEmpty)
    }

    @Test func scopedReadsTrackTheParentKeysTheyMapTo() {
        let parent = CacheStore<Key>(initialValues: [.count: 0, .flag: true])
        let scope = parent.scope(keyTransformation: featureKeys)
        let fired = fireCount { _ = scope.get(.counter, as: Int.self) }
        parent.set(value: false, forKey: .flag)
        #expect(fired.values.isEmpty)
        parent.set(value: 1, forKey: .count)
        #expect(fired.values.count == 1)
    }

    @Test func anObserverMaySendAnActionToTheStoreItObserves() {
        let store = Store(initialValues: [.count: 0], actionHandler: counterHandler)
        withObservationTracking {
            _ = store.get(.count, as: Int.self)
        } onChange: {
            store.handle(action: .rename("observed"))
        }
        store.handle(action: .increment)
        #expect(store.get(.name, as: String.self) == "observed")
    }

    /// Whether `read` is told of `write`: `withObservationTracking`'s `onChange` ran.
    static func isTold(_ read: () -> Void, of write: () -> Void) -> Bool {
        let told = AttackBox(false)
        withObservationTracking(read, onChange: { told.value = true })
        write()
        return told.value
    }

    /// A write of a new key, of an existing key, of a key whose empty slot an observer of the absent
    /// key left, and of a key whose slot a scope's observer keeps after its removal: each tells
    /// exactly the observers of that key and of every key.
    @Test func writesTellTheSameObserversAsBefore() {
        let cache = CacheStore<Key>(initialValues: [.count: 1])
        let scope = cache.scope(keys: [.name, .count])
        #expect(Self.isTold({ _ = cache.allValues }, of: { cache.set(value: "new", forKey: .name) }))
        #expect(!Self.isTold({ _ = cache.get(.count, as: Int.self) }, of: { cache.set(value: 1, forKey: .item(1)) }))
        #expect(Self.isTold({ _ = cache.get(.count, as: Int.self) }, of: { cache.set(value: 2, forKey: .count) }))
        #expect(Self.isTold({ _ = cache.get(.flag, as: Bool.self) }, of: { cache.set(value: true, forKey: .flag) }))
        #expect(Self.isTold({ _ = cache.get(.flag, as: Bool.self) }, of: { cache.set(value: false, forKey: .flag) }))
        #expect(Self.isTold({ _ = scope.get(.name, as: String.self) }, of: { cache.remove(.name) }))
        #expect(
            Self.isTold({ _ = scope.get(.name, as: String.self) }, of: { cache.set(value: "again", forKey: .name) }))
        #expect(scope.get(.name, as: String.self) == "again")
        #expect(Self.isTold({ _ = scope.get(.count, as: Int.self) }, of: { cache.set(value: 3, forKey: .count) }))
        #expect(!Self.isTold({ _ = scope.get(.count, as: Int.self) }, of: { cache.set(value: 3, forKey: .item(2)) }))
        #expect(cache.get(.count, as: Int.self) == 3 && cache.get(.flag, as: Bool.self) == false)
    }
}
