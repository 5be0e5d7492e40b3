import CacheStore
import CacheStoreTesting
import Foundation
import Testing

/// Review 11's attacks on the test store's queue (`EffectQueue`, `RunningConcatenation`): what it
/// accepts against what a store does. Each test store test has its store test beside it, which shows
/// what the store does (they pass); the test store's fail.
@Suite struct Review11TestStoreAttackTests {
    enum ID: Hashable { case load, outer, inner }

    enum Action: Equatable, Sendable {
        case asyncThenStepAction
        case chainCancellingNext
        case cancelLoad
        case nested
        case chainThenMergedAction
        case first
        case gatedRun
        case loaded(Int)
    }

    /// Effects that wait on these gates first: a store test holds them, a test store's are open.
    final class Gates: @unchecked Sendable {
        let late = AsyncGate()
        let load = AsyncGate()

        func openAll() {
            late.open()
            load.open()
        }

        static func open() -> Gates {
            let gates = Gates()
            gates.openAll()
            return gates
        }
    }

    static func handler(gates: Gates) -> StoreActionHandler<LoadKey, Action, Void> {
        StoreActionHandler { state, action, _ in
            switch action {
            case .asyncThenStepAction:
                // An async effect, and a concatenation whose first step is an immediate action.
                return .merge(
                    ActionEffect {
                        await gates.late.wait()
                        return .loaded(1)
                    },
                    .concatenate(ActionEffect(.loaded(2))))
            case .chainCancellingNext:
                // The concatenation's first step's action cancels the effect queued right after it;
                // its second step is an immediate action.
                return .merge(
                    .concatenate(ActionEffect { .cancelLoad }, ActionEffect(.loaded(4))),
                    ActionEffect(id: ID.load) {
                        await gates.load.wait()
                        return .loaded(1)
                    },
                    ActionEffect {
                        await gates.late.wait()
                        return .loaded(2)
                    })
            case .cancelLoad:
                return .cancel(id: ID.load)
            case .nested:
                // An inner concatenation is the first step of an outer one.
                return .concatenate(
                    id: ID.outer,
                    .concatenate(
                        id: ID.inner,
                        ActionEffect {
                            await gates.late.wait()
                            return .loaded(1)
                        }),
                    ActionEffect { .loaded(2) })
            case .chainThenMergedAction:
                // The second step merges an async effect and, after it, an immediate action.
                return .concatenate(
                    ActionEffect { .first },
                    .merge(
                        ActionEffect {
                            await gates.late.wait()
                            return .loaded(1)
                        },
                        ActionEffect(.loaded(2))))
            case .first:
                return .none
            case .gatedRun:
                return .run(id: ID.load) { send in
                    await gates.late.wait()
                    send(.loaded(1))
                    send(.loaded(2))
                }
            case .loaded(let value):
                state.set(value: value, forKey: .page)
            }
            return .none
        }
    }

    /// A store of ``handler(gates:)``; `handled` records every action.
    static func store(gates: Gates, handled: LockedList<Action>) -> Store<LoadKey, Action, Void> {
        let base = handler(gates: gates)
        let recording = StoreActionHandler<LoadKey, Action, Void> { state, action, dependency in
            handled.append(action)
            return base.handle(store: &state, action: action, dependency: dependency)
        }
        return Store(initialValues: [:], actionHandler: recording, dependency: ())
    }

    /// A test store of ``handler(gates:)``, its gates open unless given.
    static func testStore(gates: Gates = .open()) -> TestStore<LoadKey, Action, Void> {
        TestStore(initialValues: [:], actionHandler: handler(gates: gates), dependency: ())
    }

