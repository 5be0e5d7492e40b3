import CacheStore
import Observation
import Testing

/// Every kind of store is released after use. Ownership: a scope (or scoped store) keeps its parent
/// alive; a parent keeps none of its scopes; an effect, an observer or a changes iterator keeps no
/// store alive.
@Suite(.timeLimit(.minutes(2))) struct LeakTests {
    @Test func aCacheStoreAndItsScopesAreReleased() {
        weak var weakRoot: CacheStore<Key>?
        weak var weakScope: CacheStore<FeatureKey>?
        weak var weakNested: CacheStore<FeatureKey>?
        do {
            let root = CacheStore<Key>(initialValues: [.count: 1])
            let scope = root.scope(keyTransformation: featureKeys)
            let nested = scope.scope(keys: [.counter])
            (weakRoot, weakScope, weakNested) = (root, scope, nested)
            nested.set(value: 2, forKey: .counter)
        }
        #expect(weakRoot == nil)
        #expect(weakScope == nil)
        #expect(weakNested == nil)
    }

    @Test func aScopeKeepsItsParentsStorageNotItsParentObject() {
        weak var weakRoot: CacheStore<Key>?
        var scope: CacheStore<Key>? = nil
        do {
            let root = CacheStore<Key>(initialValues: [.count: 1])
            weakRoot = root
            scope = root.scope(keys: [.count])
        }
        // The root object is a handle; the scope holds the storage it reads and writes.
        #expect(weakRoot == nil)
        #expect(scope?.get(.count, as: Int.self) == 1)
        scope?.set(value: 2, forKey: .count)
        #expect(scope?.get(.count, as: Int.self) == 2)
        weak let weakScope = scope
        scope = nil
        #expect(weakScope == nil)
    }

    @Test func aScopedStoreKeepsItsParentStoreAliveButNotTheOtherWayRound() {
        weak var weakParent: Store<Key, CounterAction, Void>?
        var scoped: Store<FeatureKey, FeatureAction, Int>? = nil
        do {
            let parent = Store(initialValues: [.count: 0], actionHandler: counterHandler)
            weakParent = parent
            scoped = parent.scope(
                keyTransformation: featureKeys, actionHandler: featureHandler,
                dependencyTransformation: { _ in 1 }, actionTransformation: { _ in .increment })
        }
        #expect(weakParent != nil)  // it forwards actions to the parent
        scoped?.handle(action: .bump)
        #expect(weakParent?.get(.count, as: Int.self) == 2)  // .bump, then the forwarded .increment
        weak let weakScoped = scoped
        scoped = nil
        #expect(weakScoped == nil)
        #expect(weakParent == nil)
    }

    @Test func aStoreWithScopedStoresObserversAndAStreamIsReleased() async {
        weak var weakStore: Store<Key, CounterAction, Void>?
        weak var weakScoped: Store<FeatureKey, FeatureAction, Int>?
        var iterator: CacheStoreChanges<Key>.Iterator?
        do {
            let store = Store(initialValues: [.count: 0], actionHandler: counterHandler)
            let scoped = store.scope(
                keyTransformation: featureKeys, actionHandler: featureHandler, dependencyTransformation: { _ in 1 })
            withObservationTracking({ _ = store.get(.count, as: Int.self) }, onChange: {})
            withObservationTracking({ _ = scoped.get(.counter, as: Int.self) }, onChange: {})
            iterator = store.changes.makeAsyncIterator()
            scoped.handle(action: .bump)
            (weakStore, weakScoped) = (store, scoped)
        }
        #expect(weakStore == nil)
        #expect(weakScoped == nil)
        #expect(await iterator?.next() == [.count])  // the change made before the release
        #expect(await iterator?.next() == nil)  // then the stream ends with its store
    }

    @Test func aScopedStoreWithARunningEffectIsReleasedAndItsParentToo() async {
        weak var weakParent: Store<Key, CounterAction, Void>?
        weak var weakScoped: Store<FeatureKey, FeatureAction, Int>?
        do {
            let parent = Store(initialValues: [.count: 0], actionHandler: counterHandler)
            let scoped = parent.scope(
                keyTransformation: featureKeys,
                actionHandler: StoreActionHandler<FeatureKey, FeatureAction, Int> { _, _, _ in
                    ActionEffect(id: "forever") {
                        try? await Task.sleep(for: .seconds(60))
                        return nil
                    }
                },
                dependencyTransformation: { _ in 1 })
            scoped.handle(action: .bump)
            #expect(scoped.runningEffectIDs == ["forever"])
            (weakParent, weakScoped) = (parent, scoped)
        }
        #expect(await eventually { weakScoped == nil && weakParent == nil })
    }

    @Test func theStateAHandlerCapturedDoesNotKeepTheStoreAlive() {
        let captured = Recorder<CacheStore<Key>>()
        weak var weakStore: Store<Key, CounterAction, Void>?
        do {
            let store = Store(
                initialValues: [:],
                actionHandler: StoreActionHandler<Key, CounterAction, Void> { state, _, _ in
                    captured.append(state)
                    return .none
                })
            store.handle(action: .increment)
            weakStore = store
        }
        #expect(weakStore == nil)
        captured.values[0].set(value: 1, forKey: .count)  // still usable: it writes to its own storage
        #expect(captured.values[0].get(.count, as: Int.self) == 1)
    }
}
