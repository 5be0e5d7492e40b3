import CacheStore
import CacheStoreTesting
import Foundation
import Testing

/// Review 14's attacks on the test store's queue (`EffectQueue`, `RunningConcatenation`) and its
/// `receive`: what it accepts against what a store does, or what its documentation promises. Each
/// test store test has a store test (or a documented counterpart) beside it, which passes; the test
/// store's fail.
@Suite struct Review14TestStoreAttackTests {
    enum ID: Hashable { case search, throttle, slow, fast }

    enum Action: Hashable, Sendable {
        case sleepyDebounced
        case hangingChain
        case hangOffClock
        case sleepyThrottled(Int)
        case gatedDebounced
        case slowDebounced
        case fastDebounced
        case sleeper
        case plain
        case sendThenListen
        case found
        case loaded(Int)
    }

    /// A concatenation's id that runs `onRelease` when the last copy of it is released. All are equal,
    /// so a new one names the running one.
    final class ProbedID: Hashable, @unchecked Sendable {
        let onRelease: @Sendable () -> Void
        init(_ onRelease: @escaping @Sendable () -> Void = {}) { self.onRelease = onRelease }
        deinit { onRelease() }
        static func == (lhs: ProbedID, rhs: ProbedID) -> Bool { true }
        func hash(into hasher: inout Hasher) {}
    }

    /// What the handler's effects reach: the clock, a gate, the probe to put in `.hangingChain`'s id,
    /// and whether the hanging step has returned.
    struct Tools: Sendable {
        var clock = TestClock()
        var gate = AsyncGate()
        var onRelease: @Sendable () -> Void = {}
        var hangEnded = LockedList<Bool>()
        /// The throttled effects cancelled while they slept, by value.
        var cancelled = LockedList<Int>()
        /// How many times `.gatedDebounced`'s effect has started.
        var started = LockedList<Bool>()
    }

    static func handler(_ tools: Tools) -> StoreActionHandler<LoadKey, Action, Void> {
        StoreActionHandler { state, action, _ in
            switch action {
            case .sleepyDebounced:
                // A debounced effect that itself sleeps on the clock once its debounce is over: a
                // timeout, a polling delay, the article's own lookup effect behind a `.debounce`.
                let clock = tools.clock
                return ActionEffect {
                    do { try await clock.sleep(for: .seconds(1)) } catch { return nil }
                    return .found
                }
                .debounce(id: ID.search, for: .milliseconds(300), clock: clock)
            case .hangingChain:
                // A concatenation (its id probed) whose only step does not end until it is cancelled.
                let ended = tools.hangEnded
                return .concatenate(
                    id: ProbedID(tools.onRelease),
                    ActionEffect {
                        try? await Task.sleep(for: .seconds(60))
                        ended.append(true)
                        return nil
                    })
            case .hangOffClock:
                // Neither ends nor sleeps on the clock until the gate opens.
                let gate = tools.gate
                return ActionEffect {
                    await gate.wait()
                    return .loaded(1)
                }
            case .sleepyThrottled(let value):
                // A throttled effect that sleeps on the clock for 2 s: longer than the throttle's 1 s,
                // so the next one's wait ends while it sleeps, and cancels it ("cancel in flight").
                let (clock, cancelled) = (tools.clock, tools.cancelled)
                return ActionEffect {
                    do { try await clock.sleep(for: .seconds(2)) } catch {
                        cancelled.append(value)
                        return nil
                    }
                    return .loaded(value)
                }
                .throttle(id: ID.throttle, for: .seconds(1), clock: clock, latest: true)
            case .gatedDebounced:
                let (gate, started) = (tools.gate, tools.started)
                return ActionEffect {
                    started.append(true)
                    await gate.wait()
                    return .found
                }
                .debounce(id: ID.search, for: .milliseconds(300), clock: tools.clock)
            case .slowDebounced:
                return ActionEffect { .loaded(5) }.debounce(id: ID.slow, for: .milliseconds(500), clock: tools.clock)
            case .fastDebounced:
                return ActionEffect { .loaded(1) }.debounce(id: ID.fast, for: .milliseconds(100), clock: tools.clock)
            case .sleeper:
                // The article's way to wait: an effect that sleeps on the clock itself.
                let clock = tools.clock
                return ActionEffect {
                    do { try await clock.sleep(for: .milliseconds(100)) } catch { return nil }
                    return .loaded(7)
                }
            case .plain:
                return ActionEffect { .loaded(3) }
            case .sendThenListen:
                // A stream: sends an action at once, then listens for more that never come in a test.
                return .run { send in
                    send(.loaded(1))
                    try? await Task.sleep(for: .seconds(60))
                }
            case .found:
                state.set(value: true, forKey: .items)
            case .loaded(let value):
                state.set(value: value, forKey: .page)
            }
            return .none
        }
    }

