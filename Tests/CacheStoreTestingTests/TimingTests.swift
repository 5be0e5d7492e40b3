import CacheStoreTesting
import Foundation
import Testing

enum TimingKey: Hashable, Sendable {
    case query, results, taps
}

enum TimingID: Hashable { case debounce, throttle }

enum TimingAction: Equatable, Sendable {
    case queryChanged(String)
    case results(String)
    case cancelSearch
    case tap(Int, latest: Bool)
    /// A tap whose effect has the throttle's own id.
    case tapSharingTheID(Int)
    case tapped(Int)
}

struct TimingDependency: Sendable {
    var clock: any Clock<Duration>
}

let timingHandler = StoreActionHandler<TimingKey, TimingAction, TimingDependency> { state, action, dependency in
    switch action {
    case .queryChanged(let query):
        state.set(value: query, forKey: .query)
        return ActionEffect { .results(query.uppercased()) }
            .debounce(id: TimingID.debounce, for: .milliseconds(300), clock: dependency.clock)
    case .results(let results):
        state.set(value: results, forKey: .results)
    case .cancelSearch:
        return .cancel(id: TimingID.debounce)
    case .tap(let number, let latest):
        return ActionEffect { .tapped(number) }
            .throttle(id: TimingID.throttle, for: .seconds(1), clock: dependency.clock, latest: latest)
    case .tapSharingTheID(let number):
        return ActionEffect(id: TimingID.throttle) { .tapped(number) }
            .throttle(id: TimingID.throttle, for: .seconds(1), clock: dependency.clock, latest: true)
    case .tapped(let number):
        state.update(.taps, as: [Int].self) { $0 = ($0 ?? []) + [number] }
    }
    return .none
}

