import CacheStore
import CacheStoreTesting
import Foundation
import Testing

/// Review 13's attacks on the test store's queue (`EffectQueue`), confirmed and fixed in the stop
/// after it: what the test store accepts against what a store does. Where the order of a store's
/// actions is the point, a store test beside the test store's shows it.
@Suite struct Review13TestStoreAttackTests {
    enum ID: Hashable { case load, chain, outer, inner }

    enum Action: Equatable, Sendable {
        case chain
        case cancelThenAct
        case stepThenNext
        case twoActions
        case first
        case nestedHang
        case mergedHang
        case debouncedCancel
        case throttled(Int)
        case loaded(Int)
    }

    static func handler(gate: AsyncGate, clock: TestClock) -> StoreActionHandler<LoadKey, Action, Void> {
        StoreActionHandler { state, action, _ in
            switch action {
            case .chain:
                // A concatenation whose running first step is the effect `.load`.
                return .concatenate(
                    id: ID.chain,
                    ActionEffect(id: ID.load) {
                        await gate.wait()
                        return .loaded(1)
                    },
                    ActionEffect(.loaded(2)))
            case .cancelThenAct:
                return .merge(.cancel(id: ID.load), ActionEffect(.loaded(3)))
            case .stepThenNext:
                return .concatenate(ActionEffect(.first), ActionEffect(.loaded(2)))
            case .twoActions:
                return .merge(ActionEffect(.first), ActionEffect(.loaded(5)))
            case .first:
                return ActionEffect(.loaded(1))
            case .nestedHang:
                return .concatenate(
                    id: ID.outer,
                    .concatenate(
                        id: ID.inner,
                        ActionEffect {
                            await gate.wait()
                            return .loaded(1)
                        }),
                    ActionEffect(.loaded(2)))
            case .mergedHang:
                return .concatenate(
                    .merge(
                        ActionEffect {
                            await gate.wait()
                            return .loaded(1)
                        },
                        ActionEffect { .loaded(2) }),
                    ActionEffect(.loaded(3)))
            case .debouncedCancel:
                return ActionEffect.cancel(id: ID.load).debounce(id: ID.chain, for: .milliseconds(300), clock: clock)
            case .throttled(let value):
                // The throttled effect has the throttle's id: running, and waiting, both are named so.
                return ActionEffect(id: ID.load) { .loaded(value) }
                    .throttle(id: ID.load, for: .seconds(30), clock: clock, latest: false)
            case .loaded(let value):
                state.set(value: value, forKey: .page)
            }
            return .none
        }
    }

    /// A store of ``handler(gate:clock:)``; `handled` records every action.
    static func store(gate: AsyncGate, handled: LockedList<Action>) -> Store<LoadKey, Action, Void> {
        let base = handler(gate: gate, clock: TestClock())
        let recording = StoreActionHandler<LoadKey, Action, Void> { state, action, dependency in
            handled.append(action)
            return base.handle(store: &state, action: action, dependency: dependency)
        }
        return Store(initialValues: [:], actionHandler: recording, dependency: ())
    }

    static func testStore(gate: AsyncGate, clock: TestClock = TestClock()) -> TestStore<LoadKey, Action, Void> {
        TestStore(initialValues: [:], actionHandler: handler(gate: gate, clock: clock), dependency: ())
    }

    // MARK: A step started because a cancellation ended the step before it

    /// The store: `.cancelThenAct` cancels `.load`, the running step of `.chain`; the handler's own
    /// action `.loaded(3)` is handled in its turn, and the next step, `.loaded(2)`, once the
    /// concatenation's task has seen its step end (here once the gate lets the cancelled effect's
    /// task end), after that turn.
    @Test func aStoreHandlesTheHandlersActionBeforeTheStepACancellationStarted() async {
        let (gate, handled) = (AsyncGate(), LockedList<Action>())
        let store = Self.store(gate: gate, handled: handled)
        store.handle(action: .chain)
        store.handle(action: .cancelThenAct)
        gate.open()
        await Review11TestStoreAttackTests.waitUntil { handled.values.count == 4 }
        #expect(handled.values == [.chain, .cancelThenAct, .loaded(3), .loaded(2)])
    }

    /// The test store of the same handler: the cancellation started the next step while the
    /// handler's effect was being started, so its action went to the front, before `.loaded(3)`.
    /// (It failed so before the fix: "Received an unexpected action".)
    @Test func aTestStoreReceivesTheHandlersActionBeforeTheStepACancellationStarted() async {
        let gate = AsyncGate()
        let failures = await captureFailures {
            let store = Self.testStore(gate: gate)
            store.send(.chain)
            store.send(.cancelThenAct)
            await store.receive(.loaded(3)) { $0.set(value: 3, forKey: .page) }
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
        }
        gate.open()
        #expect(failures.map(\.message) == [])
    }

    // MARK: The next step, after a step's action whose handler returned an action

