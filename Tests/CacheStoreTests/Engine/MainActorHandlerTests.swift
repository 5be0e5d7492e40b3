import CacheStore
import Foundation
import Testing

/// A handler isolated to the main actor (`StoreActionHandler.mainActor`) uses main-actor state as
/// its own; its store, composed or lifted, handles every action on the main actor; a store that
/// could not run it there stops the program with a message.
@Suite(.timeLimit(.minutes(2))) @MainActor struct MainActorHandlerTests {
    enum Key { case count }
    enum Action: Sendable {
        case record(Int)
        case recordLater(Int)
    }
    enum AppAction: Sendable {
        case feature(Action)
        case other
    }

    /// Main-actor state, which only a main-actor handler can touch without `await`.
    @MainActor final class Log {
        var handled: [Int] = []
        var offTheMainQueue = 0

        func record(_ number: Int) {
            if !MainQueueMark.isCurrent { offTheMainQueue += 1 }
            handled.append(number)
        }

        /// The numbers handled, once there are `count` (or after two minutes).
        func numbers(once count: Int) async -> [Int] {
            for _ in 0..<12_000 where handled.count < count {
                try? await Task.sleep(for: .milliseconds(10))
            }
            #expect(offTheMainQueue == 0)
            return handled
        }
    }

    static let mainActorHandler = StoreActionHandler<Key, Action, Log>.mainActor { state, action, log in
        switch action {
        case .record(let number):
            log.record(number)
            state.set(value: log.handled.count, forKey: .count)
            return .none
        case .recordLater(let number):
            return .run { send in await send(.record(number)) }
        }
    }

    @Test func aStoreMadeWithAMainActorHandlerHandlesOnTheMainActorFromAnyThread() async {
        let log = Log()
        let store = Store(initialValues: [:], actionHandler: Self.mainActorHandler, dependency: log)
        await Task.detached { for number in 0..<100 { store.handle(action: .record(number)) } }.value
        #expect(await log.numbers(once: 100) == Array(0..<100))
        #expect(store.get(.count, as: Int.self) == 100)
    }

    @Test func anEffectsActionsReachAMainActorHandlerOnTheMainActor() async {
        let log = Log()
        let store = Store(initialValues: [:], actionHandler: Self.mainActorHandler, dependency: log)
        await Task.detached { for number in 0..<3 { store.handle(action: .recordLater(number)) } }.value
        #expect(await log.numbers(once: 3).sorted() == [0, 1, 2])
    }

    @Test func aHandlerComposedOfAMainActorHandlerRunsOnTheMainActor() async {
        let log = Log()
        let plain = StoreActionHandler<Key, Action, Log> { _, _, _ in nil }
        let combined = StoreActionHandler(combining: [plain, Self.mainActorHandler])
            .before { _, _, _ in }
            .after { _, _, _ in }
        let store = Store(initialValues: [:], actionHandler: combined, dependency: log)
        await Task.detached { store.handle(action: .record(7)) }.value
        #expect(await log.numbers(once: 1) == [7])
        let scoped = store.scope(keys: [.count], actionHandler: Self.mainActorHandler, dependencyTransformation: { $0 })
        await Task.detached { scoped.handle(action: .record(8)) }.value
        #expect(await log.numbers(once: 2) == [7, 8])
    }

    @Test func anAppThatLiftsAMainActorFeatureHandlesOnTheMainActor() async {
        let log = Log()
        let feature = FeatureLift<Key, AppAction, Key, Action>(appKeys: [.count], action: AppAction.feature)
        let appHandler: StoreActionHandler<Key, AppAction, Log> = feature.handler(
            Self.mainActorHandler, dependency: { $0 })
        let app = Store(initialValues: [:], actionHandler: appHandler, dependency: log)
        await Task.detached {
            app.handle(action: .feature(.record(1)))
            app.handle(action: .other)
            app.handle(action: .feature(.recordLater(2)))
        }.value
        #expect(await log.numbers(once: 2) == [1, 2])
        #expect(app.get(.count, as: Int.self) == 2)
    }

    @Test func aStoreThatHandlesOnAnyThreadRefusesAMainActorHandlerSayingWhy() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Store(
                initialValues: [:], actionHandler: StoreActionHandler<Key, Action, Void>.mainActor { _, _, _ in nil },
                isolation: .anyThread)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("the handler is isolated to the main actor"), "\(message)")
        #expect(message.contains("Make the store with isolation: .mainActor"), "\(message)")
    }

    @Test func aScopeOfAStoreThatHandlesOnAnyThreadRefusesAMainActorHandler() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let root = Store(initialValues: [:], actionHandler: StoreActionHandler<Key, Action, Void>.none)
            _ = root.scope(
                keys: [.count], actionHandler: StoreActionHandler<Key, Action, Void>.mainActor { _, _, _ in nil },
                dependencyTransformation: { _ in () })
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("a scoped store handles its actions where its root store does"), "\(message)")
    }

    @Test func aMainActorHandlerCalledOffTheMainActorStopsTheProgramSayingWhere() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let handler = StoreActionHandler<Key, Action, Void>.mainActor { _, _, _ in nil }
            let thread = Thread {
                var state = CacheStore<Key>(initialValues: [:])
                _ = handler.handle(store: &state, action: .record(1), dependency: ())
            }
            thread.start()
            try? await Task.sleep(for: .seconds(60))
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("the handler was called off the main actor"), "\(message)")
    }
}
