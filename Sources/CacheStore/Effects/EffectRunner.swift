/// The effects of one store that are running now: their tasks, and their ``EffectLifecycle``.
///
/// `lock` guards the lifecycle and is held only to read or change it: tasks are started and
/// cancelled, and actions handled, with it released.
@usableFromInline
final class EffectRunner: @unchecked Sendable {
    typealias Ticket = EffectLifecycle.Ticket

    private let lock = Lock()
    private var lifecycle = EffectLifecycle()

    @usableFromInline init() {}

    /// The ids of the effects running now.
    var ids: Set<AnyHashable> {
        lock.withLock { Set(lifecycle.entries.keys) }
    }

    /// Starts `body` in a task under `id`, cancelling the effect running under it first.
    ///
    /// - Parameter body: The effect's work; it gets the ticket to pass to the other methods.
    func start(_ id: AnyHashable, _ body: @escaping @Sendable (Ticket) async -> Void) {
        let (ticket, replaced) = lock.withLock { lifecycle.start(id) }
        replaced?.cancel()
        let task = Task { await body(ticket) }
        if !lock.withLock({ lifecycle.attach(task, to: ticket) }) { task.cancel() }
    }

    /// Admits an action the effect sent, to be handled now by the calling thread.
    func beginDelivery(_ ticket: Ticket) -> Bool {
        lock.withLock { lifecycle.beginDelivery(ticket, on: .current) }
    }

    /// The admitted action has been handled.
    func endDelivery(_ ticket: Ticket) {
        lock.withLock { lifecycle.endDelivery(ticket) }
    }

    /// Ends the effect; returns whether it was still running (so its last action may be handled).
    func finish(_ ticket: Ticket) -> Bool {
        lock.withLock { lifecycle.finish(ticket) }
    }

    /// Cancels the effect running under `id`; see ``EffectLifecycle/cancel(_:on:)``.
    @discardableResult
    func cancel(_ id: AnyHashable) -> Bool {
        let (isCancelled, task) = lock.withLock { lifecycle.cancel(id, on: .current) }
        task?.cancel()
        return isCancelled
    }

    /// Cancels every running effect.
    func cancelAll() {
        for task in lock.withLock({ lifecycle.cancelAll() }) { task.cancel() }
    }
}
