import Foundation

@testable import CacheStore
@testable import CacheStoreTesting

// Runs an EffectProgram on the two sides of the differential suite (DifferentialTests.swift), and
// compares what they handled.

/// One step of a program's run, as the app side took it, for the test store to take the same way.
enum ScheduleStep: Equatable, CustomStringConvertible {
    /// The clock moved to this instant (the next deadline, or a start's time).
    case advance(to: Duration)
    /// `.start(step)` was sent.
    case send(Int)
    /// `cancel(id:)` was called.
    case cancel(String)

    var description: String {
        switch self {
        case .advance(let instant): "advance to \(millisecondsText(instant))"
        case .send(let step): "send start\(step)"
        case .cancel(let id): "cancel(id: \(id))"
        }
    }
}

/// What went wrong in a harness, not in a comparison: the app side never came to rest, or two
/// effects were due at one instant.
struct HarnessError: Error, CustomStringConvertible {
    let description: String
}

/// The app side: a plain `Store` whose effects run on the concurrency pool, stepped by a `TestClock`
/// one wake at a time.
///
/// Between steps it waits, bounded, until the store is at rest (see ``AppWatcher``), then moves the
/// clock to the next deadline only. The effect tasks inherit a task-local context naming a pump of
/// their own that runs nothing (`EffectPump.current`, internal): the clock then takes them for
/// tasks it need not wait for (it would wait up to its `settleTime`, 50 ms, for each woken task no
/// pump runs), and names their deadlines in that pump, where the runner reads the next one. The
/// store itself is untouched: its effects start in tasks of their own (no test starter), and no
/// observer watches it.
struct AppRun {
    var order: [ProgramAction] = []
    var schedule: [ScheduleStep] = []

    /// Runs `program` on a new store; `timeout` bounds each wait for rest.
    static func run(_ program: EffectProgram, timeout: Duration) async throws -> AppRun {
        let clock = TestClock()
        let log = ActionLog()
        let probe = BodyProbe()
        let pump = EffectPump(outsideTimeout: { .zero })
        let store = Store(
            initialValues: [:], actionHandler: program.handler(logging: log),
            dependency: ProgramDependency(clock: clock, probe: probe))
        let watcher = AppWatcher(store: store, clock: clock, pump: pump, probe: probe, log: log, timeout: timeout)
        var schedule: [ScheduleStep] = []
        func advance(to instant: Duration) async throws {
            await clock.advance(by: instant - clock.now.offset)
            schedule.append(.advance(to: instant))
            try await watcher.settle(after: "the advance to \(millisecondsText(instant))")
        }
        try await EffectPump.$current.withValue(EffectPump.Context(pump: pump, effect: nil)) {
            for (index, step) in program.steps.enumerated() {
                while let next = try watcher.nextDeadline(), next <= step.at { try await advance(to: next) }
                if clock.now.offset < step.at { try await advance(to: step.at) }
                switch step.kind {
                case .send:
                    store.handle(action: .start(index))
                    schedule.append(.send(index))
                case .cancel(let id):
                    store.cancel(id: id)
                    schedule.append(.cancel(id))
                }
                try await watcher.settle(after: "step \(index)")
            }
            while let next = try watcher.nextDeadline() { try await advance(to: next) }
        }
        let left = store.runningEffectIDs
        guard left.isEmpty else {
            throw HarnessError(description: "The app side ended with effects running: \(left.map(\.base)).")
        }
        return AppRun(order: log.actions, schedule: schedule)
    }
}

