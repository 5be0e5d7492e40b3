import CacheStore
import Foundation

/// The executor a test store's effects run on: every job of their tasks (and of the tasks those
/// make with structured concurrency) waits here until the test lets it run, and then runs on the
/// test's own thread, one at a time, first in, first out (SE-0417 task executors).
///
/// So effects make progress only inside a `receive`, a clock's advance or `finish`, one step at a
/// time, first started first, and the order of what they deliver is the same on every run. The
/// store's own scheduler decides everything else: the pump only runs the jobs it is given.
///
/// It also keeps what a test store needs to know when nothing is left to run: how many effect tasks
/// are alive, and which of them are asleep on a ``TestClock`` (with what they wait for). An alive
/// task that is neither runnable nor asleep on a test clock waits on something outside the test's
/// control (real I/O, another thread, a clock that is not a test clock): its next job comes from
/// another thread, which the test store waits for, bounded.
///
/// ```swift
/// let pump = EffectPump()
/// store.attachTest(starter: pump.starter, observer: observer)
/// while pump.runNext() {}           // runs what is runnable now
/// ```
@usableFromInline
final class EffectPump: @unchecked Sendable {
    /// What the pump holds, inside its lock.
    struct State {
        /// Jobs waiting to run, oldest first from `head`.
        var jobs: [UnownedJob] = []
        var head = 0
        /// The tasks of effects started and not ended, by the node they belong to.
        var liveTasks: [EffectTask] = []
        /// How many tasks that belong to no effect (those a ``TestClock`` started) are alive.
        var liveUnnamedTasks = 0
        /// The sleeps on test clocks of this pump's tasks, by sleep.
        var sleeps: [TestClock.SleepID: Sleep] = [:]
        /// Whether a thread is running jobs now: one at a time.
        var isRunning = false
        /// Whether the test store let go of the pump: jobs run on the global concurrent executor.
        var isReleased = false

        var hasJobs: Bool { head < jobs.count }
    }

    /// A sleep of one of the pump's tasks on a test clock.
    struct Sleep {
        /// The effect whose task sleeps, if the sleeper is an effect's task (or a task it made).
        let effect: EffectTask?
        let deadline: TestClock.Instant
        let clock: TestClock
    }

    let state = Locked(State())

    /// How long a step waits for work that comes from outside the pump (see the type's discussion).
    let outsideTimeout: @Sendable () -> Duration

    init(outsideTimeout: @escaping @Sendable () -> Duration) {
        self.outsideTimeout = outsideTimeout
    }

    /// The task-local context of the tasks the pump runs: which pump, and which effect.
    struct Context: Sendable {
        let pump: EffectPump
        /// The effect whose task this is; `nil` for a task a ``TestClock`` started.
        let effect: EffectTask?
    }

    @TaskLocal static var current: Context?