    /// Waits until `condition` holds, for up to 60 s; the caller's expectations then say what held.
    static func waitUntil(_ condition: () -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition(), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    // MARK: A concatenation's first step that is an immediate action

    /// The store: a concatenation's step's immediate action is handled in the turn of the action whose
    /// handler returned it (`StoreEngine.startStepAction`), before `handle(action:)` returns, so before
    /// the async effect merged before it can deliver (held here until then).
    @Test func aStoreHandlesAStepsImmediateActionBeforeAnAsyncEffectMergedBeforeIt() async {
        let (gates, handled) = (Gates(), LockedList<Action>())
        let store = Self.store(gates: gates, handled: handled)
        store.handle(action: .asyncThenStepAction)
        #expect(handled.values == [.asyncThenStepAction, .loaded(2)])
        gates.openAll()
        await Self.waitUntil { handled.values.count == 3 }
        #expect(handled.values == [.asyncThenStepAction, .loaded(2), .loaded(1)])
    }

    /// The test store of the same handler: `EffectQueue.start` puts an immediate action at the front
    /// only when it is not a part of a concatenation; a step's action is queued at the end, behind the
    /// async effect, so the test store asks for `.loaded(1)` first, an order no store produces:
    /// `receive(.loaded(2))` fails with "Received an unexpected action".
    @Test func aTestStoreReceivesAStepsImmediateActionBeforeAnAsyncEffectMergedBeforeIt() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.asyncThenStepAction)
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: The next step, when handling the step's action removed the effect after it

    /// The store: `.cancelLoad`, the first step's action, cancels `.load`; once it was handled the
    /// first step has ended, and the second step's immediate action `.loaded(4)` is handled at once,
    /// while the third effect still runs (held here until then): it delivers `.loaded(2)` after.
    @Test func aStoreHandlesTheNextStepsActionAfterTheStepsActionCancelledAnotherEffect() async {
        let (gates, handled) = (Gates(), LockedList<Action>())
        let store = Self.store(gates: gates, handled: handled)
        store.handle(action: .chainCancellingNext)
        await Self.waitUntil { handled.values.contains(.loaded(4)) }
        gates.openAll()
        await Self.waitUntil { handled.values.contains(.loaded(2)) }
        await Self.waitUntil { store.runningEffectIDs.isEmpty }
        #expect(handled.values == [.chainCancellingNext, .cancelLoad, .loaded(4), .loaded(2)])
    }

