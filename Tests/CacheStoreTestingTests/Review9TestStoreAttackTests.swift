import CacheStore
import CacheStoreTesting
import Foundation
import Testing

/// Review 9's attacks on the test store's queue: what it accepts against what a store does with the
/// later steps of concatenations (and debounced and throttled effects, which are concatenations):
/// when they start, what they replace, and when their cancellations run. Each test store test has
/// its store test beside it, which shows what the store does (they pass); the test store's fail.
@Suite struct Review9TestStoreAttackTests {
    enum ID: Hashable { case load, debounce, throttle, chain }

    enum Action: Equatable, Sendable {
        case chainThenLoad
        case load
        case typed
        case thenCancelAndRestart
        case thenTwoUnderOneID
        case cancelLoadLater
        case cancelThenRestartInSteps
        case debouncedPair
        case cancelLoad
        case throttled
        case waitThenThrottled
        case loadThenCancelLoad
        case chainThenCancelLoad
        case stopChain
        case concatenationUnderLoad
        case loaded(Int)
    }

    /// Effects that wait on `gates` first: a store test holds them, a test store's are open.
    final class Gates: @unchecked Sendable {
        let first = AsyncGate()
        let standalone = AsyncGate()
        let standaloneCancelled = LockedList<Bool>()
    }

    static func handler<C: Clock<Duration> & Sendable>(_: C.Type, gates: Gates) -> StoreActionHandler<
        LoadKey, Action, C
    > {
        StoreActionHandler { state, action, clock in
            switch action {
            case .chainThenLoad:
                return .concatenate(
                    ActionEffect {
                        await gates.first.wait()
                        return .loaded(1)
                    },
                    ActionEffect(id: ID.load) { .loaded(2) })
            case .load:
                return ActionEffect(id: ID.load) {
                    await gates.standalone.wait()
                    gates.standaloneCancelled.append(Task.isCancelled)
                    return .loaded(3)
                }
            case .typed:
                return ActionEffect(id: ID.load) { .loaded(4) }
                    .debounce(id: ID.debounce, for: .milliseconds(300), clock: clock)
            case .thenCancelAndRestart:
                return .concatenate(
                    ActionEffect { .loaded(1) },
                    .merge(.cancel(id: ID.load), ActionEffect(id: ID.load) { .loaded(2) }))
            case .thenTwoUnderOneID:
                return .concatenate(
                    ActionEffect { .loaded(1) },
                    .merge(
                        ActionEffect(id: ID.load) {
                            await gates.standalone.wait()
                            gates.standaloneCancelled.append(Task.isCancelled)
                            return .loaded(5)
                        },
                        ActionEffect(id: ID.load) { .loaded(6) }))
            case .cancelThenRestartInSteps:
                return .concatenate(
                    ActionEffect { .loaded(1) }, .cancel(id: ID.load), ActionEffect(id: ID.load) { .loaded(2) })
            case .debouncedPair:
                return ActionEffect.merge(ActionEffect { .loaded(1) }, ActionEffect(id: ID.load) { .loaded(2) })
                    .debounce(id: ID.debounce, for: .milliseconds(300), clock: clock)
            case .cancelLoad:
                return .cancel(id: ID.load)
            case .throttled:
                return ActionEffect(id: ID.load) { .loaded(7) }
                    .throttle(id: ID.throttle, for: .milliseconds(100), clock: clock, latest: false)
            case .waitThenThrottled:
                return .concatenate(
                    ActionEffect {
                        try? await clock.sleep(for: .milliseconds(300))
                        return .loaded(8)
                    },
                    ActionEffect(id: ID.load) { .loaded(9) }
                        .throttle(id: ID.throttle, for: .milliseconds(100), clock: clock, latest: false))
            case .loadThenCancelLoad:
                return .concatenate(ActionEffect { .load }, .cancel(id: ID.load))
            case .chainThenCancelLoad:
                return .concatenate(id: ID.chain, ActionEffect { .stopChain }, .cancel(id: ID.load))
            case .stopChain:
                return .cancel(id: ID.chain)
            case .concatenationUnderLoad:
                return .concatenate(id: ID.load, ActionEffect { .loaded(10) })
            case .cancelLoadLater:
                return ActionEffect<Action>.cancel(id: ID.load)
                    .debounce(id: ID.debounce, for: .seconds(60), clock: clock)
            case .loaded(let value):
                state.set(value: value, forKey: .page)
            }
            return .none
        }
    }