    /// Whether this platform has task executors: else effects run on the concurrency pool, and a
    /// test store waits for what they deliver (see `TestStore`).
    static var isAvailable: Bool {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) { return true }
        return false
    }

    /// The starter a test store gives its store: each effect's task runs here, and is counted alive
    /// until its work returns.
    var starter: EffectStarter {
        .custom { [self] effect, work in
            let context = Context(pump: self, effect: effect)
            state.withLock { $0.liveTasks.append(effect) }
            let work = UncheckedSendable(work)  // moves into the task, as every effect's work does
            let body: @Sendable () async -> Void = {
                await Self.$current.withValue(context) { await work.value() }
                context.pump.taskEnded(effect)
            }
            if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
                return Task(executorPreference: self, operation: body)
            }
            return Task(operation: body)
        }
    }

    private func taskEnded(_ effect: EffectTask) {
        state.withLock { state in
            if let index = state.liveTasks.firstIndex(where: { $0.ticket == effect.ticket }) {
                state.liveTasks.remove(at: index)
            }
        }
    }

    /// Runs the oldest job on the calling thread; returns `false` when none is waiting. Jobs never
    /// run under the lock: a job enqueues others.
    @discardableResult
    func runNext() -> Bool {
        let job: UnownedJob? = state.withLock { state in
            guard state.hasJobs, !state.isRunning else { return nil }
            let job = state.jobs[state.head]
            state.head += 1
            if state.head == state.jobs.count {
                state.jobs.removeAll(keepingCapacity: true)
                state.head = 0
            }
            state.isRunning = true
            return job
        }
        guard let job else { return false }
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
        state.withLock { $0.isRunning = false }
        return true
    }

    /// Runs jobs until none is waiting.
    func runUntilIdle() {
        while runNext() {}
    }

    /// Waits, blocking the calling thread, until a job is waiting or `timeout` has passed; returns
    /// whether one is.
    func waitForJob(timeout: Duration) -> Bool {
        state.wait(until: \.hasJobs, timeout: timeout)
    }

    /// What the pump's tasks wait for, when no job is waiting.
    enum Idleness {
        /// No task is alive.
        case noTasks
        /// Every alive task sleeps on a test clock: these sleeps.
        case asleep([Sleep])
        /// Some alive task waits on something outside the pump: these effects' (none when only
        /// tasks that belong to no effect do).
        case waitingOutside([EffectTask])
    }

    /// What the pump's alive tasks wait for now.
    var idleness: Idleness {
        state.withLock { state in
            guard !state.liveTasks.isEmpty || state.liveUnnamedTasks > 0, !state.isReleased else { return .noTasks }
            let asleep = Set(state.sleeps.values.compactMap { $0.effect?.ticket.serial })
            let outside = state.liveTasks.filter { !asleep.contains($0.ticket.serial) }
            let unnamedAsleep = state.sleeps.values.filter { $0.effect == nil }.count
            guard outside.isEmpty, state.liveUnnamedTasks <= unnamedAsleep else { return .waitingOutside(outside) }
            return .asleep(state.sleeps.values.sorted { $0.deadline < $1.deadline })
        }
    }

    /// Counts a task that belongs to no effect alive until `body` returns: so that an advance waits
    /// for it while it works outside the pump, as for an effect's task.
    func runUnnamedTask<Success>(_ body: () async throws -> Success) async rethrows -> Success {
        defer { state.withLock { $0.liveUnnamedTasks -= 1 } }
        return try await body()
    }

    /// Notes a task that belongs to no effect, made now and run with ``runUnnamedTask(_:)``.
    func unnamedTaskMade() {
        state.withLock { $0.liveUnnamedTasks += 1 }
    }

    /// A test clock tells the pump that one of its tasks sleeps on it, or no longer does.
    func noteSleep(_ id: TestClock.SleepID, _ sleep: Sleep?) {
        state.withLock { $0.sleeps[id] = sleep }
    }
}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
extension EffectPump: TaskExecutor {
    @usableFromInline
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let isReleased = state.withLock { state in
            if !state.isReleased { state.jobs.append(job) }
            return state.isReleased
        }
        if isReleased { runElsewhere(job) }
    }

    /// Runs `job` on the global concurrent executor, as the job of an app's effect runs.
    private func runElsewhere(_ job: UnownedJob) {
        let executor = UncheckedSendable(asUnownedTaskExecutor())
        DispatchQueue.global().async { job.runSynchronously(on: executor.value) }
    }
}

extension EffectPump {
    /// Lets go of the pump, for a test store that ends: the jobs waiting, and every job its tasks
    /// make from now on, run on the global concurrent executor. So the effects the test store
    /// cancelled run on to their end, as cancelled effects do in the app, and release what they
    /// hold; nobody would run their jobs here any more.
    func release() {
        let waiting = state.withLock { state -> [UnownedJob] in
            state.isReleased = true
            defer { (state.jobs, state.head) = ([], 0) }
            return Array(state.jobs[state.head...])
        }
        guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else { return }
        for job in waiting { runElsewhere(job) }
    }
}

/// The pumps a test clock drives when it advances: those of the test stores used by the same task as
/// the advance, and those whose tasks sleep on the clock. Keyed by the task that used them (a test's
/// task), held weakly.
@usableFromInline
enum PumpRegistry: Sendable {
    private struct Entry {
        weak var pump: EffectPump?
    }

    private static let entries = Locked<[UInt: [Entry]]>([:])

    /// The calling task, as a key; `0` outside any task.
    @usableFromInline
    static var currentTask: UInt {
        withUnsafeCurrentTask { task in task.map { unsafeBitCast($0, to: UInt.self) } ?? 0 }
    }

    /// Notes that the calling task uses `pump`.
    @usableFromInline
    static func register(_ pump: EffectPump) {
        let key = currentTask
        entries.withLock { entries in
            var list = (entries[key] ?? []).filter { $0.pump != nil }
            if !list.contains(where: { $0.pump === pump }) { list.append(Entry(pump: pump)) }
            entries[key] = list
            if entries.count > 64 { entries = entries.filter { $0.value.contains { $0.pump != nil } } }
        }
    }

    /// The pumps the calling task used.
    static var pumpsOfCurrentTask: [EffectPump] {
        let key = currentTask
        return entries.withLock { $0[key]?.compactMap(\.pump) ?? [] }
    }
}
