import CacheStore
import CacheStoreTesting
import Foundation
import Testing

/// Review 12's attacks on the test store's queue (`EffectQueue`): what it accepts against what a
/// store does. Each test store test has its store test beside it, which shows what the store does
/// (it passes); the test store's fails.
@Suite struct Review12TestStoreAttackTests {
    enum ID: Hashable { case load, chain }

    enum Action: Equatable, Sendable {
        case load
        case cancelChainThenLoad
        case cancelChainThenLoadChain
        case loaded(Int)
    }

    static func handler(gate: AsyncGate) -> StoreActionHandler<LoadKey, Action, Void> {
        StoreActionHandler { state, action, _ in
            switch action {
            case .load:
                return ActionEffect(id: ID.load) {
                    await gate.wait()
                    return .loaded(1)
                }
            case .cancelChainThenLoad:
                // The concatenation's step cancels its own concatenation, then starts an effect under
                // `.load`: a part of a cancelled concatenation, which starts not, and replaces nothing.
                return .concatenate(
                    id: ID.chain,
                    .merge(
                        .cancel(id: ID.chain),
                        ActionEffect(id: ID.load) { .loaded(2) }))
            case .cancelChainThenLoadChain:
                // The same with a concatenation under `.load` in place of the effect.
                return .concatenate(
                    id: ID.chain,
                    .merge(
                        .cancel(id: ID.chain),
                        .concatenate(id: ID.load, ActionEffect { .loaded(2) })))
            case .loaded(let value):
                state.set(value: value, forKey: .page)
            }
            return .none
        }
    }

    /// Waits until `condition` holds, for up to 60 s; the caller's expectations then say what held.
    static func waitUntil(_ condition: () -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition(), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    // MARK: A part started in a concatenation its own step cancelled

    /// The store: the step's `.cancel(id: .chain)` cancels the concatenation; the effect (or the
    /// concatenation) under `.load` after it is a part of a concatenation no longer running, which
    /// `EffectLifecycle.start` refuses (`.part`: `guard isRunning(composed) else { return nil }`)
    /// before naming it: the `.load` effect that `.load` started goes on, and delivers `.loaded(1)`.
    @Test(arguments: [Action.cancelChainThenLoad, .cancelChainThenLoadChain])
    func aStoreKeepsTheEffectAPartOfACancelledConcatenationWouldHaveReplaced(action: Action) async {
        let (gate, handled) = (AsyncGate(), LockedList<Action>())
        let base = Self.handler(gate: gate)
        let recording = StoreActionHandler<LoadKey, Action, Void> { state, action, dependency in
            handled.append(action)
            return base.handle(store: &state, action: action, dependency: dependency)
        }
        let store = Store(initialValues: [:], actionHandler: recording, dependency: ())
        store.handle(action: .load)
        store.handle(action: action)
        #expect(store.runningEffectIDs == [AnyHashable(ID.load)])
        gate.open()
        await Self.waitUntil { handled.values.count == 3 }
        await Self.waitUntil { store.runningEffectIDs.isEmpty }
        #expect(handled.values == [.load, action, .loaded(1)])
    }

    /// The test store of the same handler: `EffectQueue.startNamed` (`startConcatenation` for the
    /// concatenation) removes the effect running under `.load` before `queue` (or the guard after it)
    /// finds the concatenation cancelled and drops the new part, so the `.load` effect is gone:
    /// `queuedEffectIDs` is empty, and `receive(.loaded(1))`, which a store delivers, fails with "no
    /// effect is queued". (A throttle's `.deferred` removes the throttled effect waiting under its id
    /// before the same test.)
    @Test(arguments: [Action.cancelChainThenLoad, .cancelChainThenLoadChain])
    func aTestStoreKeepsTheEffectAPartOfACancelledConcatenationWouldHaveReplaced(action: Action) async {
        let gate = AsyncGate()
        gate.open()
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: Self.handler(gate: gate), dependency: ())
            store.send(.load)
            store.send(action)
            #expect(store.queuedEffectIDs == [AnyHashable(ID.load)])
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: A throttled effect deferred in a concatenation its own step cancelled

    enum ThrottleAction: Equatable, Sendable {
        case throttled(Int)
        case cancelChainThenThrottle
        case loaded(Int)
    }

    /// Throttles `.loaded` under `.load` for 300 ms on the dependency's clock, keeping the latest.
    static func throttleHandler<C: Clock<Duration> & Sendable>(
        _: C.Type
    ) -> StoreActionHandler<LoadKey, ThrottleAction, C> {
        StoreActionHandler { state, action, clock in
            switch action {
            case .throttled(let value):
                return ActionEffect { .loaded(value) }
                    .throttle(id: ID.load, for: .milliseconds(300), clock: clock, latest: true)
            case .cancelChainThenThrottle:
                // Within the interval, with a throttled effect waiting: deferred in its place, but as a
                // part of a concatenation its own step has just cancelled.
                return .concatenate(
                    id: ID.chain,
                    .merge(
                        .cancel(id: ID.chain),
                        ActionEffect { .loaded(3) }
                            .throttle(id: ID.load, for: .milliseconds(300), clock: clock, latest: true)))
            case .loaded(let value):
                state.set(value: value, forKey: .page)
            }
            return .none
        }
    }

    /// The store: the deferred part of the cancelled concatenation is refused before it takes the
    /// waiting slot of `.load` (`EffectLifecycle.start`, `.part`), so the throttled `.loaded(2)`
    /// waiting there starts once the interval is over, and `.loaded(3)` never does.
    @Test func aStoreKeepsTheThrottledEffectAPartOfACancelledConcatenationWouldHaveReplaced() async {
        let handled = LockedList<ThrottleAction>()
        let base = Self.throttleHandler(ContinuousClock.self)
        let recording = StoreActionHandler<LoadKey, ThrottleAction, ContinuousClock> { state, action, clock in
            handled.append(action)
            return base.handle(store: &state, action: action, dependency: clock)
        }
        let store = Store(initialValues: [:], actionHandler: recording, dependency: ContinuousClock())
        store.handle(action: .throttled(1))
        store.handle(action: .throttled(2))
        store.handle(action: .cancelChainThenThrottle)
        await Self.waitUntil { handled.values.contains(.loaded(2)) }
        await Self.waitUntil { store.runningEffectIDs.isEmpty }
        #expect(handled.values.contains(.loaded(2)))
        #expect(!handled.values.contains(.loaded(3)))
    }

    /// The test store of the same handler: `EffectQueue.start`'s `.deferred` removes the throttled
    /// effect waiting under `.load` before `queue` finds the concatenation cancelled and drops the
    /// new wait: nothing is queued, and `receive(.loaded(2), after:on:)` fails with "no effect is
    /// queued".
    @Test func aTestStoreKeepsTheThrottledEffectAPartOfACancelledConcatenationWouldHaveReplaced() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: Self.throttleHandler(TestClock.self), dependency: clock)
            store.send(.throttled(1))
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            store.send(.throttled(2))
            store.send(.cancelChainThenThrottle)
            #expect(store.queuedEffectIDs == [AnyHashable(ID.load)])
            await store.receive(.loaded(2), after: .milliseconds(300), on: clock) {
                $0.set(value: 2, forKey: .page)
            }
        }
        #expect(failures.map(\.message) == [])
    }
}
