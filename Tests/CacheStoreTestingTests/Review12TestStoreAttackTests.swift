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
}