/// Tells when an app-side store is at rest: no action is being handled or queued, every effect task
/// the store's scheduler holds sleeps on the clock (as many tasks as sleepers: only this store's
/// tasks sleep on this clock), the clock's pump names each sleeper, and every body of the program's
/// effects sleeps or has ended. Then nothing happens until the clock moves.
///
/// It counts the scheduler's tasks (`EffectScheduler.tasks`, internal) rather than
/// `store.runningEffects`: that list leaves out a part reached through an ancestor's id (a
/// `single(id: A)` inside `concatenate(id: A)`), whose task sleeps all the same. A task the store
/// cancelled has left the scheduler, but its body, until it ends, counts as running in the
/// ``BodyProbe``; what such a task does after its body (report its end in the turn) is dropped by the
/// scheduler, and cannot change the order.
///
/// A reading is taken part by part, each under its own lock; two equal readings in a row, the
/// second after a yield, rule out one that straddled a step (each step changes a part: the turn,
/// the tasks, the sleeps, the probe's events or the log).
struct AppWatcher {
    let store: Store<ProgramKey, ProgramAction, ProgramDependency>
    let clock: TestClock
    let pump: EffectPump
    let probe: BodyProbe
    let log: ActionLog
    let timeout: Duration

    /// What the watcher reads, each part under its own lock.
    struct Reading: Equatable, CustomStringConvertible {
        /// No thread holds the store's turn, and nothing is queued for it.
        var isTurnFree: Bool
        /// The tasks of the effect nodes the store's scheduler holds (operations and waits' timers).
        var tasks: Int
        /// The tasks asleep on the clock, and those of them the context's pump names.
        var sleepers: Int
        var sleeps: Set<Int>
        var bodies: BodyProbe.Counts
        var handled: Int

        var isAtRest: Bool {
            isTurnFree && tasks == sleepers && sleeps.count == sleepers && bodies.active == 0
        }

        /// At rest, but the clock's pump does not name exactly the sleepers the clock has.
        var isAtRestButForTheNamedSleeps: Bool {
            isTurnFree && tasks == sleepers && sleeps.count != sleepers && bodies.active == 0
        }

        var description: String {
            "turn free: \(isTurnFree), effect tasks: \(tasks), asleep on the clock: \(sleepers) "
                + "(\(sleeps.count) named), effect bodies running: \(bodies.active), actions handled: \(handled)"
        }
    }

    func read() -> Reading {
        let engine = store.engine
        let isTurnFree = engine.queue.turn.load() == 0
        let tasks = engine.existingEffects.map { runner in runner.lock.withLock { runner.scheduler.tasks.count } } ?? 0
        let sleepers = clock.sleeperCount
        let sleeps = pump.state.withLock { Set($0.sleeps.keys.map(\.value)) }
        return Reading(
            isTurnFree: isTurnFree, tasks: tasks, sleepers: sleepers, sleeps: sleeps,
            bodies: probe.counts.withLock { $0 }, handled: log.count)
    }

    /// Waits until two readings in a row show the store at rest and nothing changed between them;
    /// throws after `timeout`.
    func settle(after step: String) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var namesApartSince: ContinuousClock.Instant?
        var tries = 0
        while true {
            let first = read()
            if first.isAtRest {
                await Task.yield()
                if read() == first { return }
            }
            // A sleeper is named in the pump a moment after it is on the clock; for a second, it is
            // a sleep the pump names that ended (or one it never named).
            if first.isAtRestButForTheNamedSleeps {
                let since = namesApartSince ?? .now
                namesApartSince = since
                if since.duration(to: .now) > .seconds(1) {
                    throw HarnessError(
                        description: """
                            After \(step), the clock has \(first.sleepers) tasks asleep but their pump names \
                            \(first.sleeps.count) sleeps, for a second with nothing else running: TestClock.sleep \
                            noted a sleep that had ended (or never noted one). \(first).
                            """)
                }
            } else {
                namesApartSince = nil
            }
            guard ContinuousClock.now < deadline else {
                throw HarnessError(
                    description: "The app side did not come to rest within \(timeout) after \(step): \(read()).")
            }
            tries += 1
            if tries < 16 {
                await Task.yield()
            } else {
                try? await Task.sleep(for: .microseconds(100))
            }
        }
    }

    /// The earliest deadline of the effects asleep on the clock (at rest), or `nil` when none sleeps;
    /// throws when two are due at that instant (the program's durations should rule it out).
    func nextDeadline() throws -> Duration? {
        let deadlines = pump.state.withLock { $0.sleeps.values.map(\.deadline.offset) }
        guard let next = deadlines.min() else { return nil }
        let due = deadlines.filter { $0 == next }.count
        guard due == 1 else {
            throw HarnessError(
                description: "\(due) effects are due at \(millisecondsText(next)): a tie the program should rule out.")
        }
        return next
    }
}

