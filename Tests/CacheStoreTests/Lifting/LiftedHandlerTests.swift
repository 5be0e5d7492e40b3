import CacheStore
import Foundation
import Testing

/// A feature with keys of its own: `.value` is the app's `.count`, `.local` maps to no app key.
enum LiftedKey: Hashable, Sendable {
    case value, local, name
}

enum LiftedAction: Equatable, Sendable {
    case set(Int)
    case readAll
    case replace([LiftedKey: Int])
    case setLater(Int, id: String, after: Duration = .zero)
}

enum LiftedAppAction: Equatable, Sendable {
    case feature(LiftedAction)
    case other
}

/// `.value` ↔ `.count`, `.name` ↔ `.name`; `.flag` has a feature key (`.value`) but `to` names another
/// app key for it, so it is not visible.
let liftedKeys: BiDirectionalTransformation<Key?, LiftedKey?> = (
    from: { key in
        switch key {
        case .count, .flag: .value
        case .name: .name
        default: nil
        }
    },
    to: { key in
        switch key {
        case .value: .count
        case .name: .name
        default: nil
        }
    }
)

func liftedFeature(
    seen: Recorder<[LiftedKey: Int]> = Recorder(), kept: Recorder<CacheStore<LiftedKey>>? = nil
) -> StoreActionHandler<Key, LiftedAppAction, Int> {
    let feature = StoreActionHandler<LiftedKey, LiftedAction, Int> { state, action, step in
        kept?.append(state)
        switch action {
        case .set(let value):
            state.set(value: value * step, forKey: .value)
            state.set(value: value, forKey: .local)
            seen.append(state.valuesInCache(ofType: Int.self))
        case .readAll:
            seen.append(state.valuesInCache(ofType: Int.self))
        case .replace(let values):
            state = CacheStore(initialValues: values)
        case .setLater(let value, let id, let delay):
            return ActionEffect(id: id) {
                try? await Task.sleep(for: delay)
                return Task.isCancelled ? nil : .set(value)
            }
        }
        return .none
    }
    return .scope(
        keyTransformation: liftedKeys,
        actionHandler: feature,
        extractAction: { action in if case .feature(let feature) = action { feature } else { nil } },
        embedAction: LiftedAppAction.feature,
        dependencyTransformation: { step in step })
}