    /// The store: `.first`, the first step, is handled in `.stepThenNext`'s turn, and its handler's
    /// action `.loaded(1)` in the same turn; the second step starts once the first has ended.
    @Test func aStoreHandlesAStepsHandlersActionBeforeTheNextStep() async {
        let (gate, handled) = (AsyncGate(), LockedList<Action>())
        let store = Self.store(gate: gate, handled: handled)
        store.handle(action: .stepThenNext)
        await Review11TestStoreAttackTests.waitUntil { handled.values.count == 4 }
        #expect(handled.values == [.stepThenNext, .first, .loaded(1), .loaded(2)])
    }

    /// The test store of the same handler: the next step's action went to the very front, before
    /// `.loaded(1)` (it failed so before the fix).
    @Test func aTestStoreReceivesAStepsHandlersActionBeforeTheNextStep() async {
        let failures = await captureFailures {
            let store = Self.testStore(gate: AsyncGate())
            store.send(.stepThenNext)
            await store.receive(.first)
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: Action effects are handled first in, first out

    /// The store: `.twoActions` returns two action effects; `.first`'s handler returns a third,
    /// queued in the turn behind `.loaded(5)`.
    @Test func aStoreHandlesActionEffectsFirstInFirstOut() async {
        let (gate, handled) = (AsyncGate(), LockedList<Action>())
        let store = Self.store(gate: gate, handled: handled)
        store.handle(action: .twoActions)
        #expect(handled.values == [.twoActions, .first, .loaded(5), .loaded(1)])
    }

    /// The test store of the same handler: `.loaded(1)` went to the very front, before `.loaded(5)`
    /// (it failed so before the fix).
    @Test func aTestStoreReceivesActionEffectsFirstInFirstOut() async {
        let failures = await captureFailures {
            let store = Self.testStore(gate: AsyncGate())
            store.send(.twoActions)
            await store.receive(.first)
            await store.receive(.loaded(5)) { $0.set(value: 5, forKey: .page) }
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: An effect given up on

    /// A step of an inner concatenation given up on (it never finishes): nothing after it starts,
    /// in the inner concatenation or the outer one, as no step after a part that never ends starts
    /// in a store.
    @Test func anInnerStepGivenUpOnStartsNoStepOfTheOuterConcatenation() async {
        let gate = AsyncGate()
        let failures = await captureFailures {
            let store = Self.testStore(gate: gate)
            store.effectTimeout = .milliseconds(30)
            store.send(.nestedHang)
            await store.receive(.loaded(1))
            #expect(store.queuedEffectIDs.isEmpty)
        }
        gate.open()
        #expect(failures.count == 1)
        #expect(failures.first?.message.contains("did not finish within") == true)
    }

    /// A part of a merged step given up on: the step never ends, so the next step never starts, but
    /// its sibling part still runs and delivers, as in a store.
    @Test func aPartGivenUpOnLeavesItsSiblingPartsQueued() async {
        let gate = AsyncGate()
        let failures = await captureFailures {
            let store = Self.testStore(gate: gate)
            store.effectTimeout = .milliseconds(30)
            store.send(.mergedHang)
            await store.receive(.loaded(1))
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
            #expect(store.queuedEffectIDs.isEmpty)
        }
        gate.open()
        #expect(failures.count == 1)
        #expect(failures.first?.message.contains("did not finish within") == true)
    }

    // MARK: A debounced cancellation

    /// A debounced `.cancel(id:)` is an effect without an action: once the clock passed its wait,
    /// `runEffectExpectingNoAction()` runs it. It went on after the wait to the next queued effect,
    /// and failed with "no effect is queued".
    @Test func aDebouncedCancellationRunsAsAnEffectWithoutAction() async {
        let (gate, clock) = (AsyncGate(), TestClock())
        let failures = await captureFailures {
            let store = Self.testStore(gate: gate, clock: clock)
            store.send(.debouncedCancel)
            await clock.advance(by: .milliseconds(300))
            await store.runEffectExpectingNoAction()
            #expect(store.queuedEffectIDs.isEmpty)
        }
        gate.open()
        #expect(failures.map(\.message) == [])
    }

    // MARK: Two effects left over, started on one line

    /// Two throttled effects sent from one line (a loop): the first runs, the second waits, both
    /// under the throttle's id. Each is a leftover of its own: the report named only the first, as
    /// it took two effects with one id and one origin for the parts of one multi-action effect.
    @Test func twoLeftoverEffectsStartedOnOneLineAreReportedEach() async {
        let failures = await captureFailures {
            let store = Self.testStore(gate: AsyncGate())
            for value in 1...2 { store.send(.throttled(value)) }
            store.finish()
        }
        #expect(failures.count == 2)
        #expect(failures.first?.message.contains("Receive its action with receive(_:)") == true)
        #expect(failures.last?.message.contains("It waits on its clock") == true)
    }
}