/// A test store with a `TestClock`: debounce, throttle, timers and streams, stepped by advancing the
/// clock; each advance wakes what is due in deadline order and lets it run until it sleeps again.
@Suite(.timeLimit(.minutes(1))) struct TimingTests {
    @Test func aDebouncedEffectRunsOnceTheClockPassedItsDelay() async {
        let clock = TestClock()
        let store = TestStore(
            initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
        store.send(.queryChanged("a")) { $0.set(value: "a", forKey: .query) }
        await clock.advance(by: .milliseconds(200))
        store.send(.queryChanged("ab")) { $0.set(value: "ab", forKey: .query) }
        #expect(store.runningEffectIDs.count == 1)
        await clock.advance(by: .milliseconds(300))
        await store.receive(.results("AB")) { $0.set(value: "AB", forKey: .results) }
    }

    @Test func cancellingADebouncedEffectByItsIDCancelsIt() {
        let store = TestStore(
            initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: TestClock()))
        store.send(.queryChanged("a")) { $0.set(value: "a", forKey: .query) }
        store.send(.cancelSearch)
        #expect(store.runningEffectIDs.isEmpty)
    }

    @Test func aThrottledEffectWithLatestRunsTheLastOneOfTheInterval() async {
        let clock = TestClock()
        let store = TestStore(
            initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
        store.send(.tap(1, latest: true))
        await store.receive(.tapped(1)) { $0.set(value: [1], forKey: .taps) }
        store.send(.tap(2, latest: true))
        store.send(.tap(3, latest: true))
        #expect(store.runningEffectIDs.count == 1)
        await clock.advance(by: .seconds(1))
        await store.receive(.tapped(3)) { $0.set(value: [1, 3], forKey: .taps) }
    }

    /// Taps in a burst, none received between them: the first one, queued to run at once, stays
    /// queued; the later ones only replace each other while they wait for the interval's end.
    @Test(arguments: [false, true])
    func aThrottleBurstKeepsTheLeadingEffect(sharingTheID: Bool) async {
        let clock = TestClock()
        let store = TestStore(
            initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
        for number in 1...3 { store.send(sharingTheID ? .tapSharingTheID(number) : .tap(number, latest: true)) }
        await store.receive(.tapped(1)) { $0.set(value: [1], forKey: .taps) }
        await clock.advance(by: .seconds(1))
        await store.receive(.tapped(3)) { $0.set(value: [1, 3], forKey: .taps) }
    }

    @Test func aThrottledEffectWithoutLatestRunsTheFirstOneOfTheInterval() async {
        let clock = TestClock()
        let store = TestStore(
            initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
        store.send(.tap(1, latest: false))
        await store.receive(.tapped(1)) { $0.set(value: [1], forKey: .taps) }
        store.send(.tap(2, latest: false))
        store.send(.tap(3, latest: false))
        #expect(store.runningEffectIDs.count == 1)
        await clock.advance(by: .seconds(1))
        await store.receive(.tapped(2)) { $0.set(value: [1, 2], forKey: .taps) }
        await clock.advance(by: .seconds(1))
        store.send(.tap(4, latest: false))
        await store.receive(.tapped(4)) { $0.set(value: [1, 2, 4], forKey: .taps) }
    }

    @Test func aDebouncedEffectIsReceivedAfterTheClockAdvances() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: searchHandler, dependency: clock as any Clock<Duration>)
            for query in ["t", "te", "tea"] { store.send(.queryChanged(query)) }  // each replaces the last
            await store.receive(.search("tea"), after: .milliseconds(300), on: clock) { state in
                state.set(value: ["tea"], forKey: .searched)
            }
        }
        #expect(failures.isEmpty)
        #expect(clock.now.offset == .milliseconds(300))  // no real time: see TestClockTests
    }

    // MARK: As in the app

    /// A progress stream that ticks on a test clock until stopped can be stepped: advance, receive
    /// one tick, stop it; nothing is left, and nothing more arrives.
    @Test func aProgressStreamCanBeStepped() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: tickingHandler, dependency: clock)
            store.send(.start)
            await clock.advance(by: .seconds(1))
            await store.receive(.tick) { $0.set(value: 1, forKey: .page) }
            store.send(.stop)
            await store.finish()
            await clock.advance(by: .seconds(5))
            #expect(store.receivedActions.isEmpty)
            #expect(store.runningEffectIDs.isEmpty)
        }
        #expect(failures.map(\.message) == [])
    }

    /// Throttled taps at 0, 0.5 and 1 s, the clock then moved on 1 s, deliver all three, as in the
    /// app: the second when its wait ends at 1 s, the third after its own at 2 s.
    @Test(arguments: [true, false])
    func throttledTapsDeliverAsInTheApp(latest: Bool) async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
            store.send(.tap(1, latest: latest))
            await clock.advance(by: .milliseconds(500))
            await store.receive(.tapped(1)) { $0.set(value: [1], forKey: .taps) }
            store.send(.tap(2, latest: latest))
            await clock.advance(by: .milliseconds(500))
            await store.receive(.tapped(2)) { $0.set(value: [1, 2], forKey: .taps) }
            store.send(.tap(3, latest: latest))
            await clock.advance(by: .seconds(1))
            await store.receive(.tapped(3)) { $0.set(value: [1, 2, 3], forKey: .taps) }
            await store.finish()
        }
        #expect(failures.map(\.message) == [])
    }

    /// "a" typed, 300 ms, "ab" typed, 300 ms: a 300 ms debounce searches "a", then "ab", as in the
    /// app.
    @Test func aDebouncedSearchSearchesAsInTheApp() async {
        let clock = TestClock()
        let searched = LockedList<String>()
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: lookupHandler,
                dependency: LookupDependency(clock: clock, searched: searched))
            store.send(.typed("a"))
            await clock.advance(by: .milliseconds(300))
            await store.receive(.found(["a!"])) { $0.set(value: ["a!"], forKey: .items) }
            store.send(.typed("ab"))
            await clock.advance(by: .milliseconds(300))
            await store.receive(.found(["ab!"])) { $0.set(value: ["ab!"], forKey: .items) }
            await store.finish()
        }
        #expect(failures.map(\.message) == [])
        #expect(searched.values == ["a", "ab"])
    }

    /// A test clock's advance never loses a wake-up of a test store's effect: woken at 1 s of a 3 s
    /// advance, and slow (20 ms of work on another thread) to sleep again for 1 s, it wakes again
    /// at 2 s within the same advance. Two hundred runs, none lost.
    @Test func anAdvanceNeverLosesTheWakeUpOfASlowEffect() async {
        let lost = LockedList<String>()
        await withTaskGroup(of: Void.self) { group in
            for run in 0..<200 {
                group.addTask {
                    let clock = TestClock()
                    let failures = await captureFailures {
                        let store = TestStore(initialValues: [:], actionHandler: slowTickHandler, dependency: clock)
                        store.send(.start)
                        await clock.advance(by: .seconds(3))
                        await store.receive(.ticked(at: [.seconds(1), .seconds(2)]))
                    }
                    if !failures.isEmpty { lost.append("run \(run): \(failures.map(\.message))") }
                }
            }
        }
        #expect(lost.values == [])
    }

    // MARK: Composed effects on a test clock

    /// A search started now while a debounced one waits: both run, the one started now first.
    /// (From review 8.)
    @Test func aSearchStartedNowLeavesTheDebouncedOneToRunLater() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: searchNowHandler, dependency: clock)
            store.send(.typed)
            store.send(.searchNow)
            #expect(store.runningEffectIDs.count == 2, "the debounce's wait, and the search: \(store.runningEffectIDs)")
            await store.receive(.results) { $0.set(value: 1, forKey: .page) }
            await store.receive(.results, after: .milliseconds(300), on: clock) { $0.set(value: 2, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// A debounced effect, once its wait is over, replaces the effect running under its id, which never delivers.
    /// (From review 9.)
    @Test func aDebouncedEffectReplacesTheEffectRunningUnderItsIDOnceItStarts() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: searchNowHandler, dependency: clock)
            store.send(.typed)
            store.send(.searchSlowly)
            await store.receive(.results, after: .milliseconds(300), on: clock) { $0.set(value: 1, forKey: .page) }
            #expect(store.runningEffectIDs.isEmpty, "the slow search, replaced, still runs")
            await clock.advance(by: .seconds(1))
            #expect(store.receivedActions.isEmpty)
        }
        #expect(failures.map(\.message) == [])
    }

    /// A debounced .cancel(id:) cancels once its wait is over; the effect it names runs until then.
    /// (From review 13.)
    @Test func aDebouncedCancellationCancelsOnceItsWaitIsOver() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: searchNowHandler, dependency: clock)
            store.send(.searchSlowly)
            store.send(.cancelLater)
            await clock.advance(by: .milliseconds(299))
            #expect(store.runningEffectIDs.contains(AnyHashable(SearchNowID.run)))
            await clock.advance(by: .milliseconds(1))
            #expect(store.runningEffectIDs.isEmpty)
            await store.finish()
        }
        #expect(failures.map(\.message) == [])
    }

    /// Of two debounces, the one sent second waits less and is received first.
    /// (From review 10.)
    @Test func aShorterWaitSentSecondIsReceivedFirst() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: sleepyHandler, dependency: clock)
            store.send(.slowDebounced)
            store.send(.fastDebounced)
            await store.receive(.loaded(1), after: .milliseconds(100), on: clock) { $0.set(value: 1, forKey: .page) }
            await store.receive(.loaded(5), after: .milliseconds(400), on: clock) { $0.set(value: 5, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// A debounced effect that sleeps once its wait is over is received after advancing past both waits.
    /// (From review 14.)
    @Test(arguments: [false, true])
    func aDebouncedEffectThatSleepsIsReceivedOnceTheClockPassedBothWaits(inOneAdvance: Bool) async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: sleepyHandler, dependency: clock)
            store.send(.sleepyDebounced)
            if inOneAdvance {
                await store.receive(.found, after: .milliseconds(1300), on: clock) { $0.set(value: 1, forKey: .items) }
            } else {
                await clock.advance(by: .milliseconds(300))
                await store.receive(.found, after: .seconds(1), on: clock) { $0.set(value: 1, forKey: .items) }
            }
        }
        #expect(failures.map(\.message) == [])
    }

    /// A throttled effect asleep is cancelled when the next one's wait ends (cancel in flight): only that delivers.
    /// (From review 14.)
    @Test(arguments: [false, true])
    func aThrottledEffectCancelsTheOneStillAsleepWhenItsWaitEnds(inOneAdvance: Bool) async {
        let clock = TestClock()
        let cancelled = LockedList<Int>()
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: sleepyHandler, dependency: clock)
            store.send(.sleepyThrottled(1, cancelled))
            store.send(.sleepyThrottled(2, cancelled))
            if !inOneAdvance { await clock.advance(by: .seconds(1)) }
            await store.receive(.loaded(2), after: .seconds(inOneAdvance ? 3 : 2), on: clock) {
                $0.set(value: 2, forKey: .page)
            }
        }
        #expect(failures.map(\.message) == [])
        #expect(cancelled.values == [1])
    }

    /// A debounce whose wait the clock passed delivers while an older, longer one still waits.
    /// (From review 14.)
    @Test(arguments: [false, true])
    func aDebounceWhoseWaitTheClockPassedDeliversBeforeAnOlderOne(withSleeper: Bool) async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: sleepyHandler, dependency: clock)
            if withSleeper { store.send(.sleeper) }
            store.send(.slowDebounced)
            store.send(.fastDebounced)
            await clock.advance(by: .milliseconds(100))
            if withSleeper { await store.receive(.loaded(7)) { $0.set(value: 7, forKey: .page) } }
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            await store.receive(.loaded(5), after: .milliseconds(400), on: clock) { $0.set(value: 5, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// An effect that does not wait delivers before an advance moves the clock past a debounce's wait.
    /// (From review 14.)
    @Test func anEffectThatDoesNotWaitDeliversBeforeADebounceTheClockPassed() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: sleepyHandler, dependency: clock)
            store.send(.fastDebounced)
            store.send(.plain)
            await clock.advance(by: .milliseconds(100))
            await store.receive(.loaded(3)) { $0.set(value: 3, forKey: .page) }
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// receive(_:after:on:) of an effect waiting outside gives up after effectTimeout, as a plain receive does.
    /// (From review 14.)
    @Test func aReceiveAfterAnAdvanceGivesUpAsAPlainReceiveDoes() async {
        let timeout = Duration.milliseconds(300)
        let gate = AsyncGate()
        defer { gate.open() }
        func timedReceive(advancing: Bool) async -> (Duration, Int) {
            let clock = TestClock()
            let start = ContinuousClock.now
            let failures = await captureFailures {
                let store = TestStore(initialValues: [:], actionHandler: gatedHandler(gate), dependency: ())
                store.effectTimeout = timeout
                store.send(.start)
                if advancing {
                    await store.receive(.loaded(1), after: .seconds(1), on: clock) { $0.set(value: 1, forKey: .page) }
                } else {
                    await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
                }
                store.cancel(id: OrderID.load)
            }
            return (ContinuousClock.now - start, failures.count)
        }
        async let plain = timedReceive(advancing: false)
        async let advancing = timedReceive(advancing: true)
        let ((plainTime, plainFailures), (advancingTime, advancingFailures)) = await (plain, advancing)
        #expect(plainFailures == 1)
        #expect(advancingFailures == 1)
        #expect(
            advancingTime < plainTime + timeout / 2,
            "receive(_:after:on:) waited \(advancingTime), a plain receive \(plainTime)")
    }
}