    /// A store of ``handler(_:)``; `handled` records every action.
    static func store(_ tools: Tools, handled: LockedList<Action>) -> Store<LoadKey, Action, Void> {
        let base = handler(tools)
        let recording = StoreActionHandler<LoadKey, Action, Void> { state, action, dependency in
            handled.append(action)
            return base.handle(store: &state, action: action, dependency: dependency)
        }
        return Store(initialValues: [:], actionHandler: recording, dependency: ())
    }

    static func testStore(_ tools: Tools) -> TestStore<LoadKey, Action, Void> {
        TestStore(initialValues: [:], actionHandler: handler(tools), dependency: ())
    }

    /// Runs `body` on a thread of its own, off the concurrency pool: where a probe may wait for
    /// another thread's read without blocking a thread of the pool.
    static func onOwnThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    /// Blocks this thread (one of its own, see ``onOwnThread(_:)``) until `condition` holds, for up to
    /// 10 s.
    static func blockUntil(_ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(10)
        while !condition(), Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
    }

    // MARK: A debounced effect that sleeps on the clock

    /// The store: once the clock has passed the debounce's 300 ms, the debounced effect starts and
    /// sleeps on the clock for 1 s; once the clock has passed that too, it delivers `.found`.
    @Test func aStoreDeliversADebouncedEffectThatSleepsOnceTheClockPassedBothWaits() async {
        let (tools, handled) = (Tools(), LockedList<Action>())
        let store = Self.store(tools, handled: handled)
        store.handle(action: .sleepyDebounced)
        await Review11TestStoreAttackTests.waitUntil { tools.clock.sleeperCount == 1 }  // the debounce
        await tools.clock.advance(by: .milliseconds(300))
        await Review11TestStoreAttackTests.waitUntil { tools.clock.sleeperCount == 1 }  // the effect
        await tools.clock.advance(by: .seconds(1))
        await Review11TestStoreAttackTests.waitUntil { handled.values.count == 2 }
        #expect(handled.values == [.sleepyDebounced, .found])
    }