    static func openGates() -> Gates {
        let gates = Gates()
        gates.first.open()
        gates.standalone.open()
        return gates
    }

    /// A store of ``handler(_:gates:)`` on the continuous clock; `handled` records every action.
    static func store(
        gates: Gates = openGates(), handled: LockedList<Action> = LockedList()
    ) -> Store<LoadKey, Action, ContinuousClock> {
        let base = handler(ContinuousClock.self, gates: gates)
        let recording = StoreActionHandler<LoadKey, Action, ContinuousClock> { state, action, clock in
            handled.append(action)
            return base.handle(store: &state, action: action, dependency: clock)
        }
        return Store(initialValues: [:], actionHandler: recording, dependency: ContinuousClock())
    }

    /// A test store of ``handler(_:gates:)`` with open gates, on the continuous clock.
    static func testStore() -> TestStore<LoadKey, Action, ContinuousClock> {
        TestStore(
            initialValues: [:], actionHandler: handler(ContinuousClock.self, gates: openGates()),
            dependency: ContinuousClock())
    }

    /// A test store of ``handler(_:gates:)`` with open gates, on `clock`.
    static func testStore(clock: TestClock) -> TestStore<LoadKey, Action, TestClock> {
        TestStore(initialValues: [:], actionHandler: handler(TestClock.self, gates: openGates()), dependency: clock)
    }

