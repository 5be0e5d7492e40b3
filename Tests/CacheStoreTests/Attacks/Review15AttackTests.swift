import CacheStore
import Foundation
import Observation
import Testing

/// Review 15: a scoped store's writes to its parent's keys and to keys of its own, published apart;
/// a handler's state used on another thread while its action runs. (Its third finding, a
/// long-lived scope's memory per key it observed, is open: see the stop's closing note.)
@Suite(.timeLimit(.minutes(2))) struct Review15AttackTests {
    enum AppKey: Hashable, Sendable { case shared, other }
    enum FeatureKey: Hashable, Sendable { case shared, local }
    enum FeatureAction: Sendable { case write(Int) }

    /// `.shared` is the app's `.shared`; `.local` lives in the scope only.
    static let featureKeys: BiDirectionalTransformation<AppKey?, FeatureKey?> = (
        from: { key in key == .shared ? FeatureKey.shared : nil },
        to: { key in key == .shared ? AppKey.shared : nil }
    )

    /// One action writes both keys to the same number.
    static let featureHandler = StoreActionHandler<FeatureKey, FeatureAction, Void> { state, action, _ in
        switch action {
        case .write(let value):
            state.set(value: value, forKey: .shared)
            state.set(value: value, forKey: .local)
        }
        return .none
    }

    static func appAndFeature() -> (Store<AppKey, Int, Void>, Store<FeatureKey, FeatureAction, Void>) {
        let app = Store<AppKey, Int, Void>(
            initialValues: [.shared: 0], actionHandler: StoreActionHandler { _, _, _ in .none })
        let feature = app.scope(
            keyTransformation: featureKeys, actionHandler: featureHandler, defaultCache: [.local: 0])
        return (app, feature)
    }

    // MARK: A scoped store's writes to its parent's keys and its own keys

    /// "A handler's writes become visible together when it returns": an observer of the shared key,
    /// told of the action's change, reads the scope's own key and must see the same action's write.
    @Test func aScopedStoresObserverSeesTheActionsWriteToTheScopesOwnKey() {
        let (app, feature) = Self.appAndFeature()
        let seen = Recorder<Int?>()
        withObservationTracking {
            _ = feature.get(.shared, as: Int.self)
        } onChange: {
            seen.append(feature.get(.local, as: Int.self))
        }
        feature.handle(action: .write(1))
        #expect(feature.get(.local, as: Int.self) == 1)
        #expect(seen.values == [1], "the observer of .shared saw .local as \(seen.values), the state half-written")
        withExtendedLifetime(app) {}
    }

    /// The same through the parent: an observer of the app's key reads the feature's own key.
    @Test func aParentObserverSeesTheScopedActionsWriteToTheScopesOwnKey() {
        let (app, feature) = Self.appAndFeature()
        let seen = Recorder<Int?>()
        withObservationTracking {
            _ = app.get(.shared, as: Int.self)
        } onChange: {
            seen.append(feature.get(.local, as: Int.self))
        }
        feature.handle(action: .write(7))
        #expect(seen.values == [7], "the observer of the app's .shared saw .local as \(seen.values)")
    }

    /// "Each element names the keys one write (or one Store action) changed": one action of the
    /// scoped store that writes both keys is one element naming both, for a consumer already waiting.
    @Test func aScopedStoresChangesNameBothKeysOfOneAction() async {
        let (app, feature) = Self.appAndFeature()
        let iterator = feature.changes.makeAsyncIterator()
        let received = Recorder<ChangedKeys<FeatureKey>?>()
        let consumer = Task {
            var copy = iterator
            received.append(await copy.next())
        }
        // Let the consumer wait in `next()` before the action.
        try? await Task.sleep(for: .milliseconds(300))
        feature.handle(action: .write(1))
        #expect(await eventually(timeout: .seconds(30)) { !received.values.isEmpty })
        consumer.cancel()
        await consumer.value
        let first = received.values.first ?? nil
        #expect(
            first?.contains(.shared) == true && first?.contains(.local) == true,
            "one action's element was \(String(describing: first))")
        withExtendedLifetime(app) {}
    }

    // MARK: A handler's state is a CacheStore: "every method may be called from any thread"

    /// A handler hands its `state` (a `Sendable` `CacheStore`) to a thread of its own, which reads it
    /// while the handler goes on writing. Every read must return a value the handler wrote or `nil`,
    /// and nothing may crash. The handler's state was an unlocked transaction, read and grown at once:
    /// the process crashed ("Index out of range", or a bad pointer; ThreadSanitizer reported the race
    /// in `TransactionCore.position(of:)`).
    @Test func aHandlersStateReadOnAnotherThreadDuringTheAction() async {
        let bad = Recorder<String>()
        let reads = AttackBox(0)
        let store = Store<Key, Int, Void>(
            initialValues: [:],
            actionHandler: StoreActionHandler { state, count, _ in
                let shared = state
                let stop = AttackBox(false)
                let done = DispatchSemaphore(value: 0)
                let started = DispatchSemaphore(value: 0)
                Thread {
                    started.signal()
                    var index = 0
                    while !stop.value {
                        let value = shared.get(.item(index % count), as: Int.self)
                        if let value, value != index % count { bad.append("item(\(index % count)) read \(value)") }
                        index += 1
                    }
                    reads.value = index
                    done.signal()
                }.start()
                started.wait()  // the handler runs on a thread of its own (offThePool)
                for index in 0..<count { state.set(value: index, forKey: .item(index)) }
                stop.value = true
                done.wait()
                return .none
            })
        // Smaller under ThreadSanitizer, which reports the race at once.
        let (rounds, count) = isUnderThreadSanitizer ? (1, 2_000) : (20, 20_000)
        await offThePool {
            for _ in 0..<rounds { store.handle(action: count) }
        }
        #expect(bad.values.isEmpty, "\(bad.values.prefix(5))")
        #expect(store.get(.item(count - 1), as: Int.self) == count - 1)
    }

    /// What another thread sees of a handler's state while the action runs: the committed state, not
    /// the handler's writes, which become visible together when it returns; its own writes go to the
    /// committed state at once, as a write to the store's cache from another thread does.
    @Test func anotherThreadUsesTheCommittedStateWhileTheHandlerRuns() async {
        let seen = Recorder<Int?>()
        let store = Store<Key, Int, Void>(
            initialValues: [.item(0): 0],
            actionHandler: StoreActionHandler { state, value, _ in
                state.set(value: value, forKey: .item(0))
                let shared = state
                let done = DispatchSemaphore(value: 0)
                Thread {
                    seen.append(shared.get(.item(0), as: Int.self))
                    shared.set(value: value * 10, forKey: .item(1))
                    seen.append(shared.get(.item(1), as: Int.self))
                    done.signal()
                }.start()
                done.wait()
                seen.append(state.get(.item(0), as: Int.self))
                return .none
            })
        await offThePool { store.handle(action: 7) }
        #expect(seen.values == [0, 70, 7])
        #expect(store.get(.item(0), as: Int.self) == 7)
        #expect(store.get(.item(1), as: Int.self) == 70)
    }
}
