import CacheStore
import Foundation

/// How a test store lets its effects make progress: one job at a time, until what a step waits for
/// has happened or nothing can run without the test (a clock to advance) or without waiting for
/// something outside it.
extension TestStore {
    /// Why a step stopped making progress.
    enum Progress {
        /// What the step waited for happened.
        case done
        /// Nothing runs: no effect is running.
        case nothingRunning
        /// Every effect task sleeps on a test clock: these sleeps.
        case asleep([EffectPump.Sleep])
        /// These effects waited on something outside the test for ``effectTimeout``.
        case timedOut([String])
        /// The task awaiting the step was cancelled.
        case cancelled
    }

    /// Runs the store's effects, one job at a time, until `isDone` holds (checked before each job),
    /// or until nothing can run; waits for work that comes from outside the test (another thread, a
    /// real clock), up to ``effectTimeout`` in all (or until `outsideDeadline`, a step's that has
    /// waited already), without blocking the calling thread.
    nonisolated(nonsending) func makeProgress(
        until isDone: () -> Bool, waitingOutsideUntil outsideDeadline: ContinuousClock.Instant? = nil
    ) async -> Progress {
        let deadline = outsideDeadline ?? ContinuousClock.now.advanced(by: effectTimeout)
        while true {
            if isDone() { return .done }
            if store.hasEffectSendsAwaitingTheMainActor {
                // A store on any thread handles an effect's action inside the sending job: no other
                // job runs before it. For the main actor's, no other job runs until it has handled it.
                while store.hasEffectSendsAwaitingTheMainActor, !isDone(), ContinuousClock.now < deadline {
                    if Task.isCancelled { break }
                    try? await Task.sleep(for: .milliseconds(1))
                }
                if store.hasEffectSendsAwaitingTheMainActor, !isDone() { return timedOutAwaitingTheMainActor() }
                continue
            }
            if pump.runNext() { continue }
            switch idleness() {
            case .progress(let stopped):
                return stopped
            case .waitingOutside(let names):
                guard await waitForOutsideWork(until: deadline, or: isDone) else {
                    guard Task.isCancelled else { return .timedOut(names) }
                    store.cancelAllEffects()
                    return .cancelled
                }
            }
        }
    }

    /// ``makeProgress(until:)`` for synchronous callers (XCTest methods): it blocks the calling
    /// thread while it waits for outside work; on the main thread, the main run loop runs meanwhile,
    /// so that what the effects send to the main actor is handled.
    func makeProgressBlocking(until isDone: () -> Bool) -> Progress {
        let deadline = ContinuousClock.now.advanced(by: effectTimeout)
        while true {
            if isDone() { return .done }
            if store.hasEffectSendsAwaitingTheMainActor {  // as in makeProgress(until:)
                while store.hasEffectSendsAwaitingTheMainActor, !isDone(), ContinuousClock.now < deadline {
                    if !letTheMainActorRun() { Thread.sleep(forTimeInterval: 0.001) }
                }
                if store.hasEffectSendsAwaitingTheMainActor, !isDone() { return timedOutAwaitingTheMainActor() }
                continue
            }
            if pump.runNext() { continue }
            switch idleness() {
            case .progress(let stopped):
                return stopped
            case .waitingOutside(let names):
                var isWorkWaiting = false
                while !isWorkWaiting, !isDone(), ContinuousClock.now < deadline {
                    if letTheMainActorRun() {
                        isWorkWaiting = pump.state.withLock { $0.hasJobs }
                    } else {
                        isWorkWaiting = pump.waitForJob(timeout: .milliseconds(1))
                    }
                    isWorkWaiting = isWorkWaiting || !isWaitingOutside
                }
                guard isWorkWaiting || isDone() else { return .timedOut(names) }
            }
        }
    }

    /// For a synchronous step: lets what the effects sent to the main actor be handled when this
    /// thread is where the main actor runs (the main thread's run loop, for a millisecond, or on
    /// Linux a worker thread serving the main queue). Returns whether it was.
    private func letTheMainActorRun() -> Bool {
        if Thread.isMainThread {
            RunLoop.main.run(until: Date().addingTimeInterval(0.001))
            return true
        }
        // This thread serves the main queue, which the effects' sends wait for: it runs them here.
        return store.runWorkQueuedForTheMainQueue()
    }

