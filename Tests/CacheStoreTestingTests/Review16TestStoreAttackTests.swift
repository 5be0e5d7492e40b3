import CacheStore
import CacheStoreTesting
import Foundation
import Testing

/// Review 16's attacks on the test store's queue (`EffectQueue`): what the test store accepts
/// against what a store does.
@Suite struct Review16TestStoreAttackTests {
    enum ID: Hashable { case search }

    enum Action: Equatable, Sendable {
        case start
        case startAsync
        case immediate
        case debounced
    }

    static func handler(clock: TestClock) -> StoreActionHandler<LoadKey, Action, Void> {
        StoreActionHandler { _, action, _ in
            switch action {
            case .start:
                // An action effect, handled in `.start`'s turn, beside a debounced effect.
                return .merge(
                    ActionEffect(.immediate),
                    ActionEffect { .debounced }.debounce(id: ID.search, for: .seconds(1), clock: clock))
            case .startAsync:
                // An async effect that never sleeps, beside a debounced effect.
                return .merge(
                    ActionEffect { .immediate },
                    ActionEffect { .debounced }.debounce(id: ID.search, for: .seconds(1), clock: clock))
            case .immediate, .debounced:
                return .none
            }
        }
    }

    /// A store of ``handler(clock:)``; `handled` records every action.
    static func store(clock: TestClock, handled: LockedList<Action>) -> Store<LoadKey, Action, Void> {
        let base = handler(clock: clock)
        let recording = StoreActionHandler<LoadKey, Action, Void> { state, action, dependency in
            handled.append(action)
            return base.handle(store: &state, action: action, dependency: dependency)
        }
        return Store(initialValues: [:], actionHandler: recording, dependency: ())
    }

    // MARK: An advance that passes a wait jumps over an action effect queued before it

    /// The store: `.immediate` is handled in `.start`'s turn, before any clock moves; `.debounced`
    /// only once the clock passed the debounce.
    @Test func aStoreHandlesTheActionEffectBeforeTheDebouncedOne() async {
        let (clock, handled) = (TestClock(), LockedList<Action>())
        let store = Self.store(clock: clock, handled: handled)
        store.handle(action: .start)
        #expect(handled.values == [.start, .immediate])
        await Review11TestStoreAttackTests.waitUntil { clock.sleeperCount >= 1 }
        await clock.advance(by: .seconds(2))
        await Review11TestStoreAttackTests.waitUntil { handled.values.count == 3 }
        #expect(handled.values == [.start, .immediate, .debounced])
    }

    /// The test store of the same handler: `receive(_:after:on:)` with an advance past the debounce's
    /// end takes the debounce's wait (`takeFirst(advancing:)`, step 2) although the action effect
    /// `.immediate` is queued before it, so `.debounced` is received before `.immediate`, the reverse
    /// of the store's order. It should fail with an unexpected action.
    @Test func aTestStoreReceivesTheActionEffectBeforeTheDebouncedOne() async {
        let clock = TestClock()
        var order: [Action] = []
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: Self.handler(clock: clock), dependency: ())
            store.send(.start)
            await store.receive(.debounced, after: .seconds(2), on: clock)
            order.append(.debounced)
            await store.receive(.immediate)
            order.append(.immediate)
        }
        #expect(failures.count >= 1, "the test store received .debounced before .immediate: \(order)")
        #expect(failures.first?.message.contains("unexpected action") == true)
    }

    // MARK: An advance that passes a wait jumps over an async effect that never sleeps

    /// The store: the async effect delivers `.immediate` without waiting on the clock, so it is
    /// handled before the clock moves; `.debounced` once the clock passed the debounce.
    @Test func aStoreHandlesTheUnsleepingEffectBeforeTheDebouncedOne() async {
        let (clock, handled) = (TestClock(), LockedList<Action>())
        let store = Self.store(clock: clock, handled: handled)
        store.handle(action: .startAsync)
        await Review11TestStoreAttackTests.waitUntil { handled.values.count == 2 && clock.sleeperCount >= 1 }
        await clock.advance(by: .seconds(2))
        await Review11TestStoreAttackTests.waitUntil { handled.values.count == 3 }
        #expect(handled.values == [.startAsync, .immediate, .debounced])
    }

    /// The test store of the same handler: the advancing receive takes the debounce's wait first, as
    /// the oldest effect is not a wait, and the wait ends within the advance; `.debounced` is received
    /// before `.immediate`. It should fail with an unexpected action.
    @Test func aTestStoreReceivesTheUnsleepingEffectBeforeTheDebouncedOne() async {
        let clock = TestClock()
        var order: [Action] = []
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: Self.handler(clock: clock), dependency: ())
            store.send(.startAsync)
            await store.receive(.debounced, after: .seconds(2), on: clock)
            order.append(.debounced)
            await store.receive(.immediate)
            order.append(.immediate)
        }
        #expect(failures.count >= 1, "the test store received .debounced before .immediate: \(order)")
        #expect(failures.first?.message.contains("unexpected action") == true)
    }
}
