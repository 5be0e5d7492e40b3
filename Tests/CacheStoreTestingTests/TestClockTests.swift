import Foundation
import Testing

@testable import CacheStoreTesting

/// `TestClock`: time that moves only when the test moves it, waking each sleeper at its deadline.
@Suite(.timeLimit(.minutes(1))) struct TestClockTests {
    @Test func aClockStartsAtItsZeroAndStandsStill() async {
        let clock = TestClock()
        #expect(clock.now == TestClock.Instant(offset: .zero))
        #expect(clock.minimumResolution == .zero)
        await clock.advance(by: .milliseconds(1500))
        #expect(clock.now == TestClock.Instant(offset: .milliseconds(1500)))
        #expect(TestClock(now: .init(offset: .seconds(9))).now.offset == .seconds(9))
    }

    @Test func anHourLongSleepEndsWithoutRealTimePassing() async throws {
        let clock = TestClock()
        let started = ContinuousClock.now
        let sleeper = Task { try await clock.sleep(for: .seconds(3600)) }
        defer { sleeper.cancel() }
        await waitForSleepers(1, on: clock)
        await clock.advance(by: .seconds(3599))
        #expect(clock.sleeperCount == 1)
        await clock.advance(by: .seconds(1))
        try await value(of: sleeper)
        #expect(clock.sleeperCount == 0)
        #expect(ContinuousClock.now - started < .seconds(3_600), "the hour passed in real time")
    }

    /// Sleepers wake in deadline order, those due together in the order they fell asleep. Tasks
    /// started with `clock.task`, so that each woken one runs before the next wakes (two plain tasks
    /// woken together run at once, in either order).
    @Test func sleepersWakeInDeadlineOrderEachAtItsDeadline() async throws {
        let clock = TestClock()
        let woken = LockedList<String>()
        var tasks: [Task<Void, any Error>] = []
        defer { for task in tasks { task.cancel() } }
        for (name, seconds) in [("late", 3), ("early", 1), ("tie first", 2), ("tie second", 2)] {
            tasks.append(
                clock.task {
                    try await clock.sleep(for: .seconds(seconds))
                    woken.append("\(name) at \(clock.now.offset)")
                })
            await clock.advance(by: .zero)  // runs it until it sleeps
        }
        #expect(clock.sleeperCount == 4)

        await clock.advance(by: .seconds(10))

        for task in tasks { try await value(of: task) }
        let expected = [
            "early at 1.0 seconds", "tie first at 2.0 seconds", "tie second at 2.0 seconds", "late at 3.0 seconds",
        ]
        #expect(woken.values == expected)
        #expect(clock.now.offset == .seconds(10))
    }

    /// Started with `clock.task`, whose sleeps an advance waits for: a plain task woken on a busy
    /// machine may take longer than the advance's settle time to sleep again.
    @Test func aTaskThatSleepsAgainWakesAgainInTheSameAdvance() async throws {
        let clock = TestClock()
        let timer = clock.task {
            try await clock.sleep(for: .seconds(1))
            let firstTick = clock.now
            try await clock.sleep(for: .seconds(1))
            return [firstTick, clock.now]
        }
        defer { timer.cancel() }
        await clock.advance(by: .zero)  // runs it until it sleeps
        #expect(clock.sleeperCount == 1)
        await clock.advance(by: .seconds(3))
        #expect(try await value(of: timer).map(\.offset) == [.seconds(1), .seconds(2)])
    }

    @Test func cancellingASleepingTaskThrowsAtOnce() async {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(3600)) }
        defer { sleeper.cancel() }
        await waitForSleepers(1, on: clock)
        let started = ContinuousClock.now
        sleeper.cancel()
        let result = await awaitResult { try await sleeper.value }
        #expect(throws: CancellationError.self) { try result?.get() }
        #expect(clock.sleeperCount == 0)
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(clock.now == TestClock.Instant())
    }

    @Test func aCancelledTaskDoesNotFallAsleep() async {
        let clock = TestClock()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        defer { sleeper.cancel() }
        let result = await awaitResult { try await sleeper.value }
        #expect(throws: CancellationError.self) { try result?.get() }
        #expect(clock.sleeperCount == 0)
    }

    /// A sleep cancelled as it begins leaves no note of it in the pump of its task: the pump names
    /// only the sleepers the clock has. (DifferentialTests found it: `sleep` told the pump after
    /// leaving the clock's lock, and a cancellation in between left the pump naming, for ever, a sleep
    /// that had ended; a few runs in 100,000 of its programs, whose effects run on the pool. Before
    /// the fix, this test failed within milliseconds on every run.)
    @Test func aSleepCancelledAsItBeginsLeavesItsPumpNamingNoSleep() async {
        let clock = TestClock()
        let pump = EffectPump(outsideTimeout: { .zero })
        // Another thread takes the pump's lock again and again, so that a sleep that tells the pump
        // after the clock waits there, while this task cancels it.
        let isContending = Locked(true)
        let contender = Thread {
            while isContending.withLock({ $0 }) {
                pump.state.withLock { _ in
                    var spin = 0
                    for step in 0..<2_000 { spin &+= step }
                    _ = spin
                }
            }
        }
        contender.start()
        let started = ContinuousClock.now
        // Each round cancels its sleepers a little later than the round before.
        for round in 0..<5_000 where ContinuousClock.now - started < .seconds(2) {
            let sleepers = EffectPump.$current.withValue(EffectPump.Context(pump: pump, effect: nil)) {
                (0..<4).map { _ in Task { try? await clock.sleep(for: .seconds(1)) } }
            }
            var spin = 0
            for step in 0..<(round % 32 * 60) { spin &+= step }
            _ = spin
            for sleeper in sleepers { sleeper.cancel() }
            for sleeper in sleepers { await sleeper.value }
            if !pump.state.withLock({ $0.sleeps.isEmpty }) { break }
        }
        isContending.withLock { $0 = false }
        #expect(clock.sleeperCount == 0)
        #expect(pump.state.withLock { $0.sleeps.isEmpty }, "the pump names a sleep that ended")
    }

    @Test func aDeadlineAlreadyReachedReturnsAtOnce() async throws {
        let clock = TestClock()
        await clock.advance(by: .seconds(5))
        try await clock.sleep(until: TestClock.Instant(offset: .seconds(5)))
        try await clock.sleep(for: .zero)
        #expect(clock.sleeperCount == 0)
    }

    /// Tasks of the clock's own (``TestClock/task(_:)``), which every advance waits for exactly: a
    /// bare `Task` woken late on a loaded machine may sleep again only after the clock moved on.
    @Test func runAdvancesUntilNoTaskSleeps() async throws {
        let clock = TestClock()
        let chain = clock.task {
            try await clock.sleep(for: .milliseconds(300))
            try await clock.sleep(for: .milliseconds(700))
        }
        let other = clock.task { try await clock.sleep(for: .milliseconds(500)) }
        defer {
            chain.cancel()
            other.cancel()
        }
        await clock.run()  // first runs both tasks until they sleep
        try await value(of: chain)
        try await value(of: other)
        #expect(clock.now.offset == .seconds(1))
        #expect(clock.sleeperCount == 0)
    }

    @Test func aDebounceOf300MillisecondsSearchesOnlyTheLastQuery() async {
        let clock = TestClock()
        let store = Store(initialValues: [:], actionHandler: searchHandler, dependency: clock as any Clock<Duration>)
        for query in ["t", "te", "tea"] {
            store.handle(action: .queryChanged(query))
            await waitForSleepers(1, on: clock)
        }
        await clock.advance(by: .milliseconds(299))
        #expect(store.get(.searched, as: [String].self) == nil)
        await clock.advance(by: .milliseconds(1))
        await waitUntil { store.get(.searched, as: [String].self) != nil }
        #expect(store.get(.searched, as: [String].self) == ["tea"])
        #expect(clock.sleeperCount == 0)
    }
    // MARK: A store's effects, in tasks of their own

    @Test func aStoresDebouncedEffectRunsOnlyForTheLastActionOnceTheClockPassedItsDelay() async {
        let clock = TestClock()
        let store = Store(initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
        store.handle(action: .queryChanged("a"))
        store.handle(action: .queryChanged("ab"))
        #expect(store.runningEffectIDs == [TimingID.debounce])
        #expect(await eventually { clock.sleeperCount == 1 })
        await clock.advance(by: .milliseconds(299))
        #expect(store.get(.results, as: String.self) == nil)
        await clock.advance(by: .milliseconds(1))
        #expect(await eventually { store.get(.results, as: String.self) == "AB" })
        #expect(await eventually { store.runningEffectIDs.isEmpty })
    }

    @Test func aStoresDebouncedEffectCancelledByItsIDStopsItsWait() async {
        let clock = TestClock()
        let store = Store(initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
        store.handle(action: .queryChanged("a"))
        #expect(store.cancel(id: TimingID.debounce))
        #expect(await eventually { clock.sleeperCount == 0 })
        await clock.run()
        #expect(store.runningEffectIDs.isEmpty)
        #expect(store.get(.results, as: String.self) == nil)
    }

    @Test func aStoresThrottledEffectStartsAtOnceThenAtMostOncePerInterval() async {
        let clock = TestClock()
        let store = Store(initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
        store.handle(action: .tap(1, latest: true))
        #expect(await eventually { store.get(.taps, as: [Int].self) == [1] })
        store.handle(action: .tap(2, latest: true))
        store.handle(action: .tap(3, latest: true))
        #expect(await eventually { clock.sleeperCount == 1 })
        await clock.advance(by: .seconds(1))
        #expect(await eventually { store.get(.taps, as: [Int].self) == [1, 3] })
        #expect(await eventually { store.runningEffectIDs.isEmpty })
    }

    // MARK: Exact advances

    /// An advance never loses a wake-up of a task started with `clock.task`: woken at 1 s of a 3 s
    /// advance, and slow (20 ms of work on another thread) to sleep again for 1 s, it wakes again at
    /// 2 s within the same advance. Two hundred runs, none lost.
    @Test func anAdvanceNeverLosesTheWakeUpOfASlowTask() async {
        let lost = LockedList<String>()
        await withTaskGroup(of: Void.self) { group in
            for run in 0..<200 {
                group.addTask {
                    let clock = TestClock()
                    let timer = clock.task {
                        var woken: [Duration] = []
                        for _ in 1...2 {
                            try await clock.sleep(for: .seconds(1))
                            woken.append(clock.now.offset)
                            await workOnAnotherThread(for: .milliseconds(20))
                        }
                        return woken
                    }
                    defer { timer.cancel() }
                    await clock.advance(by: .seconds(3))
                    let woken = try? await value(of: timer, within: .seconds(5))
                    if woken != [.seconds(1), .seconds(2)] { lost.append("run \(run): \(String(describing: woken))") }
                }
            }
        }
        #expect(lost.values == [])
    }
}

enum SearchKey: Hashable, Sendable { case searched }
enum SearchAction: Sendable {
    case queryChanged(String)
    case search(String)
}
enum SearchID: Hashable { case debounce }

/// Searches 300 ms after the query stops changing: each change replaces the waiting effect.
let searchHandler = StoreActionHandler<SearchKey, SearchAction, any Clock<Duration>> { state, action, clock in
    switch action {
    case .queryChanged(let query):
        return ActionEffect(id: SearchID.debounce) {
            guard (try? await clock.sleep(for: .milliseconds(300))) != nil else { return nil }
            return .search(query)
        }
    case .search(let query):
        state.update(.searched, as: [String].self) { $0 = ($0 ?? []) + [query] }
        return .none
    }
}

/// Waits, in real time, until exactly `count` tasks sleep on `clock`: a task started just now has not
/// necessarily fallen asleep yet.
func waitForSleepers(_ count: Int, on clock: TestClock, sourceLocation: SourceLocation = #_sourceLocation) async {
    await waitUntil(sourceLocation: sourceLocation) { clock.sleeperCount == count }
}

/// Waits, in real time (up to 30 s: a loaded machine may take seconds to run a task), until
/// `condition` holds.
func waitUntil(sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) async {
    #expect(await eventually(condition), "still false after 30 s", sourceLocation: sourceLocation)
}

/// What `task` returns, waited for up to `timeout`; `TimedOut` when it did not end in time (the
/// task is then cancelled).
func value<Success: Sendable>(
    of task: Task<Success, any Error>, within timeout: Duration = .seconds(30)
) async throws -> Success {
    guard let result = await awaitResult(within: timeout, { try await task.value }) else {
        task.cancel()
        throw TimedOut()
    }
    return try result.get()
}

struct TimedOut: Error {}