    /// The test store of the same handler: the next step goes before the effect that followed the
    /// taken one (`EffectQueue.afterTaken`); when handling the taken one's action removed that effect,
    /// the anchor is dropped and the step goes to the end of the queue, behind the third effect. The
    /// test store asks for `.loaded(2)` before `.loaded(4)`; had `.cancelLoad` cancelled nothing, it
    /// would ask for `.loaded(4)` first.
    @Test func aTestStoreReceivesTheNextStepsActionAfterTheStepsActionCancelledAnotherEffect() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.chainCancellingNext)
            await store.receive(.cancelLoad)
            await store.receive(.loaded(4)) { $0.set(value: 4, forKey: .page) }
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: A concatenation left over after finish()

    /// The store: once the outer concatenation was cancelled, with every part of it, cancelling the
    /// inner one (gone with it) starts nothing: `.loaded(2)` is never handled.
    @Test func aStoreStartsNothingOfACancelledConcatenationWhenItsInnerOneIsCancelled() async {
        let (gates, handled) = (Gates(), LockedList<Action>())
        let store = Self.store(gates: gates, handled: handled)
        store.handle(action: .nested)
        store.cancel(id: ID.outer)
        store.cancel(id: ID.inner)
        gates.openAll()
        await Self.waitUntil { store.runningEffectIDs.isEmpty }
        try? await Task.sleep(for: .milliseconds(50))
        #expect(handled.values == [.nested])
        #expect(store.runningEffectIDs.isEmpty)
    }

    /// The test store of the same handler: `finish()` (here with exhaustivity off, which removes
    /// what is left without a failure) empties the queue but keeps the concatenations it was running
    /// (`EffectQueue.removeAll` leaves `concatenations`). A later `cancel(id:)` of the inner one ends
    /// a part of the outer one's step, which then starts its second step: `queuedEffectIDs`, empty
    /// after `finish()`, lists an effect again, which a later `receive` would run.
    @Test func aTestStoreStartsALaterStepOfAConcatenationRemovedByFinish() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.exhaustivity = .off
            store.send(.nested)
            store.finish()
            #expect(store.queuedEffectIDs.isEmpty)
            store.cancel(id: ID.inner)
            #expect(store.queuedEffectIDs.isEmpty, "cancel(id:) started a step of a concatenation finish() removed")
            store.finish()
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: The instant a throttle reads as it starts

    /// The store: a throttled effect returned within the interval of the one before reads its clock's
    /// `now`, books its start after that interval, and lets go of `now`, outside every lock of the
    /// store (a throttle is decided in `StoreEngine.startComposed`, outside its runner's lock): the
    /// probe in that instant reads the store from another thread without blocking.
    @Test func aStoresThrottleLetsGoOfTheInstantItReadOutsideItsLocks() async {
        let probes = TestStoreReleaseTests.Probes<Bool>()
        let reference = Review10TestStoreAttackTests.StoreReference()
        let clock = ProbeClock {
            probes.read("runningEffectIDs") {
                _ = reference.store?.runningEffectIDs
                return true
            }
        }
        let store = Review10TestStoreAttackTests.store(clock: clock)
        reference.store = store
        store.handle(action: .throttled(1))
        store.handle(action: .throttled(2))
        await Self.waitUntil { !probes.seen.values.isEmpty }
        #expect(probes.blocked.values.isEmpty, "an instant was released inside a lock of the store")
    }

    /// The test store of the same handler: the second throttle is decided inside the queue's lock
    /// (`EffectQueue.start`, `.decidedAtStart`, under `changingQueue`). `ThrottleSchedule.holdReleases`
    /// keeps what the bookings let go of, but not the instant the throttle's closure read as `now`
    /// and did not book: it is released there, and the probe's read of `queuedEffectIDs` blocks until
    /// the lock is left (here it gives up after 2 s; on the same thread it is a deadlock). A throttle
    /// that drops its effect (`latest: false`, one already waiting) lets go of its `now` the same way.
    @Test func aTestStoresThrottleLetsGoOfTheInstantItReadOutsideTheQueuesLock() {
        let probes = TestStoreReleaseTests.Probes<[AnyHashable]>()
        let reference = Review10TestStoreAttackTests.TestStoreReference()
        let clock = ProbeClock { probes.read("queuedEffectIDs") { reference.store?.queuedEffectIDs ?? [] } }
        let store = TestStore(
            initialValues: [:], actionHandler: Review10TestStoreAttackTests.handler(ProbeClock.self), dependency: clock)
        reference.store = store
        store.send(.throttled(1))
        store.send(.throttled(2))
        store.cancel(id: Review10TestStoreAttackTests.ID.throttle)
        #expect(probes.blocked.values.isEmpty, "an instant was released inside the queue's lock")
    }

    // MARK: A later step's immediate action merged after an async effect

    /// The store: the second step starts once `.first` was handled; its immediate action is handled
    /// as the step starts (`StoreEngine.startStepAction`), while the async effect merged before it in
    /// the step still runs (held here until then).
    @Test func aStoreHandlesALaterStepsImmediateActionBeforeTheAsyncEffectMergedBeforeIt() async {
        let (gates, handled) = (Gates(), LockedList<Action>())
        let store = Self.store(gates: gates, handled: handled)
        store.handle(action: .chainThenMergedAction)
        await Self.waitUntil { handled.values.contains(.loaded(2)) }
        gates.openAll()
        await Self.waitUntil { handled.values.count == 4 }
        #expect(handled.values == [.chainThenMergedAction, .first, .loaded(2), .loaded(1)])
    }

    /// The test store of the same handler: a step started by a `receive` puts its parts in the
    /// step's order at the place of the step before (`EffectQueue.advance`; the front for immediate
    /// actions applies only to what a handler returns, and not to a concatenation's parts), so it asks
    /// for `.loaded(1)` before `.loaded(2)`, an order no store produces.
    @Test func aTestStoreReceivesALaterStepsImmediateActionBeforeTheAsyncEffectMergedBeforeIt() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.chainThenMergedAction)
            await store.receive(.first)
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: A throttled effect's wait given up on

    /// The store: a waiting throttled effect that is cancelled lets go of the start booked for it
    /// (`EffectLifecycle.abandonedThrottles`): the next effect throttled under its id starts at once,
    /// where with the booking kept it would be dropped (`latest: false`, one waiting).
    @Test func aStoresCancelledThrottleWaitLetsTheNextThrottledEffectStart() async {
        let handled = LockedList<Review10TestStoreAttackTests.Action>()
        let store = Review10TestStoreAttackTests.store(handled: handled)
        store.handle(action: .throttled(1))
        await Self.waitUntil { handled.values.contains(.loaded(1)) }
        store.handle(action: .throttled(2))
        store.cancel(id: Review10TestStoreAttackTests.ID.throttle)
        store.handle(action: .throttled(3))
        await Self.waitUntil { handled.values.contains(.loaded(3)) }
        #expect(handled.values.contains(.loaded(3)))
        #expect(!handled.values.contains(.loaded(2)))
    }

    /// The test store of the same handler: the receive gives up on the throttle's wait (its clock
    /// never moves) and cancels it, but `EffectQueue.finish(_:_:)` with `.gaveUp` lets go of no
    /// throttle booking (only `remove` does, for the effects it removes from the queue, and the wait
    /// was taken out of it). The next throttled effect is dropped as if one still waited, and
    /// `receive(.loaded(3))` fails a second time, saying no effect is queued.
    @Test func aTestStoresThrottleWaitGivenUpOnLetsTheNextThrottledEffectStart() async {
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: Review10TestStoreAttackTests.handler(TestClock.self),
                dependency: TestClock())
            store.effectTimeout = .milliseconds(100)
            store.send(.throttled(1))
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            store.send(.throttled(2))
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
            store.send(.throttled(3))
            await store.receive(.loaded(3)) { $0.set(value: 3, forKey: .page) }
        }
        #expect(failures.count == 1)
        #expect(failures.first?.message.contains("waits on its clock") == true)
        #expect(!failures.contains { $0.message.contains("no effect is queued") })
    }

    // MARK: cancel(id:) of the effect a receive runs

    /// The store: `cancel(id:)` of a `.run` effect that has not sent yet returns `true`, and nothing
    /// it sends afterwards is handled.
    @Test func aStoreHandlesNothingAnEffectCancelledWhileItRunsSends() async {
        let (gates, handled) = (Gates(), LockedList<Action>())
        let store = Self.store(gates: gates, handled: handled)
        store.handle(action: .gatedRun)
        #expect(store.cancel(id: ID.load))
        gates.openAll()
        await Self.waitUntil { store.runningEffectIDs.isEmpty }
        try? await Task.sleep(for: .milliseconds(50))
        #expect(handled.values == [.gatedRun])
    }

    /// The test store of the same handler: `cancel(id:)` while a `receive` runs the effect finds
    /// nothing under its id (the effect was taken out of the queue; `EffectQueue.taken` is kept but
    /// never read), so the `receive` passes, handling `.loaded(1)`, and the rest, `.loaded(2)`, is
    /// queued: a later `receive(.loaded(2))` would pass too, where a store handles neither.
    @Test func aTestStoreHandlesNothingAnEffectCancelledWhileItRunsSends() async {
        let gates = Gates()
        let failures = await captureFailures {
            let store = Self.testStore(gates: gates)
            store.send(.gatedRun)
            async let received: Void = store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            await Self.waitUntil { store.queuedEffectIDs.isEmpty }
            store.cancel(id: ID.load)
            gates.openAll()
            await received
            #expect(store.queuedEffectIDs.isEmpty, "what the cancelled effect sent is queued")
            store.cancel(id: ID.load)
        }
        #expect(failures.count == 1, "the receive of an action a store drops passed")
    }
}