    /// The test store, the clock moved as in the store test: the test moves it past the debounce,
    /// then `receive(_:after:on:)` is to move it the effect's second. The receive takes the wait (the
    /// oldest effect, a wait its advance ends), spends the whole advance on it while the debounced
    /// effect has not started, then runs that effect with no advance: it sleeps until a time the clock
    /// never reaches, and the receive gives up ("did not finish within").
    @Test func aTestStoreReceivesADebouncedEffectThatSleepsOnceTheClockPassedBothWaits() async {
        let tools = Tools()
        let failures = await captureFailures {
            let store = Self.testStore(tools)
            store.effectTimeout = .milliseconds(500)
            store.send(.sleepyDebounced)
            await tools.clock.advance(by: .milliseconds(300))
            await store.receive(.found, after: .seconds(1), on: tools.clock) { $0.set(value: true, forKey: .items) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// …nor with one advance that covers both waits, as `TestClock.advance(by:)` would in a store
    /// ("a task that sleeps again within `duration` wakes again in the same advance"): the advance ends
    /// before the debounced effect has started. No receive at all gets this effect's action.
    @Test func aTestStoreReceivesADebouncedEffectThatSleepsWithOneAdvanceOverBothWaits() async {
        let tools = Tools()
        let failures = await captureFailures {
            let store = Self.testStore(tools)
            store.effectTimeout = .milliseconds(500)
            store.send(.sleepyDebounced)
            await store.receive(.found, after: .milliseconds(1300), on: tools.clock) {
                $0.set(value: true, forKey: .items)
            }
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: A throttled effect cancelled in flight

    /// The store: the first throttled effect starts at once and sleeps 2 s on the clock; the second
    /// waits for the throttle's 1 s. When the clock passes 1 s, the second starts under the
    /// throttle's id and cancels the first, still asleep (the documented "cancel in flight"); 2 s
    /// later the second delivers. `.loaded(1)` is never handled.
    @Test func aStoresThrottledEffectCancelsTheOneStillSleepingWhenItsWaitEnds() async {
        let (tools, handled) = (Tools(), LockedList<Action>())
        let store = Self.store(tools, handled: handled)
        store.handle(action: .sleepyThrottled(1))
        await Review11TestStoreAttackTests.waitUntil { tools.clock.sleeperCount == 1 }  // the first
        store.handle(action: .sleepyThrottled(2))
        await Review11TestStoreAttackTests.waitUntil { tools.clock.sleeperCount == 2 }  // the wait
        await tools.clock.advance(by: .seconds(1))
        await Review11TestStoreAttackTests.waitUntil {
            tools.cancelled.values == [1] && tools.clock.sleeperCount == 1  // the second sleeps
        }
        await tools.clock.advance(by: .seconds(2))
        await Review11TestStoreAttackTests.waitUntil { handled.values.count == 3 }
        #expect(handled.values == [.sleepyThrottled(1), .sleepyThrottled(2), .loaded(2)])
        #expect(tools.cancelled.values == [1])
    }

    /// The test store, the clock moved as in the store test: `receive(_:after:on:)` runs the oldest
    /// effect, the first throttled one, whenever it is not a wait (`EffectQueue.takeFirst` looks for
    /// the wait the advance ends first only when the oldest effect is a wait): it sleeps from 1 s to
    /// 3 s, the advance wakes it, and it delivers `.loaded(1)`, which the store never handles. No
    /// receive lets the waiting one's end cancel it: the test store runs the effects started before a
    /// wait as if none of them slept on the clock.
    @Test func aTestStoresThrottledEffectCancelsTheOneStillSleepingWhenItsWaitEnds() async {
        let tools = Tools()
        let failures = await captureFailures {
            let store = Self.testStore(tools)
            store.effectTimeout = .milliseconds(500)
            store.send(.sleepyThrottled(1))
            store.send(.sleepyThrottled(2))
            await tools.clock.advance(by: .seconds(1))
            await store.receive(.loaded(2), after: .seconds(2), on: tools.clock) { $0.set(value: 2, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// The same with one advance over both: the throttle's wait ends 1 s into it, before the first
    /// throttled effect wakes, so the second starts and cancels the first. (Added with the fix: a
    /// `receive` that advances a clock takes a wait that ends before the advance does first.)
    @Test func aTestStoresThrottledEffectCancelsTheOneStillSleepingWithinOneAdvance() async {
        let tools = Tools()
        let failures = await captureFailures {
            let store = Self.testStore(tools)
            store.effectTimeout = .milliseconds(500)
            store.send(.sleepyThrottled(1))
            store.send(.sleepyThrottled(2))
            await store.receive(.loaded(2), after: .seconds(3), on: tools.clock) { $0.set(value: 2, forKey: .page) }
        }
        // The first throttled effect never ran: the test store starts an effect when a `receive` runs
        // it, and this one was replaced before any did.
        #expect(failures.map(\.message) == [])
        #expect(tools.cancelled.values == [])
    }

    // MARK: A wait the clock has passed, behind one it has not

    /// The store: a 500 ms debounce, then a 100 ms one. The clock moved 100 ms ends the second's wait:
    /// `.loaded(1)` is handled, and the first still waits.
    @Test func aStoreDeliversTheDebouncedEffectWhoseWaitTheClockPassed() async {
        let (tools, handled) = (Tools(), LockedList<Action>())
        let store = Self.store(tools, handled: handled)
        store.handle(action: .slowDebounced)
        store.handle(action: .fastDebounced)
        await Review11TestStoreAttackTests.waitUntil { tools.clock.sleeperCount == 2 }
        await tools.clock.advance(by: .milliseconds(100))
        await Review11TestStoreAttackTests.waitUntil { handled.values.count == 3 }
        #expect(handled.values == [.slowDebounced, .fastDebounced, .loaded(1)])
        #expect(tools.clock.sleeperCount == 1)
        await tools.clock.advance(by: .milliseconds(400))
        await Review11TestStoreAttackTests.waitUntil { handled.values.count == 4 }
        #expect(handled.values.last == .loaded(5))
    }

    /// The test store, the clock moved as in the store test (with `TestClock.advance(by:)`, as the
    /// test store's own tests do before `runEffectExpectingNoAction()`): a `receive` that advances no
    /// clock, with only waits queued, takes the oldest wait (`EffectQueue.takeFirst`: `?? 0`), the
    /// 500 ms one the clock has not passed, not the 100 ms one it has. It fails saying to advance the
    /// clock, which the test did.
    @Test func aTestStoreReceivesTheDebouncedEffectWhoseWaitTheClockPassed() async {
        let tools = Tools()
        let failures = await captureFailures {
            let store = Self.testStore(tools)
            store.effectTimeout = .milliseconds(300)
            store.send(.slowDebounced)
            store.send(.fastDebounced)
            await tools.clock.advance(by: .milliseconds(100))
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            await store.receive(.loaded(5), after: .milliseconds(400), on: tools.clock) {
                $0.set(value: 5, forKey: .page)
            }
        }
        #expect(failures.map(\.message) == [])
    }

    /// The store: an effect sleeping 100 ms on the clock, then the two debounces. The clock moved
    /// 100 ms ends the sleep and the second debounce's wait: `.loaded(7)` and `.loaded(1)` are handled
    /// (in either order: they end at the same instant), and the first debounce still waits.
    @Test func aStoreDeliversTheDebouncedEffectWhoseWaitAnotherEffectsAdvancePassed() async {
        let (tools, handled) = (Tools(), LockedList<Action>())
        let store = Self.store(tools, handled: handled)
        store.handle(action: .sleeper)
        store.handle(action: .slowDebounced)
        store.handle(action: .fastDebounced)
        await Review11TestStoreAttackTests.waitUntil { tools.clock.sleeperCount == 3 }
        await tools.clock.advance(by: .milliseconds(100))
        await Review11TestStoreAttackTests.waitUntil { handled.values.count == 5 }
        #expect(Set(handled.values.dropFirst(3)) == [.loaded(7), .loaded(1)])
        #expect(tools.clock.sleeperCount == 1)
        await tools.clock.advance(by: .milliseconds(400))
        await Review11TestStoreAttackTests.waitUntil { handled.values.count == 6 }
        #expect(handled.values.last == .loaded(5))
    }

    /// The test store, the clock moved only by its receives: `receive(_:after:on:)` of the sleeping
    /// effect moves the clock 100 ms, past the second debounce's wait; the next `receive`, which
    /// advances no clock, still takes the oldest wait, the 500 ms one, and fails saying to advance the
    /// clock.
    @Test func aTestStoreReceivesTheDebouncedEffectWhoseWaitAnotherEffectsAdvancePassed() async {
        let tools = Tools()
        let failures = await captureFailures {
            let store = Self.testStore(tools)
            store.effectTimeout = .milliseconds(300)
            store.send(.sleeper)
            store.send(.slowDebounced)
            store.send(.fastDebounced)
            await store.receive(.loaded(7), after: .milliseconds(100), on: tools.clock) {
                $0.set(value: 7, forKey: .page)
            }
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            await store.receive(.loaded(5), after: .milliseconds(400), on: tools.clock) {
                $0.set(value: 5, forKey: .page)
            }
        }
        #expect(failures.map(\.message) == [])
    }

    /// An effect that does not wait, started after a debounce whose wait the clock has passed, is
    /// received first, as a store delivers it at once, before the debounce's wait ends; then the
    /// debounced effect, whose wait is over. (Added with the fix: a wait the clock has passed comes
    /// after the effects that do not wait.)
    @Test func aTestStoreReceivesAnEffectThatDoesNotWaitBeforeAWaitTheClockPassed() async {
        let tools = Tools()
        let failures = await captureFailures {
            let store = Self.testStore(tools)
            store.send(.fastDebounced)
            store.send(.plain)
            await tools.clock.advance(by: .milliseconds(100))
            await store.receive(.loaded(3)) { $0.set(value: 3, forKey: .page) }
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: What a debounced effect is called

    /// The store: once its wait is over, the debounced effect runs under the debounce's id: cancelling
    /// `.search` cancels it (`cancel(id:)` returns `true`), and its action is never handled.
    @Test func aStoresDebouncedEffectRunsUnderTheDebouncesID() async {
        let (tools, handled) = (Tools(), LockedList<Action>())
        let store = Self.store(tools, handled: handled)
        store.handle(action: .gatedDebounced)
        await Review11TestStoreAttackTests.waitUntil { tools.clock.sleeperCount == 1 }
        await tools.clock.advance(by: .milliseconds(300))
        await Review11TestStoreAttackTests.waitUntil { !tools.started.values.isEmpty }
        #expect(store.runningEffectIDs.contains(AnyHashable(ID.search)))
        #expect(store.cancel(id: ID.search))
        tools.gate.open()
        try? await Task.sleep(for: .milliseconds(50))
        #expect(handled.values == [.gatedDebounced])
    }

    /// The test store: a failure about the same effect names it "an effect without an id" (the
    /// anonymous part `EffectQueue` queued for the debounce's second step, `QueuedEffect.name`), not
    /// `.search`, the id the handler gave it and the one `cancel(id:)` takes. The article's messages
    /// name "the effect .load"; a leftover debounced or throttled effect, one that did not finish,
    /// and one that produced the wrong action are all reported so.
    @Test func aTestStoreNamesADebouncedEffectByTheDebouncesID() async {
        let tools = Tools()
        tools.gate.open()
        let failures = await captureFailures {
            let store = Self.testStore(tools)
            store.send(.gatedDebounced)
            await store.receive(.loaded(1), after: .milliseconds(300), on: tools.clock)
        }
        #expect(failures.count == 1)
        let message = failures.first?.message ?? ""
        #expect(message.contains("from the effect .search"), "\(message)")
    }

    // MARK: What an effect given up on has sent

    /// The store: a `.run` effect's action is handled as it is sent, however long the effect runs on.
    @Test func aStoreHandlesWhatAStreamSentBeforeItEnds() async {
        let (tools, handled) = (Tools(), LockedList<Action>())
        let store = Self.store(tools, handled: handled)
        store.handle(action: .sendThenListen)
        await Review11TestStoreAttackTests.waitUntil { handled.values.count == 2 }
        #expect(handled.values == [.sendThenListen, .loaded(1)])
        #expect(store.get(.page, as: Int.self) == 1)
    }

    /// The test store: `receive(.loaded(1))` runs the effect to its end, which does not come; when it
    /// gives up (`TestStore.actions(of:_:for:at:)`, `.timedOut`) the action the effect did send is
    /// dropped with it, never handled: the state is not the app's (`.page` stays unset), unlike an
    /// unexpected action, which "is handled, so the test goes on from the state the app would be in".
    /// (The article: the test store cancels an effect it gives up on "so a timer or a stream does not
    /// keep running"; what the stream sent is lost.)
    @Test func aTestStoreHandlesWhatAStreamSentBeforeItGivesUpOnIt() async {
        let tools = Tools()
        let page = LockedList<Int?>()
        let failures = await captureFailures {
            let store = Self.testStore(tools)
            store.effectTimeout = .milliseconds(300)
            store.send(.sendThenListen)
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            page.append(store.store.get(.page, as: Int.self))
        }
        #expect(failures.count == 1)
        let sentNote = "What it sent before, handled unchecked as in the app: .loaded(1)."
        #expect(failures.first?.message.contains(sentNote) == true)
        #expect(page.values == [1], "what the stream sent before the test store gave up on it was dropped")
    }

    // MARK: A concatenation given up on, released inside the queue's lock

    /// The store: the concatenation whose step hangs is cancelled by its id; its id (a user's value) is
    /// released outside every lock of the store (`EffectRunner.changingLifecycle` releases the ids
    /// it removed once its lock is left): a probe in the id reads the store from another thread
    /// without blocking. (On a thread of its own: the probe waits up to 2 s for its read.)
    @Test func aStoresCancelledConcatenationsIDIsReleasedOutsideItsLocks() async {
        let probes = TestStoreReleaseTests.Probes<Bool>()
        final class Holder: @unchecked Sendable { weak var store: Store<LoadKey, Action, Void>? }
        let holder = Holder()
        var tools = Tools()
        tools.onRelease = {
            probes.read("runningEffectIDs") {
                _ = holder.store?.runningEffectIDs
                return true
            }
        }
        let frozen = tools
        await Self.onOwnThread {
            let store = Self.store(frozen, handled: LockedList())
            holder.store = store
            store.handle(action: .hangingChain)
            store.cancel(id: ProbedID())
            Self.blockUntil { !probes.seen.values.isEmpty }
            withExtendedLifetime(store) {}
        }
        #expect(probes.blocked.values.isEmpty, "the id was released inside a lock of the store")
        #expect(probes.seen.values == [true])
    }

    /// The test store: `receive` gives up on the hanging step, which leaves its concatenation in
    /// `EffectQueue.concatenations` only (its laterSteps taken, its queued part gone). `finish()`
    /// empties that list inside the queue's lock (`EffectQueue.removeAll`: `concatenations = []`),
    /// and the concatenation, with its id, is released there: the probe's read of `queuedEffectIDs`
    /// blocks until the lock is left (on the same thread it is a deadlock). `cancel(id:)` of it, or a
    /// new effect under its id, releases it inside the lock the same way (`remove`'s `cancelled`).
    @Test func aTestStoresConcatenationGivenUpOnIsReleasedOutsideTheQueuesLock() async {
        let probes = TestStoreReleaseTests.Probes<[AnyHashable]>()
        final class Holder: @unchecked Sendable { weak var store: TestStore<LoadKey, Action, Void>? }
        let holder = Holder()
        var tools = Tools()
        tools.onRelease = { probes.read("queuedEffectIDs") { holder.store?.queuedEffectIDs ?? [] } }
        let frozen = tools
        let failures = LockedList<String>()
        await Self.onOwnThread {
            TestStoreFailure.withHandler({ message, _, _ in failures.append(message) }) {
                let store = Self.testStore(frozen)
                holder.store = store
                store.effectTimeout = .milliseconds(100)
                store.send(.hangingChain)
                store.receive(.loaded(1))  // gives up: the step is cancelled, and returns
                Self.blockUntil { !frozen.hangEnded.values.isEmpty }
                Thread.sleep(forTimeInterval: 0.3)  // the step's task lets go of its copy of the part
                store.finish()
                Self.blockUntil { !probes.seen.values.isEmpty }
            }
        }
        #expect(failures.values.count == 1)
        #expect(probes.blocked.values.isEmpty, "the concatenation's id was released inside the queue's lock")
        #expect(probes.seen.values.count == 1)
    }

    // MARK: How long a receive waits

    /// The documented limit: "A `receive` waits at most ``TestStore/effectTimeout`` for the effect."
    /// `receive(_:after:on:)` of an effect that neither ends nor sleeps on the clock waited
    /// `effectTimeout` for it to sleep (`TestClock.waitForSleep`), then `effectTimeout` again for its
    /// action: twice the limit. Timed beside a plain `receive` of the same effect, started at the same
    /// instant, which gives up after `effectTimeout`: on a loaded machine both wait longer, alike.
    /// (Review 14 timed each alone, against a fixed bound; under the whole suite's load both took
    /// 5.7 s for a 2 s timeout.)
    @Test func aReceiveAfterAnAdvanceGivesUpAsAPlainReceiveDoes() async {
        let tools = Tools()
        let timeout = Duration.seconds(2)
        func timedReceive(advancing: Bool) async -> (Duration, [CapturedFailure]) {
            let start = ContinuousClock.now
            let failures = await captureFailures {
                let store = Self.testStore(tools)
                store.effectTimeout = timeout
                store.send(.hangOffClock)
                if advancing {
                    await store.receive(.loaded(1), after: .seconds(1), on: tools.clock) {
                        $0.set(value: 1, forKey: .page)
                    }
                } else {
                    await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
                }
            }
            return (ContinuousClock.now - start, failures)
        }
        async let plain = timedReceive(advancing: false)
        async let advancing = timedReceive(advancing: true)
        let ((plainTime, plainFailures), (advancingTime, advancingFailures)) = await (plain, advancing)
        tools.gate.open()
        #expect(plainFailures.count == 1)
        #expect(advancingFailures.count == 1)
        #expect(
            advancingTime < plainTime + timeout / 2,
            "receive(_:after:on:) waited \(advancingTime), a plain receive \(plainTime)")
    }
}
