import CacheStore
import Observation
import Testing

enum ListingAction: Sendable {
    case addName
}

let listingHandler = StoreActionHandler<Key, ListingAction, Void> { state, action, _ in
    switch action {
    case .addName: state.set(value: "Ada", forKey: .name)
    }
    return .none
}

/// Observing `allValues` or `valuesInCache(ofType:)` tracks the whole cache: keys added later
/// included, as a view that lists the cache needs.
@Suite(.timeLimit(.minutes(2))) struct WholeCacheObservationTests {
    @Test func allValuesFiresWhenANewKeyIsSet() {
        let cache = CacheStore<Key>(initialValues: [.count: 0])
        let fired = fireCount { _ = cache.allValues }
        cache.set(value: "Ada", forKey: .name)
        #expect(fired.values.count == 1)
    }

    @Test func allValuesOfAnEmptyCacheFiresOnTheFirstInsert() {
        let cache = CacheStore<Key>(initialValues: [:])
        let fired = fireCount { _ = cache.allValues }
        cache.set(value: 1, forKey: .count)
        #expect(fired.values.count == 1)
    }

    @Test func valuesInCacheFiresWhenAKeyOfItsTypeIsAdded() {
        let cache = CacheStore<Key>(initialValues: [.count: 0])
        let fired = fireCount { _ = cache.valuesInCache(ofType: Int.self) }
        cache.set(value: 5, forKey: .item(1))
        #expect(fired.values.count == 1)
    }

    /// Whole-cache tracking fires on removals too.
    @Test func allValuesFiresWhenAKeyIsRemoved() {
        let cache = CacheStore<Key>(initialValues: [.count: 0, .name: "Ada"])
        let fired = fireCount { _ = cache.allValues }
        cache.remove(.name)
        #expect(fired.values.count == 1)
    }

    @Test func storeAllValuesFiresWhenAnActionAddsAKey() {
        let store = Store(initialValues: [.count: 0], actionHandler: listingHandler)
        let fired = fireCount { _ = store.allValues }
        store.handle(action: .addName)
        #expect(fired.values.count == 1)
        #expect(store.get(.name, as: String.self) == "Ada")
    }

    @Test func aScopesAllValuesFiresWhenAKeyItShowsIsAdded() {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        let scope = parent.scope(keys: [.count, .name])
        let fired = fireCount { _ = scope.allValues }
        parent.set(value: "Ada", forKey: .name)
        #expect(fired.values.count == 1)
        #expect(scope.allValues.count == 2)
    }
}