enum TickingAction: Equatable, Sendable {
    case start, stop, tick
    case ticked(at: [Duration])
}

enum TickingID: Hashable { case timer }

/// `.start` starts a timer that sends `.tick` every second on the clock until `.stop` cancels it.
let tickingHandler = StoreActionHandler<LoadKey, TickingAction, TestClock> { state, action, clock in
    switch action {
    case .start:
        return .run(id: TickingID.timer) { send in
            while (try? await clock.sleep(for: .seconds(1))) != nil {
                await send(.tick)
            }
        }
    case .stop:
        return .cancel(id: TickingID.timer)
    case .tick:
        state.update(.page, as: Int.self) { $0 = ($0 ?? 0) + 1 }
    case .ticked:
        break
    }
    return .none
}

/// `.start` starts an effect that sleeps 1 s on the clock, works 20 ms on another thread, sleeps
/// 1 s again, and returns when it woke each time.
let slowTickHandler = StoreActionHandler<LoadKey, TickingAction, TestClock> { _, action, clock in
    guard action == .start else { return .none }
    return ActionEffect {
        var woken: [Duration] = []
        for _ in 1...2 {
            guard (try? await clock.sleep(for: .seconds(1))) != nil else { return nil }
            woken.append(clock.now.offset)
            await workOnAnotherThread(for: .milliseconds(20))
        }
        return .ticked(at: woken)
    }
}

