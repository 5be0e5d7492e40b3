import CacheStore
import Foundation
import Observation
import Testing

/// Review 9's attacks: lifted feature handlers whose state (or something made from it) outlives the
/// action, and the stores they run in.
@Suite(.timeLimit(.minutes(2))) struct Review9AttackTests {
    /// A lifted feature with a key of its own: `.value` is the app's `.count`.
    static let keys: BiDirectionalTransformation<Key?, LiftedKey?> = (
        from: { $0 == .count ? .value : nil },
        to: { $0 == .value ? .count : nil }
    )

    /// An app store whose handler runs `feature` lifted, and writes `.count` itself on `-value`.
    static func appStore(
        _ feature: StoreActionHandler<LiftedKey, Int, Void>
    ) -> Store<Key, Int, Void> {
        let app = StoreActionHandler<Key, Int, Void> { state, value, _ in
            if value < 0 { state.set(value: -value, forKey: .count) }
            return .none
        }
        let lifted = StoreActionHandler<Key, Int, Void>.scope(
            keyTransformation: keys, actionHandler: feature, extractAction: { $0 >= 0 ? $0 : nil },
            embedAction: { $0 }, dependencyTransformation: { _ in () })
        return Store(
            initialValues: [.count: 0], actionHandler: StoreActionHandler(combining: [app, lifted]), dependency: ())
    }

    /// Runs `next()` on a copy of `iterator` in a task; returns whether it returned within `seconds`,
    /// and what. The task is cancelled when it did not return.
    static func nextReturns<K: Hashable & SendableMetatype>(
        _ iterator: CacheStoreChanges<K>.Iterator, within seconds: Int
    ) async -> (returned: Bool, keys: ChangedKeys<K>?) {
        let result = Recorder<ChangedKeys<K>?>()
        let task = Task {
            var copy = iterator
            result.append(await copy.next())
        }
        let returned = await eventually(timeout: .seconds(seconds)) { !result.values.isEmpty }
        if !returned { task.cancel() }
        await task.value
        return (returned, result.values.first ?? nil)
    }

    // MARK: A lifted feature's changes iterator made during its action

    /// A plain handler's `state.changes` iterator, made during the action, yields the store's later
    /// changes: the baseline for the lifted case below.
    @Test func aHandlersChangesIteratorMadeInItsActionYieldsLaterChanges() async {
        let kept = Recorder<CacheStoreChanges<Key>.Iterator>()
        let store = Store<Key, Int, Void>(
            initialValues: [.count: 0],
            actionHandler: StoreActionHandler { state, value, _ in
                if value == 0 {
                    kept.append(state.changes.makeAsyncIterator())
                } else {
                    state.set(value: value, forKey: .count)
                }
                return .none
            },
            dependency: ())
        store.handle(action: 0)
        let next = Task { await Self.nextReturns(kept.values[0], within: 60) }
        try? await Task.sleep(for: .milliseconds(50))
        store.handle(action: 5)
        let (returned, keys) = await next.value
        #expect(returned)
        #expect(keys?.contains(.count) == true)
    }

    /// A lifted feature's `state.changes` iterator, made during its action (to iterate in an effect),
    /// either yields the feature's later changes or ends once the feature's state is released, as a
    /// released scope's does. It did neither: the iterator subscribed to the parent's state through
    /// the view, which is released after the action; the parent's subscription then drops every
    /// change (its `onChange` holds the view weakly) and never ends, as the view has no storage of
    /// its own whose release would end it.
    @Test func aLiftedFeaturesChangesIteratorMadeInItsActionYieldsOrEnds() async {
        let kept = Recorder<CacheStoreChanges<LiftedKey>.Iterator>()
        let store = Self.appStore(
            StoreActionHandler { state, value, _ in
                if value == 0 { kept.append(state.changes.makeAsyncIterator()) }
                return .none
            })
        store.handle(action: 0)
        let next = Task { await Self.nextReturns(kept.values[0], within: 60) }
        try? await Task.sleep(for: .milliseconds(50))
        store.handle(action: -7)
        let (returned, keys) = await next.value
        #expect(returned, "next() on a lifted feature's changes neither yields the feature's change nor ends")
        if let keys { #expect(keys.contains(.value)) }
        #expect(store.get(.count, as: Int.self) == 7)
    }

    // MARK: One lifted handler, two stores at once

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
