import CacheStore

/// A clock that moves only when a test tells it to, so a test of a debounce, a delay or a timeout
/// takes no real time.
///
/// Give effects the clock through their dependency, as `any Clock<Duration>`: `ContinuousClock()` in
/// the app, a `TestClock` in tests. A task that sleeps on a test clock stays asleep until the test
/// moves the clock past its deadline with ``advance(by:)`` or ``run()``.
///
/// ```swift
/// struct SearchDependency: Sendable {
///     var clock: any Clock<Duration>
/// }
///
/// @Test func theSearchWaitsForTypingToStop() async throws {
///     let clock = TestClock()
///     let search = Task {
///         try await clock.sleep(for: .milliseconds(300))  // a debounce
///         return "searched"
///     }
///     await clock.advance(by: .milliseconds(299))  // still asleep
///     await clock.advance(by: .milliseconds(1))  // wakes, at once
///     #expect(try await search.value == "searched")
/// }
/// ```
///
/// Cancelling a sleeping task wakes it at once with `CancellationError`, as `Task.sleep` does.
///
/// A test clock is meant to be moved from one task at a time, the test's.
///
/// ## Topics
///
/// ### Creating a test clock
///
/// - ``init(now:)``
///
/// ### Moving time
///
/// - ``advance(by:)``
/// - ``run()``
///
/// ### Reading the clock
///
/// - ``now``
/// - ``minimumResolution``
/// - ``sleeperCount``
/// - ``Instant``
///
/// ### Sleeping
///
/// - ``sleep(until:tolerance:)``
public final class TestClock: Clock, Sendable {
    /// The clock's time and its sleepers.
    private let state: LockedValue<TestClockState>

    /// Creates a clock that starts at `now` and stands still until the test moves it.
    ///
    /// - Parameter now: The starting time; the clock's zero by default.
    public init(now: Instant = Instant()) {
        state = LockedValue(TestClockState(now: now))
    }

    /// The current time: where the last ``advance(by:)`` or ``run()`` left the clock.
    public var now: Instant {
        state.withValue { $0.now }
    }

    /// The smallest step the clock can take: zero, as every deadline is met exactly.
    public var minimumResolution: Duration {
        .zero
    }

    /// The number of tasks sleeping on the clock now.
    ///
    /// ```swift
    /// store.send(.queryChanged("tea"))
    /// #expect(clock.sleeperCount == 1)  // the debounce is waiting
    /// ```
    public var sleeperCount: Int {
        state.withValue { $0.sleepers.count }
    }

    /// Suspends the calling task until the clock reaches `deadline`.
    ///
    /// Returns at once when the clock is there already. You don't call it directly: `sleep(for:)`,
    /// `Task.sleep(for:clock:)` and the effects that take a clock do.
    ///
    /// - Parameters:
    ///   - deadline: The time to wake at.
    ///   - tolerance: Ignored: a test clock wakes each sleeper exactly at its deadline.
    /// - Throws: `CancellationError` when the task is cancelled, before or while it sleeps.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withValue { $0.nextSleeperID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Under the lock, so that a cancellation either comes first and is seen here, or comes
                // after and finds the sleeper to remove.
                let returnsAtOnce = state.withValue { state in
                    guard !Task.isCancelled, deadline > state.now else { return true }
                    state.sleepers.append(
                        TestClockState.Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                guard returnsAtOnce else { return }
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    continuation.resume()
                }
            }
        } onCancel: {
            state.withValue { $0.removeSleeper(id) }?.continuation.resume(throwing: CancellationError())
        }
        state.withValue { $0.acknowledgeWake(of: id) }?.resume()
    }

    /// Moves the clock forward by `duration`, waking every sleeper whose deadline it reaches.
    ///
    /// Sleepers wake one at a time in deadline order (those with the same deadline in the order they
    /// fell asleep), with ``now`` at their deadline. Each woken task runs until it suspends again before
    /// the next one wakes, so a task that sleeps again within `duration` wakes again in the same advance.
    /// The clock then stands at the old ``now`` plus `duration`.
    ///
    /// ```swift
    /// let clock = TestClock()
    /// let timer = Task {
    ///     try await clock.sleep(for: .seconds(1))
    ///     let firstTick = clock.now
    ///     try await clock.sleep(for: .seconds(1))
    ///     return [firstTick, clock.now]
    /// }
    /// await clock.advance(by: .seconds(3))  // wakes it at 1 s, then at 2 s
    /// #expect(try await timer.value.map(\.offset) == [.seconds(1), .seconds(2)])
    /// ```
    ///
    /// "Runs until it suspends again" is awaited for the wake itself and then given a number of
    /// `Task.yield()`s: work a woken task starts elsewhere (another task, another actor) may still be
    /// under way when `advance` returns, so await its result where it lands (for an effect: `receive`).
    ///
    /// - Parameter duration: How far to move the clock; zero wakes only sleepers already due.
    public func advance(by duration: Duration) async {
        precondition(duration >= .zero, "TestClock.advance(by:) needs a duration of zero or more, not \(duration).")
        await advance(to: now.advanced(by: duration))
    }

    /// Advances the clock until no task is sleeping on it, waking each sleeper as ``advance(by:)`` does.
    ///
    /// The clock ends at the last deadline it reached. A task that keeps sleeping (a repeating timer)
    /// keeps this running: cancel it first, or use ``advance(by:)``.
    ///
    /// ```swift
    /// store.send(.startCountdown)
    /// await clock.run()  // every pending delay has passed
    /// ```
    public func run() async {
        await letWokenTasksRun()
        while let deadline = state.withValue({ $0.earliestDeadline }) {
            await advance(to: deadline)
        }
    }

    /// How many times a task fell asleep on the clock so far.
    var sleepsBegun: Int {
        state.withValue { $0.sleepsBegun }
    }

    /// Waits until a task falls asleep on the clock for the time past `count` sleeps, or `hasEnded`
    /// says the work that should sleep ended, or `timeout` passes: first by yielding, then checking
    /// every millisecond.
    func waitForSleep(after count: Int, unless hasEnded: () -> Bool, timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        var checks = 0
        while sleepsBegun == count, !hasEnded(), ContinuousClock.now < deadline, !Task.isCancelled {
            checks += 1
            if checks <= TestClockState.yieldsPerWake {
                await Task.yield()
            } else {
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    /// Wakes the sleepers due by `target` in order, then sets the clock to `target`.
    private func advance(to target: Instant) async {
        await letWokenTasksRun()
        while let sleeper = state.withValue({ $0.takeEarliestSleeper(dueBy: target) }) {
            // Wait until the woken task runs again, then give it time to reach its next suspension.
            await withCheckedContinuation { (woken: CheckedContinuation<Void, Never>) in
                state.withValue { $0.awaitWake(of: sleeper.id, woken) }
                sleeper.continuation.resume()
            }
            await letWokenTasksRun()
        }
        state.withValue { $0.now = max($0.now, target) }
    }

    /// Yields to let tasks that just woke (or just started) run to their next suspension, so they fall
    /// asleep on the clock before it moves.
    private func letWokenTasksRun() async {
        for _ in 0..<TestClockState.yieldsPerWake { await Task.yield() }
    }
}