/// Waits, without holding a thread of the pool, while another thread works for `duration`.
func workOnAnotherThread(for duration: Duration) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        Thread {
            Thread.sleep(forTimeInterval: Double(duration.components.attoseconds) / 1e18)
            continuation.resume()
        }
        .start()
    }
}

enum LookupAction: Equatable, Sendable {
    case typed(String)
    case found([String])
}

struct LookupDependency: Sendable {
    var clock: TestClock
    var searched: LockedList<String>
}

/// Searches 300 ms after the query stops changing (a debounce), recording each search.
let lookupHandler = StoreActionHandler<LoadKey, LookupAction, LookupDependency> { state, action, dependency in
    switch action {
    case .typed(let query):
        return ActionEffect {
            dependency.searched.append(query)
            return .found(["\(query)!"])
        }
        .debounce(id: TimingID.debounce, for: .milliseconds(300), clock: dependency.clock)
    case .found(let results):
        state.set(value: results, forKey: .items)
        return .none
    }
}

enum SearchNowID: Hashable { case run, debounce }

enum SearchNowAction: Equatable, Sendable {
    case typed
    case searchNow
    case searchSlowly
    case cancelLater
    case results
}

/// A search debounced while typing, a button that searches now, and one that searches slowly (1 s
/// on the clock): the same search, under the same id, as a feature writes it.
let searchNowHandler = StoreActionHandler<LoadKey, SearchNowAction, TestClock> { state, action, clock in
    let search = ActionEffect<SearchNowAction>(id: SearchNowID.run) { .results }
    switch action {
    case .typed:
        return search.debounce(id: SearchNowID.debounce, for: .milliseconds(300), clock: clock)
    case .searchNow:
        return search
    case .searchSlowly:
        return ActionEffect(id: SearchNowID.run) {
            guard (try? await clock.sleep(for: .seconds(1))) != nil else { return nil }
            return .results
        }
    case .cancelLater:
        return ActionEffect<SearchNowAction>.cancel(id: SearchNowID.run)
            .debounce(id: SearchNowID.debounce, for: .milliseconds(300), clock: clock)
    case .results:
        state.update(.page, as: Int.self) { $0 = ($0 ?? 0) + 1 }
    }
    return .none
}