/// How the test store side moves its clock.
enum TestStoreMode: CaseIterable, CustomStringConvertible {
    /// The app side's schedule, step by step: each advance to the next deadline, each send.
    case sameSteps
    /// Straight to each step's time (one advance through every deadline before it), then
    /// `clock.run()` to the end.
    case stepTimesThenRun

    var description: String {
        switch self {
        case .sameSteps: "the app's steps"
        case .stepTimesThenRun: "advances to the steps' times, then run()"
        }
    }
}

/// The test store side: a `TestStore` with the same handler and dependency shape, a new `TestClock`,
/// exhaustivity off.
struct TestStoreRun {
    /// Every action its handler saw, in order.
    var order: [ProgramAction] = []
    /// What the test store said it received (every action but those sent), oldest first.
    var received: [ProgramAction] = []

    static func run(_ program: EffectProgram, _ mode: TestStoreMode, schedule: [ScheduleStep]) async -> TestStoreRun {
        let clock = TestClock()
        let log = ActionLog()
        let store = TestStore(
            initialValues: [:], actionHandler: program.handler(logging: log),
            dependency: ProgramDependency(clock: clock, probe: BodyProbe()))
        store.exhaustivity = .off
        switch mode {
        case .sameSteps:
            for step in schedule {
                switch step {
                case .advance(let instant): await clock.advance(by: instant - clock.now.offset)
                case .send(let step): store.send(.start(step))
                case .cancel(let id): store.cancel(id: id)
                }
            }
        case .stepTimesThenRun:
            for (index, step) in program.steps.enumerated() {
                await clock.advance(by: max(.zero, step.at - clock.now.offset))
                switch step.kind {
                case .send: store.send(.start(index))
                case .cancel(let id): store.cancel(id: id)
                }
            }
            await clock.run()
        }
        let received = store.receivedActions
        await store.finish()
        return TestStoreRun(order: log.actions, received: received)
    }
}

/// Where two orders of handled actions first differ.
struct OrderDifference: Equatable {
    /// The first index at which they differ (the shorter one's count when one is a prefix of the
    /// other).
    let index: Int
    let expected: ProgramAction?
    let actual: ProgramAction?

    init(index: Int, expected: ProgramAction?, actual: ProgramAction?) {
        self.index = index
        self.expected = expected
        self.actual = actual
    }

    /// `nil` when `actual` equals `expected`.
    init?(expected: [ProgramAction], actual: [ProgramAction]) {
        guard expected != actual else { return nil }
        let index =
            zip(expected, actual).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(expected.count, actual.count)
        self.index = index
        self.expected = index < expected.count ? expected[index] : nil
        self.actual = index < actual.count ? actual[index] : nil
    }

    /// The failure message: what differs, where, both orders, the program and how to replay it.
    func message(
        seed: UInt64, program: EffectProgram, mode: TestStoreMode, schedule: [ScheduleStep],
        expectedName: String, actualName: String, expected expectedOrder: [ProgramAction],
        actual actualOrder: [ProgramAction]
    ) -> String {
        func text(_ action: ProgramAction?) -> String { action.map(\.description) ?? "(nothing)" }
        func list(_ order: [ProgramAction]) -> String {
            order.enumerated().map { "\($0.offset):\($0.element)" }.joined(separator: " ")
        }
        return """
            Seed \(seed): the orders of handled actions differ at index \(index): \(expectedName) handled \
            \(text(expected)), \(actualName) \(text(actual)) (test store clock: \(mode)).
              \(expectedName): \(list(expectedOrder))
              \(actualName): \(list(actualOrder))
            Program:
            \(program.description.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            App schedule: \(schedule.map(\.description).joined(separator: ", "))
            Replay: CACHESTORE_DIFF_SEED=\(seed) swift test --filter DifferentialTests
            """
    }
}
