import CacheStore

/// What a call that runs the oldest queued effect expects of it, for its failure messages.
struct EffectExpectation {
    /// The first words of each failure: "Expected to receive .loaded".
    let summary: String
    /// The call as the messages name it: "receive(_:)".
    let call: String

    /// How to get past a wait on a clock that did not move.
    let clockAdvice: String

    /// - Parameter advance: How far the `receive` moves a clock, if it does.
    static func receiving<Action>(_ action: Action, advancing advance: Duration? = nil) -> EffectExpectation {
        let advice =
            if let advance {
                """
                receive(_:after:on:) runs the oldest queued effect, and moving the clock \(advance) did not end \
                its wait: move it to the end of this wait, or cancel the effect first.
                """
            } else {
                "Advance the clock: receive(_:after:on:) advances a TestClock while the effect waits."
            }
        return EffectExpectation(
            summary: "Expected to receive \(ValueDump.inline(action))", call: "receive(_:)", clockAdvice: advice)
    }

    static let noAction = EffectExpectation(
        summary: "Expected an effect to finish without an action", call: "runEffectExpectingNoAction()",
        clockAdvice: "Advance the clock first (a TestClock's advance(by:)), then run the effect.")
}

extension TestStore {
    /// Takes the oldest queued effect to run it; reports a failure and returns `nil` when none is queued,
    /// or when a blocking call runs inside a task where effects cannot get a thread of their own.
    ///
    /// - Parameters:
    ///   - expectation: What the caller expects of the effect, for the failure messages.
    ///   - blocking: Whether the caller blocks its thread until the effect has run.
    ///   - advancing: The clock the caller advances while the effect runs, and how far, if it does
    ///     (see ``EffectQueue/takeFirst(advancing:)``).
    ///   - location: Where failures are reported.
    ///   - skipped: What a non-exhaustive `receive` skipped before, for the message when the queue runs
    ///     out.
    func takeOldestEffect(
        for expectation: EffectExpectation, blocking: Bool, advancing: (clock: TestClock, by: Duration)? = nil,
        at location: FailureLocation, skipped: [String] = []
    ) -> QueuedEffect<Action>? {
        if blocking, !QueuedEffect<Action>.canRunOnOwnThread, isInsideTask {
            TestStoreFailure.report(
                """
                \(expectation.summary), but the synchronous \(expectation.call) cannot run an effect inside a \
                task before macOS 15, iOS 18, tvOS 18 or watchOS 11.
                Use `await store.\(expectation.call)` in async code.
                """,
                at: location)
            return nil
        }
        let advance = advancing.map { (clock: $0.clock as AnyObject, by: $0.by) }
        if let effect = changingQueue({ $0.takeFirst(advancing: advance) }) { return effect }
        guard skipped.isEmpty else {
            TestStoreFailure.report(
                """
                \(expectation.summary), but no queued effect produced it. Skipped on the way: \
                \(skipped.joined(separator: ", ")).
                Send the action that starts the effect first, or fix the action passed to \(expectation.call).
                """,
                at: location)
            return nil
        }
        TestStoreFailure.report(
            """
            \(expectation.summary), but no effect is queued.
            Send the action that starts the effect first, or remove this \(expectation.call).
            """,
            at: location)
        return nil
    }

    /// The actions `effect` produced; when the wait gave up instead, ends the effect, reports why,
    /// handles what the effect sent before, unchecked, as a store has, and returns `nil`.
    func actions(
        of effect: QueuedEffect<Action>,
        _ run: EffectRunOutcome<Action>,
        for expectation: EffectExpectation,
        at location: FailureLocation
    ) -> [Action]? {
        let id = effect.name
        var message: String
        switch run.outcome {
        case .value(let actions):
            guard queue.withValue({ $0.isTakenCancelled }) else { return actions }
            message = """
                \(expectation.summary), but \(id) was cancelled (or replaced) while it ran: a store handles \
                nothing it sends.
                Expect what the app does once the effect is cancelled, or cancel it after this \(expectation.call).
                """
            endEffect(effect)
            TestStoreFailure.report(message, at: location)
            return nil
        case .timedOut where effect.wait != nil:
            message = """
                \(expectation.summary), but \(id) waits on its clock (a debounce or a throttle), which did not \
                reach the end of the wait within \(effectTimeout).
                \(expectation.clockAdvice)
                """
        case .timedOut:
            message = """
                \(expectation.summary), but \(id) did not finish within \(effectTimeout).
                Make the effect finish (a mock dependency that returns at once), or raise effectTimeout.
                """
        case .cancelled:
            message = """
                \(expectation.summary), but the wait for \(id) was cancelled.
                The task awaiting \(expectation.call) was cancelled; the effect was cancelled too.
                """
        }
        endEffect(effect, .gaveUp)
        let sent = run.sentBeforeGivingUp
        if !sent.isEmpty {
            let list = sent.map { ValueDump.inline($0) }.joined(separator: ", ")
            message += "\nWhat it sent before, handled unchecked as in the app: \(list)."
        }
        TestStoreFailure.report(message, at: location)
        for action in sent { handleUnchecked(action, at: location) }
        return nil
    }

    /// Queues the actions after the first of a multi-action effect first, in order.
    func requeueRest(of produced: [Action], from effect: QueuedEffect<Action>) {
        guard produced.count > 1 else { return }
        changingQueue { $0.requeue(produced.dropFirst(), from: effect) }
    }

    /// Ends `effect`, taken by ``takeOldestEffect(for:blocking:advancing:at:skipped:)`` and run: what follows it
    /// in its concatenation starts (see ``EffectQueue/finish(_:_:)``).
    ///
    /// - Returns: For a wait that is over, whether what it led to runs, to be run next.
    @discardableResult
    func endEffect(_ effect: QueuedEffect<Action>, _ ending: EffectQueue<Action>.Ending = .ran) -> Bool {
        changingQueue { $0.finish(effect, ending) }
    }
}

/// Whether the caller runs in a task (on the concurrency pool), rather than on a thread of its own.
private var isInsideTask: Bool {
    withUnsafeCurrentTask { $0 != nil }
}
