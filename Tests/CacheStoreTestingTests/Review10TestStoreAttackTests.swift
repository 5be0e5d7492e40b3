import CacheStore
import CacheStoreTesting
import Foundation
import Testing

/// Review 10's attacks on the test store's queue (`EffectQueue`, `RunningConcatenation`): what it
/// accepts against what a store does. Each test store test has its store test beside it, which shows
/// what the store does (they pass); the test store's fail.
@Suite struct Review10TestStoreAttackTests {
    enum ID: Hashable { case chain, outer, inner, throttle, load, debounce, slow, fast }

    enum Action: Equatable, Sendable {
        case selfCancellingChain
        case selfCancellingStep
        case parentCancellingChain
        case throttled(Int)
        case throttledInChain
        case stopChain
        case stopThrottle
        case quietDebounced
        case slowDebounced
        case fastDebounced
        case stuckThenLoad
        case effectThenAction
        case chainOfTwo
        case streamOfTwo
        case first
        case second
        case loaded(Int)
    }

    static func handler<C: Clock<Duration> & Sendable>(_: C.Type) -> StoreActionHandler<LoadKey, Action, C> {
        StoreActionHandler { state, action, clock in
            switch action {
            case .selfCancellingChain:
                // The second step cancels the concatenation it is a step of: the third never starts.
                return .concatenate(
                    id: ID.chain, ActionEffect { .loaded(1) }, .cancel(id: ID.chain), ActionEffect { .loaded(2) })
            case .selfCancellingStep:
                // The second step cancels its own concatenation, then starts an effect in it.
                return .concatenate(
                    id: ID.chain, ActionEffect { .loaded(1) },
                    .merge(.cancel(id: ID.chain), ActionEffect { .loaded(2) }))
            case .parentCancellingChain:
                // A concatenation in the second step cancels the concatenation it runs in.
                return .concatenate(
                    id: ID.outer, ActionEffect { .loaded(1) }, .concatenate(id: ID.inner, .cancel(id: ID.outer)),
                    ActionEffect { .loaded(2) })
            case .throttled(let value):
                return ActionEffect(id: ID.load) { .loaded(value) }
                    .throttle(id: ID.throttle, for: .seconds(30), clock: clock, latest: false)
            case .throttledInChain:
                return .concatenate(
                    id: ID.chain,
                    ActionEffect(id: ID.load) { .loaded(9) }
                        .throttle(id: ID.throttle, for: .seconds(30), clock: clock, latest: false))
            case .stopChain:
                return .cancel(id: ID.chain)
            case .stopThrottle:
                return .cancel(id: ID.throttle)
            case .quietDebounced:
                return ActionEffect(id: ID.load) { nil }
                    .debounce(id: ID.debounce, for: .milliseconds(300), clock: clock)
            case .slowDebounced:
                return ActionEffect { .loaded(1) }.debounce(id: ID.slow, for: .milliseconds(300), clock: clock)
            case .fastDebounced:
                return ActionEffect { .loaded(2) }.debounce(id: ID.fast, for: .milliseconds(100), clock: clock)
            case .stuckThenLoad:
                // The first step runs until cancelled (a store test releases the store, which cancels it).
                return .concatenate(
                    ActionEffect {
                        try? await Task.sleep(for: .seconds(3600))
                        return nil
                    }, ActionEffect { .loaded(2) })
            case .effectThenAction:
                return .merge(ActionEffect { .loaded(1) }, ActionEffect(.loaded(2)))
            case .chainOfTwo:
                return .concatenate(ActionEffect { .first }, ActionEffect { .second })
            case .streamOfTwo:
                return .run { send in
                    send(.first)
                    send(.second)
                }
            case .first:
                return ActionEffect(.loaded(3))
            case .second:
                return .none
            case .loaded(let value):
                state.set(value: value, forKey: .page)
            }
            return .none
        }
    }

    /// A store of ``handler(_:)`` on `clock`; `handled` records every action.
    static func store<C: Clock<Duration> & Sendable>(
        clock: C, handled: LockedList<Action> = LockedList()
    ) -> Store<LoadKey, Action, C> {
        let base = handler(C.self)
        let recording = StoreActionHandler<LoadKey, Action, C> { state, action, clock in
            handled.append(action)
            return base.handle(store: &state, action: action, dependency: clock)
        }
        return Store(initialValues: [:], actionHandler: recording, dependency: clock)
    }