    /// Waits until `condition` holds, for up to 60 s; the caller's expectations then say what held.
    static func waitUntil(_ condition: () -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition(), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    // MARK: A later step that starts under the id of a running effect replaces it

    /// The store: `.load` runs (waiting) while the concatenation's first step runs; once that step
    /// ended, the second step starts under `.load`'s id and cancels the running `.load`, whose action
    /// is never handled. So a store never handles `.loaded(1)`, `.loaded(2)` and then `.loaded(3)`.
    @Test func aStoresLaterStepReplacesTheEffectRunningUnderItsID() async {
        let gates = Gates()
        let store = Self.store(gates: gates)
        store.handle(action: .chainThenLoad)
        store.handle(action: .load)
        gates.first.open()
        await Self.waitUntil { store.get(.page, as: Int.self) == 2 }
        #expect(store.get(.page, as: Int.self) == 2)
        gates.standalone.open()
        await Self.waitUntil { !gates.standaloneCancelled.values.isEmpty }
        #expect(gates.standaloneCancelled.values == [true], "the second step replaced the running .load")
    }

    /// The test store of the same handler: once `.loaded(1)` was received, the second step runs in a
    /// store's terms and replaces the `.load` effect queued (running) before it, as a new `.load`
    /// replaces it. It stayed queued: the test store accepted `.loaded(3)` after `.loaded(2)`, an
    /// order no store produces.
    @Test func aTestStoresLaterStepReplacesTheEffectQueuedUnderItsIDOnceItStarts() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.chainThenLoad)
            store.send(.load)
            #expect(store.queuedEffectIDs.count == 2, "the first step and .load; the second step has not started")
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            #expect(
                store.queuedEffectIDs == [AnyHashable(ID.load)],
                "the second step, started, still sits beside the .load it replaces in a store")
            store.cancel(id: ID.load)
        }
        #expect(failures.map(\.message) == [])
    }

    /// The same with a debounced effect: once its wait is over it starts under `.load`'s id, and a
    /// `.load` still running (queued) is replaced. The test store received both.
    @Test func aTestStoresDebouncedEffectReplacesTheEffectQueuedUnderItsIDOnceItStarts() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = Self.testStore(clock: clock)
            store.send(.typed)
            store.send(.load)
            #expect(store.queuedEffectIDs.count == 2)
            await store.receive(.loaded(4), after: .milliseconds(300), on: clock) { $0.set(value: 4, forKey: .page) }
            #expect(
                store.queuedEffectIDs.isEmpty,
                "the debounced effect, started, still sits beside the .load it replaces in a store")
            store.cancel(id: ID.load)
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: A later step that cancels an id and starts an effect under it

    /// The store: the second step's parts start in order, the cancellation first, so the effect it
    /// starts under the cancelled id runs, and its action is handled.
    @Test func aStoresLaterStepThatCancelsThenStartsUnderOneIDDeliversTheNewEffect() async {
        let store = Self.store()
        store.handle(action: .thenCancelAndRestart)
        await Self.waitUntil { store.get(.page, as: Int.self) == 2 }
        #expect(store.get(.page, as: Int.self) == 2)
    }

    /// The test store of the same handler: the step's cancellation waits for the first step (see
    /// `DeferredCancel`), and is applied after every part of its step was queued, so it removed the
    /// effect its own step started after it: `receive(.loaded(2))` failed, "no effect is queued",
    /// where a store handles `.loaded(2)`.
    @Test func aTestStoresLaterStepThatCancelsThenStartsUnderOneIDKeepsTheNewEffect() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.thenCancelAndRestart)
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// The same with the cancellation and the new effect in steps of their own, a natural way to
    /// write "stop it, then start it again": the test store removed the third step's effect when
    /// it applied the second step's cancellation, as nothing of the cancellation's step is queued to
    /// keep the third step from counting as started.
    @Test func aTestStoresCancelStepThenAStepUnderTheCancelledIDKeepsTheNewEffect() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.cancelThenRestartInSteps)
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// Its store: the third step's effect runs after the cancellation, and delivers.
    @Test func aStoresCancelStepThenAStepUnderTheCancelledIDDeliversTheNewEffect() async {
        let store = Self.store()
        store.handle(action: .cancelThenRestartInSteps)
        await Self.waitUntil { store.get(.page, as: Int.self) == 2 }
        #expect(store.get(.page, as: Int.self) == 2)
    }

    // MARK: Two effects under one id in a later step

    /// The store: of two effects under one id that one step starts, the second replaces the first,
    /// which is cancelled (its action is never handled).
    @Test func aStoresLaterStepWithTwoEffectsUnderOneIDCancelsTheFirst() async {
        let gates = Gates()
        gates.first.open()
        let store = Self.store(gates: gates)
        store.handle(action: .thenTwoUnderOneID)
        await Self.waitUntil { store.get(.page, as: Int.self) == 6 }
        #expect(store.get(.page, as: Int.self) == 6)
        gates.standalone.open()
        await Self.waitUntil { !gates.standaloneCancelled.values.isEmpty }
        #expect(gates.standaloneCancelled.values == [true], "the second effect under .load replaced the first")
    }

    /// The test store of the same handler: the second effect under `.load` is queued while the first
    /// step is, so it replaces nothing then, and nothing replaces the first once the step runs: the
    /// test store accepted `.loaded(5)`, which a store never handles.
    @Test func aTestStoresLaterStepWithTwoEffectsUnderOneIDQueuesTheSecondOnly() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.thenTwoUnderOneID)
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            #expect(store.queuedEffectIDs == [AnyHashable(ID.load)], "the step's first .load still queued")
            store.cancel(id: ID.load)
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: A debounced cancellation

    /// The store: a debounced `.cancel(id:)` cancels once its wait is over; the effect it names runs
    /// and delivers meanwhile. (The store is released at the end, which ends the wait.)
    @Test func aStoresDebouncedCancelLeavesTheEffectRunningUntilItsWaitIsOver() async {
        let gates = Gates()
        let store = Self.store(gates: gates)
        store.handle(action: .load)
        store.handle(action: .cancelLoadLater)
        gates.standalone.open()
        await Self.waitUntil { store.get(.page, as: Int.self) == 3 }
        #expect(store.get(.page, as: Int.self) == 3)
        #expect(gates.standaloneCancelled.values == [false])
    }

    /// The test store of the same handler: the debounced cancellation was applied at once, before its
    /// wait, and removed `.load`: `receive(.loaded(3))` failed with "no effect is queued", where a
    /// store handles `.loaded(3)`. (The cancellation's wait is dropped: nothing waits for it.)
    @Test func aTestStoresDebouncedCancelWaitsForItsWait() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = Self.testStore(clock: clock)
            store.send(.load)
            store.send(.cancelLoadLater)
            await store.receive(.loaded(3)) { $0.set(value: 3, forKey: .page) }
            store.cancel(id: ID.debounce)
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: A debounced merge

    /// The store: both parts of a debounced merge start once the wait is over; a `.cancel(id:)` of
    /// the second part's id during the wait finds nothing running, and both deliver.
    @Test func aStoresDebouncedMergeStartsBothPartsAfterTheWait() async {
        let store = Self.store()
        store.handle(action: .debouncedPair)
        store.handle(action: .cancelLoad)
        await Self.waitUntil { store.get(.page, as: Int.self) == 2 }
        #expect(store.get(.page, as: Int.self) == 2)
    }

    /// The test store of the same handler: the wait was given to the merge's first part only (taken
    /// by it), so the second counted as running at once, and the cancellation removed it:
    /// `receive(.loaded(2))` failed with "no effect is queued".
    @Test func aTestStoresDebouncedMergeStartsNeitherPartBeforeTheWait() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = Self.testStore(clock: clock)
            store.send(.debouncedPair)
            store.send(.cancelLoad)
            await store.receive(.loaded(1), after: .milliseconds(300), on: clock) { $0.set(value: 1, forKey: .page) }
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: A throttled later step

    /// The store: a throttled effect in a concatenation's later step is decided when the step starts,
    /// 300 ms later, when the throttle's last booked start (100 ms, for the second throttled effect)
    /// and its interval are over: it runs.
    @Test func aStoresThrottledLaterStepIsDecidedWhenItStarts() async {
        let store = Self.store()
        store.handle(action: .throttled)
        store.handle(action: .throttled)
        store.handle(action: .waitThenThrottled)
        await Self.waitUntil { store.get(.page, as: Int.self) == 9 }
        #expect(store.get(.page, as: Int.self) == 9)
    }

    /// The test store of the same handler: it decided the later step's throttle when the action was
    /// sent, before the start booked for the second throttled effect, and dropped it (`latest: false`):
    /// `receive(.loaded(9))` failed with "no effect is queued", where a store handles `.loaded(9)`
    /// once the first step's 300 ms are over.
    @Test func aTestStoresThrottledLaterStepIsDecidedWhenItStarts() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = Self.testStore(clock: clock)
            store.send(.throttled)
            await store.receive(.loaded(7)) { $0.set(value: 7, forKey: .page) }
            store.send(.throttled)
            store.send(.waitThenThrottled)
            await store.receive(.loaded(7), after: .milliseconds(100), on: clock)
            await store.receive(.loaded(8), after: .milliseconds(300), on: clock) { $0.set(value: 8, forKey: .page) }
            await store.receive(.loaded(9)) { $0.set(value: 9, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: A cancel step after a step whose action starts what it cancels

    /// The store: the first step's action, `.load`, is handled (starting the `.load` effect) before
    /// the first step ends; then the second step cancels `.load`, the effect just started.
    @Test func aStoresCancelStepCancelsWhatTheStepBeforeItsActionStarted() async {
        let gates = Gates()
        let handled = LockedList<Action>()
        let store = Self.store(gates: gates, handled: handled)
        store.handle(action: .loadThenCancelLoad)
        // The `.load` effect waits on its gate: it leaves the running effects only when cancelled.
        await Self.waitUntil { handled.values.contains(.load) && !store.runningEffectIDs.contains(ID.load) }
        gates.standalone.open()
        await Self.waitUntil { !gates.standaloneCancelled.values.isEmpty }
        #expect(gates.standaloneCancelled.values == [true], "the cancel step cancelled the .load just started")
    }

    /// The test store of the same handler: receiving `.load` applies the due cancellation before the
    /// effect `.load` returns is queued (``TestStore`` applies due cancellations first thing when it
    /// queues), so the cancellation misses it and the test store expects `.loaded(3)`, which a store
    /// never handles.
    @Test func aTestStoresCancelStepCancelsWhatTheStepBeforeItsActionStarted() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.loadThenCancelLoad)
            await store.receive(.load)
            #expect(store.queuedEffectIDs.isEmpty, "the cancel step left the .load its step before started")
            store.cancel(id: ID.load)
        }
        #expect(failures.map(\.message) == [])
    }

    /// The store: the first step's action cancels its own concatenation, so the cancel step after it
    /// never runs, and `.load` delivers.
    @Test func aStoresConcatenationCancelledByItsFirstStepsActionNeverRunsItsCancelStep() async {
        let gates = Gates()
        let store = Self.store(gates: gates)
        store.handle(action: .chainThenCancelLoad)
        store.handle(action: .load)
        await Self.waitUntil { !store.runningEffectIDs.contains(ID.chain) }
        gates.standalone.open()
        await Self.waitUntil { store.get(.page, as: Int.self) == 3 }
        #expect(store.get(.page, as: Int.self) == 3)
        #expect(gates.standaloneCancelled.values == [false])
    }

    /// The test store of the same handler: receiving `.stopChain` applies the cancel step, due once
    /// the first step was received, before the effect `.stopChain` returns (the concatenation's
    /// cancellation) is queued: `.load` is removed, and `receive(.loaded(3))` fails with "no effect
    /// is queued", where a store handles `.loaded(3)`.
    @Test func aTestStoresConcatenationCancelledByItsFirstStepsActionNeverRunsItsCancelStep() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.chainThenCancelLoad)
            store.send(.load)
            await store.receive(.stopChain)
            await store.receive(.loaded(3)) { $0.set(value: 3, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: A concatenation started under the id of a later step

    /// The store: a concatenation started under `.load` while another concatenation's later step
    /// under `.load` has not started replaces nothing of it: that step starts in its turn, and
    /// delivers `.loaded(2)`.
    @Test func aStoresConcatenationLeavesALaterStepUnderItsIDThatHasNotStarted() async {
        let handled = LockedList<Action>()
        let gates = Gates()
        let store = Self.store(gates: gates, handled: handled)
        store.handle(action: .chainThenLoad)
        store.handle(action: .concatenationUnderLoad)
        gates.first.open()
        await Self.waitUntil { handled.values.contains(.loaded(2)) }
        #expect(handled.values.contains(.loaded(2)))
    }

    /// The test store of the same handler: the new concatenation removed every queued effect under
    /// `.load` (`removeComposition`), the later step that has not started among them: it is never
    /// received, where a store handles `.loaded(2)`. (A handler's `.cancel(id:)` leaves such a step,
    /// see `aCancelLeavesADebouncedEffectStillWaitingQueued`; starting a concatenation did not.)
    /// Cancelling `.load` cancels the new concatenation, which runs under it, and not the step that
    /// has not started: that one starts in its turn, as in a store.
    @Test func aTestStoresConcatenationLeavesALaterStepUnderItsIDThatHasNotStarted() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.chainThenLoad)
            store.send(.concatenationUnderLoad)
            #expect(store.queuedEffectIDs.count == 2, "the first step, and the new concatenation's")
            store.cancel(id: ID.load)
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: The message of a debounced effect received without moving its clock

    /// A debounced effect on a test clock, received with `receive(_:)` (no `after:on:`): it waits on
    /// the clock, which nothing moves, until the effect timeout. The test store knows the effect
    /// waits first (`QueuedEffect.waitsFirst`), yet its message says only that the effect did not
    /// finish and to "raise effectTimeout", which cannot help: the fix is `receive(_:after:on:)`.
    @Test func aDebouncedEffectReceivedWithoutMovingItsClockSaysToMoveTheClock() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = Self.testStore(clock: clock)
            store.effectTimeout = .milliseconds(300)
            store.send(.typed)
            await store.receive(.loaded(4)) { $0.set(value: 4, forKey: .page) }
        }
        #expect(failures.count == 1)
        let message = failures.first?.message ?? ""
        #expect(message.contains("after:"), "the message does not point at receive(_:after:on:): \(message)")
    }
}

/// A gate an effect awaits; open for good once opened.
final class AsyncGate: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func open() {
        let waiting = lock.withLock {
            isOpen = true
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if isOpen {
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }
}
