/// Where the tasks of a store's effects run: a new task each (an app's store), or a task on an
/// executor a test store drives, so that effects make progress only when the test lets them.
///
/// ```swift
/// let starter = EffectStarter.tasks                    // Task { … }
/// let pumped = EffectStarter.custom { effect, work in Task(executorPreference: testExecutor, operation: work) }
/// ```
///
/// Only where the work runs changes: what runs, and when it starts, waits or delivers, is decided by
/// the store's ``EffectScheduler`` either way.
@usableFromInline
package enum EffectStarter: Sendable {
    /// Each effect's work in a new task on the global concurrent executor.
    case tasks
    /// Each effect's work in the task this function makes, told which effect it is.
    case custom(@Sendable (_ effect: EffectTask, _ work: sending @escaping () async -> Void) -> Task<Void, Never>)

    /// Starts `work`, the work of `effect`, in a task where the starter says.
    @inlinable
    func start(
        _ effect: @autoclosure () -> EffectTask, _ work: sending @escaping () async -> Void
    ) -> Task<Void, Never> {
        switch self {
        case .tasks: Task(operation: work)
        case .custom(let start): start(effect(), work)
        }
    }
}

/// Which task of which effect a starter starts: the work of an operation, or the timer of a wait.
@usableFromInline
package struct EffectTask: Sendable {
    /// The node the task belongs to.
    package let ticket: EffectTicket
    /// The effect's identity: its id, or the id a debounced or throttled effect waits under.
    package let identity: EffectIdentity
    /// Whether the task is a debounce's or throttle's timer, not the user's operation.
    package let isTimer: Bool

    @usableFromInline
    init(ticket: EffectTicket, identity: EffectIdentity, isTimer: Bool) {
        self.ticket = ticket
        self.identity = identity
        self.isTimer = isTimer
    }
}