@Suite(.timeLimit(.minutes(2))) struct LiftedHandlerTests {
    @Test func aLiftedHandlerReadsAndWritesOnlyItsMappedKeys() {
        let seen = Recorder<[LiftedKey: Int]>()
        let store = Store(
            initialValues: [.count: 1, .flag: 7, .other: 9], actionHandler: liftedFeature(seen: seen), dependency: 10)
        store.handle(action: .feature(.readAll))
        store.handle(action: .feature(.set(2)))
        #expect(seen.values == [[.value: 1], [.value: 20]])
        #expect(store.get(.count, as: Int.self) == 20)
        #expect(store.get(.flag, as: Int.self) == 7)
        #expect(store.get(.other, as: Int.self) == 9)
        #expect(store.allValues.count == 3)
    }

    @Test func actionsThatAreNotTheFeaturesAreLeftOut() {
        let seen = Recorder<[LiftedKey: Int]>()
        let store = Store(initialValues: [.count: 1], actionHandler: liftedFeature(seen: seen), dependency: 1)
        store.handle(action: .other)
        #expect(seen.values.isEmpty)
        #expect(store.get(.count, as: Int.self) == 1)
    }

    @Test func theFeaturesWritesAreOneCommitWithTheAppHandlers() {
        let app = StoreActionHandler<Key, LiftedAppAction, Int> { state, _, _ in
            state.set(value: (state.get(.count, as: Int.self) ?? 0) + 1, forKey: .other)
            return .none
        }
        let reports = Recorder<String>()
        let store = Store(
            initialValues: [.count: 0], actionHandler: StoreActionHandler(combining: [liftedFeature(), app]),
            dependency: 1
        ).debug { reports.append($0) }
        store.handle(action: .feature(.set(5)))
        #expect(store.get(.other, as: Int.self) == 6)
        #expect(reports.values == ["[CacheStore] Action: .feature(.set(5))\n  ~ .count: 0 → 5\n  + .other: 6"])
    }

    /// The feature's effect runs under its id in the lift's namespace, and sends the app's action.
    @Test func theFeaturesEffectsSendTheAppsActions() async {
        let lifted = liftedFeature()
        let store = Store(initialValues: [.count: 0], actionHandler: lifted, dependency: 3)
        // Waits a second before its action: with no wait, it could end before `runningEffectIDs` is read
        // (a ThreadSanitizer run of CI failed so).
        store.handle(action: .feature(.setLater(4, id: "later", after: .seconds(1))))
        #expect(store.runningEffectIDs == [lifted.effectID("later")])
        #expect(!store.runningEffectIDs.contains("later"), "the feature's id is its own, not the app's")
        #expect(await eventually { store.get(.count, as: Int.self) == 12 })
    }

    /// The app reaches a feature's effect through the lift's id; the feature's bare id reaches nothing.
    @Test func cancelByTheLiftsIDReachesTheFeaturesEffect() async {
        let lifted = liftedFeature()
        let store = Store(initialValues: [.count: 0], actionHandler: lifted, dependency: 3)
        store.handle(action: .feature(.setLater(4, id: "later", after: .seconds(60))))
        #expect(!store.cancel(id: "later"))
        #expect(store.cancel(id: lifted.effectID("later")))
        #expect(await eventually { store.runningEffectIDs.isEmpty })
        #expect(store.get(.count, as: Int.self) == 0)
    }

    @Test func aFeatureThatAssignsANewCacheSetsEveryMappedKey() {
        let store = Store(
            initialValues: [.count: 1, .name: "Ada", .flag: 7], actionHandler: liftedFeature(), dependency: 1)
        store.handle(action: .feature(.replace([.value: 5, .local: 6])))
        #expect(store.get(.count, as: Int.self) == 5)
        #expect(!store.contains(.name))
        #expect(store.get(.flag, as: Int.self) == 7)
        #expect(store.allValues.count == 2)
    }

    @Test func aKeptFeatureStateReadsTheCommittedStateAfterLaterActions() {
        let kept = Recorder<CacheStore<LiftedKey>>()
        let store = Store(initialValues: [.count: 1], actionHandler: liftedFeature(kept: kept), dependency: 1)
        store.handle(action: .feature(.set(2)))
        store.handle(action: .feature(.set(3)))
        #expect(kept.values[0].get(.value, as: Int.self) == 3)
        kept.values[0].set(value: 4, forKey: .value)
        #expect(store.get(.count, as: Int.self) == 4)
        #expect(kept.values[1].get(.value, as: Int.self) == 4)
    }

    /// A feature state the feature kept still reads and writes the app's state after later actions,
    /// also when the feature assigned a new cache to its state. (The view holds the app's state
    /// unretained while its action runs, and retains it on either path by which it escapes:
    /// `LiftedCore.keepParent()`.)
    @Test func aKeptFeatureStateOutlivesItsActionAlsoWhenTheFeatureReplacedIt() {
        let kept = Recorder<CacheStore<LiftedKey>>()
        let store = Store(initialValues: [.count: 1], actionHandler: liftedFeature(kept: kept), dependency: 1)
        store.handle(action: .feature(.replace([.value: 5])))
        store.handle(action: .other)
        #expect(kept.values[0].get(.value, as: Int.self) == 5)
        kept.values[0].set(value: 6, forKey: .value)
        #expect(store.get(.count, as: Int.self) == 6)
    }

    /// A feature state the feature kept holds the app's state alive once its store is gone: the view
    /// does not retain the app's state while its action runs, so it must take a reference when it
    /// escapes its action, on either path (kept as it is, or kept and replaced).
    @Test(arguments: [false, true])
    func aKeptFeatureStateKeepsTheAppsStateAfterItsStoreIsGone(replacing: Bool) {
        final class Tracked: Sendable {}
        let kept = Recorder<CacheStore<LiftedKey>>()
        weak var tracked: Tracked?
        do {
            let value = Tracked()
            tracked = value
            // `.other` is no feature key: the feature's replacement leaves it as it is.
            let store = Store(
                initialValues: [.count: 1, .other: value], actionHandler: liftedFeature(kept: kept), dependency: 1)
            store.handle(action: .feature(replacing ? .replace([.value: 5]) : .set(2)))
        }
        #expect(tracked != nil)
        #expect(kept.values[0].get(.value, as: Int.self) == (replacing ? 5 : 2))
    }

    /// A lifted feature's `changes`, kept after its action, ends once the feature's state (which the
    /// feature did not keep) is released, as a released store's does: making it lets the view escape
    /// its action. (The view was detached and reused for the next action instead: the sequence then
    /// subscribed to no state at all, and waited forever; or, with the view attached to another
    /// store's running action, to that action's state, which the action may free.)
    @Test func aKeptFeatureStatesChangesEndsOnceTheFeatureStateIsReleased() async {
        let kept = Recorder<CacheStoreChanges<LiftedKey>>()
        let feature = StoreActionHandler<LiftedKey, Int, Void> { state, value, _ in
            kept.append(state.changes)
            state.set(value: value, forKey: .value)
            return .none
        }
        let store = Store(
            initialValues: [Key.count: 0],
            actionHandler: StoreActionHandler<Key, Int, Void>.scope(
                keyTransformation: liftedKeys, actionHandler: feature, extractAction: { $0 }, embedAction: { $0 },
                dependencyTransformation: { _ in () }))
        store.handle(action: 1)
        let iterator = kept.values[0].makeAsyncIterator()
        store.handle(action: 2)
        let ended = Recorder<Bool>()
        let consumer = Task { [iterator] in
            var iterator = iterator
            while await iterator.next() != nil {}
            ended.append(!Task.isCancelled)
        }
        #expect(await eventually(timeout: .seconds(60)) { !ended.values.isEmpty })
        consumer.cancel()
        #expect(ended.values == [true])
        #expect(store.get(.count, as: Int.self) == 2)
    }

    @Test func aLiftedHandlerOverAKeySubsetSeesOnlyThoseKeys() {
        let seen = Recorder<[Key: Int]>()
        let session = StoreActionHandler<Key, Int, Void> { state, value, _ in
            state.set(value: value, forKey: .count)
            state.set(value: value, forKey: .other)
            seen.append(state.valuesInCache(ofType: Int.self))
            return .none
        }
        let store = Store(
            initialValues: [.flag: 1],
            actionHandler: StoreActionHandler<Key, LiftedAppAction, Void>.scope(
                keys: [.count],
                actionHandler: session,
                extractAction: { action in if case .feature(.set(let value)) = action { value } else { nil } },
                embedAction: { value in .feature(.set(value)) },
                dependencyTransformation: { _ in () }))
        store.handle(action: .feature(.set(2)))
        #expect(seen.values == [[.count: 2]])
        #expect(store.allValues.count == 2)
        #expect(store.get(.count, as: Int.self) == 2)
    }

    // MARK: - One lifted handler, two stores at once

    /// A lifted feature with a key of its own: `.value` is the app's `.count`.
    static let keys: BiDirectionalTransformation<Key?, LiftedKey?> = (
        from: { $0 == .count ? .value : nil },
        to: { $0 == .value ? .count : nil }
    )

    /// Two stores run one lifted handler (so one spare view) on two threads at once, 5,000 actions
    /// each: each action's feature reads the value its own store's state holds and increments it, so
    /// a view attached to the other store's state (or a spare taken by both) shows as a wrong count.
    /// A third of the actions make a scope of the view, a third keep it (the last eight kept): those
    /// views escape, and take their reference to their store's state, while the other store runs.
    @Test func oneLiftedHandlerRunByTwoStoresAtOnceSeesEachStoresOwnState() async {
        let mismatches = Recorder<String>()
        let kept = AttackBox<[CacheStore<LiftedKey>]>([])
        let keptLock = NSLock()
        let feature = StoreActionHandler<LiftedKey, Int, Void> { state, marker, _ in
            let value = state.get(.value, as: Int.self) ?? 0
            if value / 1_000_000 != marker { mismatches.append("store \(marker) read \(value)") }
            state.set(value: value + 1, forKey: .value)
            // Every third action the view escapes (a scope of it, or the state itself, kept a while).
            switch value % 3 {
            case 0: _ = state.scope(keys: [.value]).get(.value, as: Int.self)
            case 1: keptLock.withLock { kept.value = Array((kept.value + [state]).suffix(8)) }
            default: break
            }
            return .none
        }
        let lifted = StoreActionHandler<Key, Int, Void>.scope(
            keyTransformation: Self.keys, actionHandler: feature, extractAction: { $0 }, embedAction: { $0 },
            dependencyTransformation: { _ in () })
        let stores = [1, 2].map { marker in
            Store<Key, Int, Void>(initialValues: [.count: marker * 1_000_000], actionHandler: lifted, dependency: ())
        }
        await offThePool {
            onThreads(2) { index in
                for _ in 0..<5_000 { stores[index].handle(action: index + 1) }
            }
        }
        #expect(mismatches.values.prefix(3) == [])
        #expect(stores[0].get(.count, as: Int.self) == 1_005_000)
        #expect(stores[1].get(.count, as: Int.self) == 2_005_000)
        for view in kept.value { #expect(view.get(.value, as: Int.self).map { $0 % 1_000_000 } == 5_000) }
    }
}