enum SleepyAction: Equatable, Sendable {
    case sleepyDebounced
    case sleepyThrottled(Int, LockedList<Int>)
    case slowDebounced
    case fastDebounced
    case sleeper
    case plain
    case found
    case loaded(Int)

    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.sleepyDebounced, .sleepyDebounced), (.slowDebounced, .slowDebounced),
            (.fastDebounced, .fastDebounced), (.sleeper, .sleeper), (.plain, .plain), (.found, .found):
            true
        case (.sleepyThrottled(let left, _), .sleepyThrottled(let right, _)): left == right
        case (.loaded(let left), .loaded(let right)): left == right
        default: false
        }
    }
}

enum SleepyID: Hashable { case search, throttle, slow, fast }

/// Effects that wait on the clock in the ways features do: a debounced effect that sleeps itself, a
/// throttled one that sleeps longer than its interval, two debounces of different lengths, a plain
/// sleep, and an effect that does not wait.
let sleepyHandler = StoreActionHandler<LoadKey, SleepyAction, TestClock> { state, action, clock in
    switch action {
    case .sleepyDebounced:
        return ActionEffect {
            guard (try? await clock.sleep(for: .seconds(1))) != nil else { return nil }
            return .found
        }
        .debounce(id: SleepyID.search, for: .milliseconds(300), clock: clock)
    case .sleepyThrottled(let value, let cancelled):
        return ActionEffect {
            guard (try? await clock.sleep(for: .seconds(2))) != nil else {
                cancelled.append(value)
                return nil
            }
            return .loaded(value)
        }
        .throttle(id: SleepyID.throttle, for: .seconds(1), clock: clock, latest: true)
    case .slowDebounced:
        return ActionEffect { .loaded(5) }.debounce(id: SleepyID.slow, for: .milliseconds(500), clock: clock)
    case .fastDebounced:
        return ActionEffect { .loaded(1) }.debounce(id: SleepyID.fast, for: .milliseconds(100), clock: clock)
    case .sleeper:
        return ActionEffect {
            guard (try? await clock.sleep(for: .milliseconds(100))) != nil else { return nil }
            return .loaded(7)
        }
    case .plain:
        return ActionEffect { .loaded(3) }
    case .found:
        state.set(value: 1, forKey: .items)
    case .loaded(let value):
        state.set(value: value, forKey: .page)
    }
    return .none
}

/// `.start` starts an effect under `OrderID.load` that waits for `gate`, outside the test store.
func gatedHandler(_ gate: AsyncGate) -> StoreActionHandler<LoadKey, OrderAction, Void> {
    StoreActionHandler { state, action, _ in
        switch action {
        case .start:
            return ActionEffect(id: OrderID.load) {
                await gate.wait()
                return .loaded(1)
            }
        case .loaded(let value):
            state.set(value: value, forKey: .page)
        default:
            break
        }
        return .none
    }
}
