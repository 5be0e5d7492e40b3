/// A queued effect a `receive` has started: where its actions arrive, and its task, which is
/// cancelled when the test store gives up on it.
struct RunningEffect<Action>: Sendable {
    let completion: Completion<[Action]>
    let task: Task<Void, Never>

    /// Waits for the effect's actions; on a timeout or a cancelled wait the effect is cancelled too.
    func actions(timeout: Duration) async -> WaitOutcome<[Action]> {
        cancellingOnGiveUp(await completion.value(timeout: timeout))
    }

    /// Blocks the calling thread until the effect's actions arrive; on a timeout the effect is cancelled.
    func actionsBlocking(timeout: Duration) -> WaitOutcome<[Action]> {
        cancellingOnGiveUp(completion.valueBlocking(timeout: timeout))
    }

    private func cancellingOnGiveUp(_ outcome: WaitOutcome<[Action]>) -> WaitOutcome<[Action]> {
        if case .value = outcome { return outcome }
        task.cancel()
        return outcome
    }
}
