/// A queued effect a `receive` has started: where its actions arrive, and its task, which is
/// cancelled when the test store gives up on it.
struct RunningEffect<Action>: Sendable {
    let completion: Completion<[Action]>
    let task: Task<Void, Never>
    /// The actions it has sent so far (``Send``), without the one it returns.
    let sent: LockedValue<[Action]>

    /// Waits for the effect's actions; on a timeout or a cancelled wait the effect is cancelled too.
    func actions(timeout: Duration) async -> EffectRunOutcome<Action> {
        cancellingOnGiveUp(await completion.value(timeout: timeout))
    }

    /// Blocks the calling thread until the effect's actions arrive; on a timeout the effect is cancelled.
    func actionsBlocking(timeout: Duration) -> EffectRunOutcome<Action> {
        cancellingOnGiveUp(completion.valueBlocking(timeout: timeout))
    }

    private func cancellingOnGiveUp(_ outcome: WaitOutcome<[Action]>) -> EffectRunOutcome<Action> {
        if case .value = outcome { return EffectRunOutcome(outcome: outcome, sentBeforeGivingUp: []) }
        task.cancel()
        return EffectRunOutcome(outcome: outcome, sentBeforeGivingUp: sent.withValue { $0 })
    }
}

/// How an effect a `receive` ran ended.
struct EffectRunOutcome<Action> {
    /// Its actions, or why the test store gave up on it.
    var outcome: WaitOutcome<[Action]>
    /// What it sent before the test store gave up on it: a store has handled those already.
    var sentBeforeGivingUp: [Action]
}
