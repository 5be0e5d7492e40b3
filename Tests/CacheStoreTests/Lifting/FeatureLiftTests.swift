import CacheStore
import Foundation
import Testing

/// The plain keys and actions of ``FeatureLiftTests``'s app: one counter feature, lifted twice.
enum CacheStoreTests_FeatureLift {
    enum CounterKey: Hashable, Sendable { case count }
    enum CounterAction: Sendable, Equatable {
        case increment
        case incrementLater
    }
    enum CounterID: Hashable, Sendable { case later }

    enum AppKey: Hashable, Sendable { case leftCount, rightCount, title }
    enum AppAction: Sendable, Equatable {
        case left(CounterAction)
        case right(action: CounterAction)
        case rename(String)
    }

    static let counter = StoreActionHandler<CounterKey, CounterAction, Void> { state, action, _ in
        switch action {
        case .increment:
            state[.typedCount] += 1
            return .none
        case .incrementLater:
            return ActionEffect(id: CounterID.later) {
                try? await Task.sleep(for: .seconds(60))
                return Task.isCancelled ? nil : .increment
            }
        }
    }

    static let left = FeatureLift(label: "left", keys: [CounterKey.count: AppKey.leftCount], action: AppAction.left)
    static let right = FeatureLift(keys: [CounterKey.count: AppKey.rightCount], action: AppAction.right)

    static let app = StoreActionHandler<AppKey, AppAction, Void>(combining: [
        left.handler(counter),
        right.handler(counter),
        StoreActionHandler { state, action, _ in
            if case .rename(let title) = action { state.set(value: title, forKey: .title) }
            return .none
        },
    ])
}

extension TypedKey<CacheStoreTests_FeatureLift.CounterKey, Int> {
    fileprivate static var typedCount: Self { .init(.count, default: 0) }
}

/// A `FeatureLift` says once which app keys and which app action case are a feature's: the feature's
/// part of the app's handler, a view store of the feature, and the app's ids of its effects all come
/// from it.
@Suite(.timeLimit(.minutes(2))) struct FeatureLiftTests {
    typealias Fixture = CacheStoreTests_FeatureLift

    @Test func eachLiftHandlesOnlyItsOwnCaseEvenWhenTwoCasesCarryTheSamePayloadType() {
        let store = Store(initialValues: [:], actionHandler: Fixture.app)
        store.handle(action: .left(.increment))
        store.handle(action: .left(.increment))
        store.handle(action: .right(action: .increment))
        store.handle(action: .rename("counters"))
        #expect(store.get(.leftCount, as: Int.self) == 2)
        #expect(store.get(.rightCount, as: Int.self) == 1)
        #expect(store.get(.title, as: String.self) == "counters")
    }

    @Test func aViewStoreSendsItsActionsToTheAppsHandlerAndReadsTheFeaturesKeysLive() {
        let store = Store(initialValues: [.leftCount: 5], actionHandler: Fixture.app)
        let leftView = store.view(Fixture.left)
        let rightView = store.view(Fixture.right)
        #expect(leftView.get(.count, as: Int.self) == 5)

        leftView.handle(action: .increment)
        rightView.handle(action: .increment)
        rightView.handle(action: .increment)
        #expect(store.get(.leftCount, as: Int.self) == 6)
        #expect(store.get(.rightCount, as: Int.self) == 2)
        #expect(rightView.get(.count, as: Int.self) == 2)

        store.handle(action: .left(.increment))
        #expect(leftView.get(.count, as: Int.self) == 7, "the view reads the app's writes")
    }

    @Test func aViewStoresActionIsLoggedOnceAsTheAppsAction() {
        let log = Recorder<String>()
        let store = Store(initialValues: [:], actionHandler: Fixture.app).debug(label: "App") { log.append($0) }
        let leftView = store.view(Fixture.left)
        leftView.handle(action: .increment)
        #expect(log.values == ["[App] Action: .left(.increment)\n  + .leftCount: 1"])
    }

    @Test func theAppCancelsOneLiftsEffectThroughItsLift() async {
        let store = Store(initialValues: [:], actionHandler: Fixture.app)
        store.handle(action: .left(.incrementLater))
        store.handle(action: .right(action: .incrementLater))
        #expect(
            Set(store.runningEffectIDs)
                == [Fixture.left.effectID(Fixture.CounterID.later), Fixture.right.effectID(Fixture.CounterID.later)])
        store.cancel(id: Fixture.left.effectID(Fixture.CounterID.later))
        #expect(store.runningEffectIDs == [Fixture.right.effectID(Fixture.CounterID.later)])
        store.cancel(id: Fixture.right.effectID(Fixture.CounterID.later))
        #expect(await eventually(timeout: .seconds(10)) { store.runningEffectIDs.isEmpty })
    }

    @Test func aLiftOverAppKeysShowsTheFeatureThoseKeysOnly() {
        let lift = FeatureLift(appKeys: [Fixture.AppKey.title], action: Fixture.AppAction.rename)
        let touchAll = StoreActionHandler<Fixture.AppKey, String, Void> { state, title, _ in
            state.set(value: title, forKey: .title)
            state.set(value: 99, forKey: .leftCount)  // invisible to the feature: dropped
            return .none
        }
        let store = Store(initialValues: [.leftCount: 1], actionHandler: lift.handler(touchAll))
        store.handle(action: .rename("new"))
        #expect(store.get(.title, as: String.self) == "new")
        #expect(store.get(.leftCount, as: Int.self) == 1)
        #expect(store.view(lift).get(.leftCount, as: Int.self) == nil)
    }

    @Test func twoFeatureKeysPairedWithOneAppKeyStopTheProgramNamingThem() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = FeatureLift(keys: ["a": 1, "b": 1], action: { (feature: Int) in feature })
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("are both paired with the app key 1"), "\(message)")
        #expect(message.contains(#""a""#) && message.contains(#""b""#), "\(message)")
    }
}
