import CacheStore
import Foundation

/// A clock that moves only when a test tells it to, so a test of a debounce, a delay, a timer or a
/// timeout takes no real time.
///
/// Give effects the clock through their dependency, as `any Clock<Duration>`: `ContinuousClock()` in
/// the app, a `TestClock` in tests. A task that sleeps on a test clock stays asleep until the test
/// moves the clock past its deadline with ``advance(by:)`` or ``run()``.
///
/// ```swift
/// @Test func theTimerTicksOncePerSecond() async {
///     let clock = TestClock()
///     let store = TestStore(initialValues: [:], actionHandler: timerHandler, dependency: clock)
///     store.send(.start)
///     await clock.advance(by: .seconds(1))
///     await store.receive(.tick) { $0.set(value: 1, forKey: .ticks) }
///     store.send(.stop)
/// }
/// ```
///
/// **Exact time.** An advance wakes the sleepers its target reaches one deadline at a time, in
/// deadline order (sleepers due together in the order they fell asleep), and lets every task it
/// woke run until it sleeps again or ends before it moves on: a task woken at 1 s of a 3 s advance
/// that sleeps for 1 s more wakes again at 2 s, within the same advance, however long it took to
/// fall asleep. It knows when a woken task has run that far for the effects of the test stores the
/// test uses (a test store runs them on an executor it drives) and for tasks started with
/// ``task(_:)``. A task started otherwise (`Task { … }`) runs on its own: the advance waits until
/// it sleeps on this clock again, or until it has not for ``settleTime`` (then it is taken to have
/// ended, and a later sleep of it starts from the clock's time then).
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
/// - ``task(_:)``
/// - ``settleTime``
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
    /// One sleep on the clock, to tell it from every other.
    struct SleepID: Hashable, Sendable {
        let value: Int
    }

    /// A task asleep on the clock.
    struct Sleeper {
        let id: SleepID
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
        /// The pump that runs the task, when a test store (or ``task(_:)``) started it.
        let pump: EffectPump?
        /// The task, as a key, for a task no pump runs.
        let task: UInt
    }

    struct State {
        var now: Instant
        var sleepers: [Sleeper] = []
        var lastSleepID = 0
        /// Sleeps begun, by task no pump runs: how an advance sees a woken task sleep again.
        var bareSleepsBegun: [UInt: Int] = [:]
    }

    private let state: Locked<State>
    /// Runs the tasks started with ``task(_:)``.
    private let pump = EffectPump(outsideTimeout: { .seconds(10) })

    /// How long an advance waits for a task it woke that no test store runs, and that ``task(_:)``
    /// did not start, to sleep on the clock again: 50 milliseconds.
    public let settleTime: Duration = .milliseconds(50)

    /// Creates a test clock.
    ///
    /// - Parameter now: The clock's time to start with; the zero instant by default.
    public init(now: Instant = Instant()) {
        state = Locked(State(now: now))
    }

    /// The clock's time now: it moves only with ``advance(by:)`` and ``run()``.
    public var now: Instant {
        state.withLock { $0.now }
    }

    /// The clock's finest step: any duration.
    public var minimumResolution: Duration {
        .zero
    }

    /// How many tasks sleep on the clock now.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// Sleeps until the clock reaches `deadline`: at once when it has, else until an advance reaches
    /// it; throws `CancellationError` when the task is cancelled.
    ///
    /// - Parameters:
    ///   - deadline: The instant to wake at.
    ///   - tolerance: Ignored: a test clock wakes a sleeper exactly at its deadline.
    /// - Throws: `CancellationError` when the sleeping task is cancelled, before or during the sleep.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let context = EffectPump.current
        let task = PumpRegistry.currentTask
        let id = state.withLock { state in
            state.lastSleepID += 1
            return SleepID(value: state.lastSleepID)
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Under the lock, so that a cancellation either comes first and is seen here, or comes
                // after and finds the sleeper to remove. The pump is told under it too (the clock's
                // lock, then the pump's: never the other way): whatever takes the sleeper off the
                // clock, a cancellation or an advance, then finds the note to remove. Told after the
                // lock, a cancellation in between left the pump naming a sleep that had ended.
                let isAsleep = state.withLock { state in
                    guard !Task.isCancelled, deadline > state.now else { return false }
                    state.sleepers.append(
                        Sleeper(id: id, deadline: deadline, continuation: continuation, pump: context?.pump, task: task)
                    )
                    if context == nil { state.bareSleepsBegun[task, default: 0] += 1 }
                    context?.pump.noteSleep(
                        id, EffectPump.Sleep(effect: context?.effect, deadline: deadline, clock: self))
                    return true
                }
                guard isAsleep else {
                    return Task.isCancelled
                        ? continuation.resume(throwing: CancellationError()) : continuation.resume()
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                state.sleepers.firstIndex { $0.id == id }.map { state.sleepers.remove(at: $0) }
            }
            sleeper?.pump?.noteSleep(id, nil)
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration`, waking every sleeper whose deadline it reaches, one
    /// deadline at a time, each woken task run until it sleeps again or ends (see the type's
    /// discussion), before it moves on.
    ///
    /// Before it moves the clock, it lets the effects of the test stores this task uses run until
    /// they sleep or end, so an effect a `send` started sleeps from the time it was sent.
    ///
    /// - Parameter duration: How far to move; zero or more.
    public func advance(by duration: Duration) async {
        precondition(duration >= .zero, "TestClock.advance(by:) needs a duration of zero or more, not \(duration).")
        await advance(to: now.advanced(by: duration))
    }

    /// ``advance(by:)`` for a test store's step, whose wait for work from outside the pumps ends at
    /// `outsideDeadline`, the advance's and the step's together.
    func advance(by duration: Duration, waitingOutsideUntil outsideDeadline: ContinuousClock.Instant) async {
        precondition(duration >= .zero, "TestClock.advance(by:) needs a duration of zero or more, not \(duration).")
        await advance(to: now.advanced(by: duration), waitingOutsideUntil: outsideDeadline)
    }

    /// Moves the clock to each sleeper's deadline in turn, until no task sleeps on it.
    public func run() async {
        var deadlines = OutsideDeadlines(fixed: nil)
        await settle(pumps, &deadlines)
        while let deadline = state.withLock({ $0.sleepers.map(\.deadline).min() }) {
            await advance(to: deadline)
        }
    }

    /// Starts `operation` in a task whose every step an advance of this clock runs, on the advancing
    /// task's thread: the task an advance waits for exactly (see the type's discussion).
    ///
    /// ```swift
    /// let ticks = clock.task {
    ///     for _ in 1...3 { try await clock.sleep(for: .seconds(1)) }
    ///     return "done"
    /// }
    /// await clock.advance(by: .seconds(3))
    /// #expect(try await ticks.value == "done")
    /// ```
    ///
    /// - Parameter operation: The work.
    /// - Returns: The task.
    @discardableResult
    public func task<Success: Sendable>(
        _ operation: sending @escaping @isolated(any) () async throws -> Success
    ) -> Task<Success, any Error> {
        let box = UncheckedSendable(operation)
        pump.unnamedTaskMade()
        let run: @Sendable () async throws -> Success = { [pump] in
            try await pump.runUnnamedTask {
                try await EffectPump.$current.withValue(
                    EffectPump.Context(pump: pump, effect: nil)
                ) { try await box.value() }
            }
        }
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            return Task(executorPreference: pump, operation: run)
        }
        return Task(operation: run)
    }

    /// The deadline of each sleeper, earliest first, and the effect it belongs to, if any: what a
    /// test store's failure names.
    func sleeps(of pump: EffectPump) -> [(deadline: Instant, id: SleepID)] {
        state.withLock { state in
            state.sleepers.filter { $0.pump === pump }.map { ($0.deadline, $0.id) }.sorted { $0.deadline < $1.deadline }
        }
    }

    /// The pumps an advance drives: the clock's own, those of the test stores the calling task uses,
    /// and those whose tasks sleep here.
    private var pumps: [EffectPump] {
        var pumps = [pump] + PumpRegistry.pumpsOfCurrentTask
        for sleeper in state.withLock({ $0.sleepers }) {
            if let pump = sleeper.pump, !pumps.contains(where: { $0 === pump }) { pumps.append(pump) }
        }
        return pumps
    }

    /// Moves the clock to `target` (see ``advance(by:)``). A task that waits on something outside the
    /// pumps is waited for up to its pump's timeout in all, over the whole advance, or until
    /// `outsideDeadline` when a test store's step gives one.
    private func advance(to target: Instant, waitingOutsideUntil outsideDeadline: ContinuousClock.Instant? = nil) async
    {
        var deadlines = OutsideDeadlines(fixed: outsideDeadline)
        await settle(pumps, &deadlines)
        while let woken = state.withLock({ $0.takeSleepers(dueBy: target) }) {
            for sleeper in woken {
                sleeper.pump?.noteSleep(sleeper.id, nil)
                sleeper.continuation.resume()
            }
            await settle(pumps + woken.compactMap(\.pump), &deadlines)
            await settleBare(woken.filter { $0.pump == nil })
        }
        state.withLock { $0.now = Swift.max($0.now, target) }
        await settle(pumps, &deadlines)
    }

    /// When an advance stops waiting for each pump's work from outside: its first wait's start plus
    /// the pump's timeout, so that an advance waits that long in all, however many times it settles.
    private struct OutsideDeadlines {
        let fixed: ContinuousClock.Instant?
        var byPump: [ObjectIdentifier: ContinuousClock.Instant] = [:]

        mutating func deadline(for pump: EffectPump) -> ContinuousClock.Instant {
            if let fixed { return fixed }
            if let deadline = byPump[ObjectIdentifier(pump)] { return deadline }
            let deadline = ContinuousClock.now.advanced(by: pump.outsideTimeout())
            byPump[ObjectIdentifier(pump)] = deadline
            return deadline
        }
    }

    /// Runs every job of `pumps` until each task they run sleeps or ends; a task waiting on something
    /// outside (another thread) is waited for, until the pump's deadline in `deadlines`.
    private func settle(_ pumps: [EffectPump], _ deadlines: inout OutsideDeadlines) async {
        for pump in pumps {
            while true {
                pump.runUntilIdle()
                guard case .waitingOutside = pump.idleness else { break }
                guard await waitForJob(of: pump, until: deadlines.deadline(for: pump)) else { break }
            }
        }
    }

    /// Waits, without blocking the task's thread, until `pump` has a job or `deadline` passed.
    private func waitForJob(of pump: EffectPump, until deadline: ContinuousClock.Instant) async -> Bool {
        while ContinuousClock.now < deadline {
            if pump.state.withLock({ $0.hasJobs }) { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return pump.state.withLock { $0.hasJobs }
    }

    /// Waits until each task in `woken`, which no pump runs, sleeps on the clock again, or for
    /// ``settleTime`` with no such sleep.
    private func settleBare(_ woken: [Sleeper]) async {
        guard !woken.isEmpty else { return }
        let before = state.withLock { state in woken.map { state.bareSleepsBegun[$0.task, default: 0] } }
        let deadline = ContinuousClock.now.advanced(by: settleTime)
        while ContinuousClock.now < deadline {
            let slept = state.withLock { state in
                zip(woken, before).allSatisfy { sleeper, count in
                    state.bareSleepsBegun[sleeper.task, default: 0] > count
                }
            }
            if slept { return }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
}

extension TestClock.State {
    /// Takes the sleepers due first, if their deadline is at or before `target`: all those due at that
    /// deadline, in the order they fell asleep; moves the clock to it.
    mutating func takeSleepers(dueBy target: TestClock.Instant) -> [TestClock.Sleeper]? {
        guard let deadline = sleepers.map(\.deadline).min(), deadline <= target else { return nil }
        now = Swift.max(now, deadline)
        let due = sleepers.filter { $0.deadline == deadline }
        sleepers.removeAll { $0.deadline == deadline }
        return due.sorted { $0.id.value < $1.id.value }
    }
}