    /// A step that waited ``effectTimeout`` for the main actor to handle an effect's action.
    private func timedOutAwaitingTheMainActor() -> Progress {
        .timedOut(store.runningEffects.map { EffectName.of($0.id) })
    }

    /// What idleness means for a step.
    private enum Idleness {
        case progress(Progress)
        case waitingOutside([String])
    }

    /// Why nothing runs now that the pump has no job.
    private func idleness() -> Idleness {
        switch pump.idleness {
        case .asleep(let sleeps):
            return .progress(.asleep(sleeps))
        case .waitingOutside(let tasks):
            return .waitingOutside(tasks.map(name(of:)))
        case .noTasks:
            // No task of the test store's runs, but the store may still be delivering (to the main
            // actor, or from effects it ran before the test store was made).
            let running = store.runningEffects
            guard !running.isEmpty else { return .progress(.nothingRunning) }
            return .waitingOutside(running.map { EffectName.of($0.id) })
        }
    }

    /// Waits until a job comes from outside, or `isDone` holds, or nothing waits outside any more (an
    /// effect the pump does not run ended), or `deadline` passes; returns whether it did not time out.
    /// Sleeps a millisecond at a time: a main actor running the test can run what the effects send it.
    nonisolated(nonsending) private func waitForOutsideWork(
        until deadline: ContinuousClock.Instant, or isDone: () -> Bool
    ) async -> Bool {
        while ContinuousClock.now < deadline {
            if isDone() || pump.state.withLock({ $0.hasJobs }) || !isWaitingOutside { return true }
            if Task.isCancelled { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return isDone() || pump.state.withLock { $0.hasJobs } || !isWaitingOutside
    }

    /// Whether some effect still waits on something outside the test store.
    private var isWaitingOutside: Bool {
        if case .waitingOutside = idleness() { return true }
        return false
    }

    /// An effect task's name in messages: by the id the effect runs under (a debounce's or
    /// throttle's, for a debounced or throttled effect).
    func name(of effect: EffectTask) -> String {
        let id = store.effectID(of: effect.ticket) ?? effect.identity.id
        return effect.isTimer ? "the wait of \(ValueDump.inline(id.base)) (a debounce or throttle)" : EffectName.of(id)
    }

    /// The failure of a step that expected `expectation` and stopped for `progress`: why, and what to
    /// do, as two sentences.
    func failure(_ expectation: String, _ progress: Progress, call: String) -> String {
        switch progress {
        case .done, .nothingRunning:
            return """
                \(expectation), but no effect is running and no action was received.
                Send the action that starts the effect first, or remove this \(call).
                """
        case .asleep, .timedOut, .cancelled:
            return "\(expectation), but \(reason(progress)).\n\(advice(progress, call: call))."
        }
    }

    /// Why a step that stopped for `progress` found nothing: a clause.
    func reason(_ progress: Progress) -> String {
        switch progress {
        case .done, .nothingRunning:
            return "no effect is running"
        case .asleep(let sleeps):
            let list = sleeps.map { sleep in
                let name = sleep.effect.map(name(of:)) ?? "a task"
                return "\(name) sleeps until \(sleep.deadline.offset) (the clock is at \(sleep.clock.now.offset))"
            }
            return "every effect waits on a TestClock: \(list.joined(separator: "; "))"
        case .timedOut(let names):
            return """
                \(names.joined(separator: ", ")) waited for \(effectTimeout) on something outside the test \
                store (real I/O, another thread, a clock that is not a TestClock)
                """
        case .cancelled:
            return "the task awaiting it was cancelled"
        }
    }

    /// What to do about a step, `call`, that stopped for `progress`: a sentence without its period.
    func advice(_ progress: Progress, call: String) -> String {
        switch progress {
        case .done, .nothingRunning:
            "Send the action that starts the effect first"
        case .asleep:
            call == "receive"
                ? "Advance the clock: await clock.advance(by:), or receive(_:after:on:)"
                : "Advance the clock: await clock.advance(by:)"
        case .timedOut:
            "Give the effect a dependency that answers at once or sleeps on a TestClock, or raise effectTimeout"
        case .cancelled:
            "The effects still running were cancelled with it"
        }
    }
}
