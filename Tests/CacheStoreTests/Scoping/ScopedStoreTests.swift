import CacheStore
import Testing

enum FeatureAction: Equatable, Sendable {
    case bump
    case rename(String)
    case setLocal(String)
    case bumpLater
}

let featureHandler = StoreActionHandler<FeatureKey, FeatureAction, Int> { state, action, step in
    switch action {
    case .bump:
        state.update(.counter, as: Int.self) { $0 = ($0 ?? 0) + step }
    case .rename(let label):
        state.set(value: label, forKey: .label)
    case .setLocal(let value):
        state.set(value: value, forKey: .localOnly)
    case .bumpLater:
        return ActionEffect { .bump }
    }
    return .none
}

func makeParent() -> Store<Key, CounterAction, Int> {
    Store(
        initialValues: [.count: 0, .name: "root"],
        actionHandler: StoreActionHandler { state, action, _ in
            counterHandler.handle(store: &state, action: action, dependency: ())
        },
        dependency: 10)
}

@Suite(.timeLimit(.minutes(2))) struct ScopedStoreTests {
    @Test func aScopedStoreWritesTheParentsStateLive() {
        let parent = makeParent()
        let feature = parent.scope(
            keyTransformation: featureKeys, actionHandler: featureHandler, dependencyTransformation: { $0 })
        feature.handle(action: .bump)
        #expect(parent.get(.count, as: Int.self) == 10)
        parent.handle(action: .increment)
        #expect(feature.get(.counter, as: Int.self) == 11)
    }

    @Test func scopeLocalKeysStayInTheScopedStore() {
        let parent = makeParent()
        let feature = parent.scope(
            keyTransformation: featureKeys, actionHandler: featureHandler,
            dependencyTransformation: { $0 }, defaultCache: [.localOnly: "seed"])
        #expect(feature.get(.localOnly, as: String.self) == "seed")
        feature.handle(action: .setLocal("mine"))
        #expect(feature.get(.localOnly, as: String.self) == "mine")
        #expect(parent.allValues.count == 2)
    }

    @Test func actionTransformationForwardsMappedActionsToTheParent() {
        let parent = makeParent()
        let feature = parent.scope(
            keyTransformation: featureKeys,
            actionHandler: featureHandler,
            dependencyTransformation: { _ in 1 },
            actionTransformation: { action in action == .rename("x") ? .add(100) : nil })
        feature.handle(action: .rename("x"))
        #expect(parent.get(.name, as: String.self) == "x")
        #expect(parent.get(.count, as: Int.self) == 100)
        feature.handle(action: .bump)
        #expect(parent.get(.count, as: Int.self) == 101)  // .bump is not forwarded
    }

    @Test func scopedStoreEffectsDeliverToTheScopedStore() async {
        let parent = makeParent()
        let feature = parent.scope(
            keyTransformation: featureKeys, actionHandler: featureHandler, dependencyTransformation: { _ in 2 })
        feature.handle(action: .bumpLater)
        #expect(await eventually { parent.get(.count, as: Int.self) == 2 })
    }

    @Test func keySubsetScopedStore() {
        let parent = makeParent()
        let counterOnly = parent.scope(
            keys: [.count], actionHandler: counterHandler, dependencyTransformation: { _ in () })
        counterOnly.handle(action: .increment)
        #expect(parent.get(.count, as: Int.self) == 1)
        #expect(counterOnly.get(.name, as: String.self) == nil)
    }

    @Test func actionlessScopeSeesTheParentLive() {
        let parent = makeParent()
        let readOnly = parent.actionlessScope(keyTransformation: featureKeys, dependencyTransformation: { $0 })
        parent.handle(action: .rename("live"))
        #expect(readOnly.get(.label, as: String.self) == "live")
        readOnly.handle(action: ())
        #expect(parent.get(.name, as: String.self) == "live")
    }

    @Test func scopedAndParentActionsFromManyThreadsLoseNothing() async {
        let parent = makeParent()
        let feature = parent.scope(
            keyTransformation: featureKeys, actionHandler: featureHandler, dependencyTransformation: { _ in 1 })
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for _ in 0..<2_000 { parent.handle(action: .increment) } }
            group.addTask { for _ in 0..<2_000 { feature.handle(action: .bump) } }
        }
        #expect(parent.get(.count, as: Int.self) == 4_000)
    }
}