    /// A store of ``handler(_:)`` on the continuous clock; `handled` records every action.
    static func store(handled: LockedList<Action> = LockedList()) -> Store<LoadKey, Action, ContinuousClock> {
        store(clock: ContinuousClock(), handled: handled)
    }

    /// A test store of ``handler(_:)`` on `clock`.
    static func testStore(clock: TestClock = TestClock()) -> TestStore<LoadKey, Action, TestClock> {
        TestStore(initialValues: [:], actionHandler: handler(TestClock.self), dependency: clock)
    }

    /// Waits until `condition` holds, for up to 60 s; the caller's expectations then say what held.
    static func waitUntil(_ condition: () -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition(), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    // MARK: A step that cancels its own concatenation

    /// The store: the second step's `.cancel(id:)` cancels the concatenation it is a step of, so the
    /// third step never starts. Once the concatenation has left the running effects, nothing of it
    /// can start any more: `.loaded(2)` was never handled.
    @Test func aStoresStepThatCancelsItsOwnConcatenationEndsIt() async {
        let handled = LockedList<Action>()
        let store = Self.store(handled: handled)
        store.handle(action: .selfCancellingChain)
        await Self.waitUntil { !store.runningEffectIDs.contains(ID.chain) }
        #expect(handled.values == [.selfCancellingChain, .loaded(1)])
    }

    /// The test store of the same handler: when the second step starts, no part of the concatenation
    /// is queued (the first step's was received), and `EffectQueue.concatenations(named:)` finds a
    /// running concatenation only through its queued parts or the effect a `receive` runs: the
    /// cancellation finds nothing, and the third step starts. The test store expects `.loaded(2)`,
    /// which a store never handles (left over when the test store ends).
    @Test func aTestStoresStepThatCancelsItsOwnConcatenationEndsIt() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.selfCancellingChain)
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            #expect(store.queuedEffectIDs.isEmpty, "the third step started after its concatenation was cancelled")
        }
        #expect(failures.map(\.message) == [])
    }

    /// The store: a step that cancels its own concatenation, then starts an effect in it: the effect
    /// is not started, as its concatenation was cancelled (`EffectLifecycle.start`, `.part(of:)`).
    @Test func aStoresStepThatCancelsItsConcatenationStartsNothingAfterTheCancel() async {
        let handled = LockedList<Action>()
        let store = Self.store(handled: handled)
        store.handle(action: .selfCancellingStep)
        await Self.waitUntil { !store.runningEffectIDs.contains(ID.chain) }
        #expect(handled.values == [.selfCancellingStep, .loaded(1)])
    }

    /// The test store of the same handler: the effect after the cancel in the same step is queued.
    @Test func aTestStoresStepThatCancelsItsConcatenationStartsNothingAfterTheCancel() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.selfCancellingStep)
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            #expect(store.queuedEffectIDs.isEmpty, "the step's effect started after its concatenation was cancelled")
        }
        #expect(failures.map(\.message) == [])
    }

    /// The store: a concatenation in a step cancels the concatenation it runs in: the outer one's
    /// third step never starts.
    @Test func aStoresStepThatCancelsItsParentConcatenationEndsIt() async {
        let handled = LockedList<Action>()
        let store = Self.store(handled: handled)
        store.handle(action: .parentCancellingChain)
        await Self.waitUntil { !store.runningEffectIDs.contains(ID.outer) }
        #expect(handled.values == [.parentCancellingChain, .loaded(1)])
    }

    /// The test store of the same handler: neither concatenation has a queued part when the inner
    /// one's cancellation runs, so it cancels nothing, and the outer one's third step starts.
    @Test func aTestStoresStepThatCancelsItsParentConcatenationEndsIt() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.parentCancellingChain)
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            #expect(store.queuedEffectIDs.isEmpty, "the outer concatenation's third step started after its cancel")
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: A waiting throttled effect cancelled with its concatenation

    /// The store: a throttled effect waiting in a concatenation is cancelled with the concatenation;
    /// the lifecycle counts it abandoned (`EffectLifecycle.cancelTree`), and the throttle schedule
    /// forgets the start booked for it: the next throttled effect under its id starts at once.
    @Test func aStoresThrottledEffectCancelledWithItsConcatenationFreesTheThrottle() async {
        let store = Self.store()
        store.handle(action: .throttled(1))
        await Self.waitUntil { store.get(.page, as: Int.self) == 1 }
        store.handle(action: .throttledInChain)  // 30 s after the first start at the earliest: it waits
        store.handle(action: .stopChain)
        store.handle(action: .throttled(3))
        await Self.waitUntil { store.get(.page, as: Int.self) == 3 }
        #expect(store.get(.page, as: Int.self) == 3)
    }

    /// The test store of the same handler: cancelling the concatenation removes the waiting throttled
    /// effect (as a part of it) but leaves its booked start in the schedule (`EffectQueue.cancel`
    /// forgets the throttle of the cancelled id only), so the next throttled effect is dropped
    /// (`latest: false`, before the booked start): `receive(.loaded(3))` fails with "no effect is
    /// queued", where a store handles `.loaded(3)` at once.
    @Test func aTestStoresThrottledEffectCancelledWithItsConcatenationFreesTheThrottle() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.throttled(1))
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            store.send(.throttledInChain)
            #expect(store.queuedEffectIDs == [AnyHashable(ID.throttle)], "the throttled effect waits")
            store.send(.stopChain)
            store.send(.throttled(3))
            await store.receive(.loaded(3)) { $0.set(value: 3, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: runEffectExpectingNoAction on a debounced effect

    /// A debounced effect without an action, on a test clock, run by `runEffectExpectingNoAction()`
    /// without moving the clock: it fails once the effect timeout passes, and its message says to use
    /// `receive(_:after:on:)`, which expects an action and so cannot run this effect. What works is
    /// moving the clock first (`advance(by:)`), shown by the second half of the test.
    @Test func runEffectExpectingNoActionOnAWaitSaysToAdvanceTheClock() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = Self.testStore(clock: clock)
            store.effectTimeout = .milliseconds(200)
            store.send(.quietDebounced)
            await store.runEffectExpectingNoAction()
        }
        #expect(failures.count == 1)
        let message = failures.first?.message ?? ""
        #expect(!message.contains("receive(_:after:on:)"), "points at a receive, for an effect without action")
        #expect(message.contains("advance(by:)"), "does not say to advance the clock: \(message)")
    }

    /// What the message should say works: the clock moved past the wait, the effect runs.
    @Test func aDebouncedEffectWithoutActionRunsOnceTheClockWasAdvanced() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = Self.testStore(clock: clock)
            store.send(.quietDebounced)
            await clock.advance(by: .milliseconds(300))
            await store.runEffectExpectingNoAction()
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: Two waits, the later one ending first

    /// The store, on a test clock: of two debounced effects, the one sent second waits less; moving
    /// the clock past its wait only starts it, and it delivers `.loaded(2)` while the first still
    /// waits.
    @Test func aStoresShorterWaitSentSecondDeliversFirst() async {
        let clock = TestClock()
        let handled = LockedList<Action>()
        let store = Self.store(clock: clock, handled: handled)
        store.handle(action: .slowDebounced)
        store.handle(action: .fastDebounced)
        await clock.advance(by: .milliseconds(100))
        await Self.waitUntil { store.get(.page, as: Int.self) == 2 }
        #expect(handled.values == [.slowDebounced, .fastDebounced, .loaded(2)])
    }

    /// The test store of the same handler: `receive(_:after:on:)` takes the oldest queued effect
    /// (`EffectQueue.takeFirst`, not skipping waits when a clock is advanced), the first debounce's
    /// wait, moves the clock past the second's wait only, and waits for the first's until the effect
    /// timeout: it fails ("waits on its clock ... Advance the clock") where a store delivers
    /// `.loaded(2)`, and the given-up wait cancels the first debounce, which a store still runs.
    ///
    /// Now a queued wait knows its deadline (`EffectWait`): a `receive` that advances a clock takes
    /// the wait that advance ends first.
    @Test func aTestStoresShorterWaitSentSecondIsReceivedFirst() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = Self.testStore(clock: clock)
            store.effectTimeout = .milliseconds(500)
            store.send(.slowDebounced)
            store.send(.fastDebounced)
            await store.receive(.loaded(2), after: .milliseconds(100), on: clock) { $0.set(value: 2, forKey: .page) }
            await store.receive(.loaded(1), after: .milliseconds(200), on: clock) { $0.set(value: 1, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: An action effect merged after an async one

    /// The store: an action effect is handled right after the current action, before the outermost
    /// `handle(action:)` returns (its documentation), so before any action of an async effect merged
    /// before it, whose task is made once the turn ends.
    @Test func aStoreHandlesAMergedActionEffectBeforeTheAsyncEffectMergedBeforeIt() async {
        let handled = LockedList<Action>()
        let store = Self.store(handled: handled)
        store.handle(action: .effectThenAction)
        await Self.waitUntil { handled.values.count == 3 }
        #expect(handled.values == [.effectThenAction, .loaded(2), .loaded(1)])
    }

    /// The test store of the same handler: it queues the parts in the merge's order, the async effect
    /// first, so it asks for `.loaded(1)` before `.loaded(2)`, an order no store produces:
    /// `receive(.loaded(2))` fails with "Received an unexpected action".
    @Test func aTestStoreReceivesAMergedActionEffectBeforeTheAsyncEffectMergedBeforeIt() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.effectThenAction)
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: An action effect returned by the handler of an effect's action

    /// The store: `.first`, the first step's action, returns an action effect, `.loaded(3)`, queued
    /// in the turn that handles `.first` and so handled before the second step (started once the
    /// first has ended, after `.first` was handled) can deliver `.second`.
    @Test func aStoreHandlesAnActionEffectOfAStepsActionBeforeTheNextStep() async {
        let handled = LockedList<Action>()
        let store = Self.store(handled: handled)
        store.handle(action: .chainOfTwo)
        await Self.waitUntil { handled.values.count == 4 }
        #expect(handled.values == [.chainOfTwo, .first, .loaded(3), .second])
    }

    /// The test store of the same handler: it queues `.loaded(3)` at the end, then (ending the first
    /// step) starts the second step at the front, before it: it asks for `.second` before
    /// `.loaded(3)`, an order no store produces.
    @Test func aTestStoreReceivesAnActionEffectOfAStepsActionBeforeTheNextStep() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.chainOfTwo)
            await store.receive(.first)
            await store.receive(.loaded(3)) { $0.set(value: 3, forKey: .page) }
            await store.receive(.second)
        }
        #expect(failures.map(\.message) == [])
    }

    /// The store: a `.run` effect's `send` returns once its action was handled, with the action
    /// effect that action returned: `.loaded(3)` is handled before `.second` is sent.
    @Test func aStoreHandlesAnActionEffectOfARunsActionBeforeItsNextAction() async {
        let handled = LockedList<Action>()
        let store = Self.store(handled: handled)
        store.handle(action: .streamOfTwo)
        await Self.waitUntil { handled.values.count == 4 }
        #expect(handled.values == [.streamOfTwo, .first, .loaded(3), .second])
    }

    /// The test store of the same handler: the rest of the `.run` effect's actions are queued at the
    /// front before `.first` is handled, and `.loaded(3)` at the end: it asks for `.second` first.
    @Test func aTestStoreReceivesAnActionEffectOfARunsActionBeforeItsNextAction() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.streamOfTwo)
            await store.receive(.first)
            await store.receive(.loaded(3)) { $0.set(value: 3, forKey: .page) }
            await store.receive(.second)
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: A step that times out

    /// The store: a concatenation whose first step does not end never starts its second step; it
    /// still runs, and nothing of the second step was handled.
    @Test func aStoresStepThatDoesNotEndKeepsItsConcatenationWaiting() async {
        let handled = LockedList<Action>()
        let store = Self.store(handled: handled)
        store.handle(action: .stuckThenLoad)
        try? await Task.sleep(for: .milliseconds(200))
        #expect(handled.values == [.stuckThenLoad])
        #expect(store.runningEffectIDs.count == 2, "the concatenation and its first step's effect")
    }

    /// The test store of the same handler: `receive` gives up on the first step after the effect
    /// timeout (one failure, rightly), then ends it as if it had ended (`endEffect`, `finish` with
    /// no wait): the second step starts, and is reported left over when the test store ends, a
    /// second failure for an effect no store would start. A wait given up on ends its concatenation
    /// instead, "as nothing after it can start" (`EffectQueue.finish`); the same holds here.
    @Test func aTestStoresStepThatTimesOutStartsNoLaterStep() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.effectTimeout = .milliseconds(200)
            store.send(.stuckThenLoad)
            await store.receive(.loaded(1))
            #expect(store.queuedEffectIDs.isEmpty, "the step after the one given up on started")
        }
        #expect(failures.count == 1, "\(failures.map(\.message))")
        #expect(failures.first?.message.contains("did not finish within") == true)
    }

    // MARK: A wait left over

    /// A debounced effect left queued on a test clock: the leftover's message says to receive its
    /// action with `receive(_:)`, which, not moving the clock, fails after the effect timeout; the
    /// way is `receive(_:after:on:)` (as the message of that failure then says).
    @Test func aLeftoverWaitSaysToReceiveItAfterMovingTheClock() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.slowDebounced)
        }
        #expect(failures.count == 1)
        let message = failures.first?.message ?? ""
        #expect(message.contains("receive(_:after:on:)"), "does not point at receive(_:after:on:): \(message)")
    }

    // MARK: A throttle's booked start released inside the queue's lock

    /// The test store, weakly, for the probes its clock's instants carry.
    final class TestStoreReference: @unchecked Sendable {
        weak var store: TestStore<LoadKey, Action, ProbeClock>?
    }

    /// The store, weakly, for the probes its clock's instants carry.
    final class StoreReference: @unchecked Sendable {
        weak var store: Store<LoadKey, Action, ProbeClock>?
    }

    /// The store: `.cancel(id:)` of a throttle's id forgets its booked start, whose instants (a
    /// user's clock's) are released with no lock held (`ThrottleSchedule.forget`, and the store calls
    /// it outside its runner's lock): a probe in an instant reads the store from another thread.
    @Test func aStoresForgottenThrottleBookingIsReleasedOutsideItsLocks() async {
        let probes = TestStoreReleaseTests.Probes<Bool>()
        let reference = StoreReference()
        let clock = ProbeClock {
            probes.read("runningEffectIDs") {
                _ = reference.store?.runningEffectIDs
                return true
            }
        }
        let store = Self.store(clock: clock)
        reference.store = store
        store.handle(action: .throttled(1))
        store.handle(action: .stopThrottle)
        await Self.waitUntil { !probes.seen.values.isEmpty }
        #expect(probes.blocked.values.isEmpty, "an instant was released inside a lock of the store")
        #expect(probes.seen.values == [true], "the booked start's instants were released once")
    }

    /// The test store of the same handler: `EffectQueue.cancel` calls `ThrottleSchedule.forget` inside
    /// the test store's queue lock (`changingQueue`), so the booking's instants are released there;
    /// the probe's read of `queuedEffectIDs` blocks until the lock is left (here it gives up after
    /// 2 s; on the same thread it is a deadlock). `TestStore.cancel(id:)` takes the same path, and
    /// `ThrottleSchedule.start`, called by a throttle deciding under that lock, releases the bookings it
    /// replaces there too.
    @Test func aTestStoresForgottenThrottleBookingIsReleasedOutsideTheQueuesLock() {
        let probes = TestStoreReleaseTests.Probes<[AnyHashable]>()
        let reference = TestStoreReference()
        let clock = ProbeClock { probes.read("queuedEffectIDs") { reference.store?.queuedEffectIDs ?? [] } }
        let store = TestStore(initialValues: [:], actionHandler: Self.handler(ProbeClock.self), dependency: clock)
        reference.store = store
        store.send(.throttled(1))
        store.send(.stopThrottle)
        #expect(probes.blocked.values.isEmpty, "an instant was released inside the queue's lock")
        #expect(probes.seen.values == [[]], "the booked start's instants were released once, the queue empty")
    }
}

/// A clock that never waits, whose every instant is at its start and carries a probe: once the last
/// copy of an instant is released, its probe runs `onRelease`.
struct ProbeClock: Clock {
    struct Instant: InstantProtocol {
        var offset: Duration
        var probe: TestStoreReleaseTests.Probe

        func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration, probe: probe)
        }

        func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }

        static func == (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset == rhs.offset
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(offset)
        }
    }

    let onRelease: @Sendable () -> Void

    var now: Instant {
        Instant(offset: .zero, probe: TestStoreReleaseTests.Probe(onRelease))
    }

    var minimumResolution: Duration {
        .nanoseconds(1)
    }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
}
