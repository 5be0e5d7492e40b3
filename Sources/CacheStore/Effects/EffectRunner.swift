/// The effects of one store that are running now, by id.
///
/// Each start gets a token; an effect's own bookkeeping (finishing, delivering) names its token, so a
/// finishing effect can never remove or cancel a newer effect that reused its id.
@usableFromInline
final class EffectRunner: @unchecked Sendable {
    private struct Running {
        let token: UInt64
        var task: Task<Void, Never>?
    }

    @usableFromInline init() {}

    private let lock = Lock()
    private var running: [AnyHashable: Running] = [:]
    private var lastToken: UInt64 = 0

    /// The ids of the effects running now.
    var ids: Set<AnyHashable> {
        lock.withLock { Set(running.keys) }
    }

    /// One start of an effect: its id, and the token that tells it from later starts with the same id.
    struct Ticket: @unchecked Sendable {
        let id: AnyHashable
        let token: UInt64
    }

    /// Starts `body` under `id`, cancelling an effect already running under it first.
    ///
    /// - Parameter body: The effect's task body; it gets the ticket to pass to ``isRunning(_:)`` and
    ///   ``finish(_:)``.
    func start(_ id: AnyHashable, _ body: @escaping @Sendable (Ticket) async -> Void) {
        let (token, replaced) = lock.withLock {
            lastToken += 1
            let replaced = running.updateValue(Running(token: lastToken), forKey: id)
            return (lastToken, replaced)
        }
        replaced?.task?.cancel()
        let ticket = Ticket(id: id, token: token)
        let task = Task { await body(ticket) }
        let isStillRunning = lock.withLock {
            guard running[id]?.token == token else { return false }
            running[id]?.task = task
            return true
        }
        if !isStillRunning { task.cancel() }
    }

    /// Whether the effect started with `ticket` is still the one running under its id.
    func isRunning(_ ticket: Ticket) -> Bool {
        lock.withLock { running[ticket.id]?.token == ticket.token }
    }

    /// Removes the effect started with `ticket`, if it is still the one running under its id.
    ///
    /// - Returns: Whether it was; when `false`, it was cancelled or replaced and must not deliver.
    @discardableResult
    func finish(_ ticket: Ticket) -> Bool {
        lock.withLock {
            guard running[ticket.id]?.token == ticket.token else { return false }
            running[ticket.id] = nil
            return true
        }
    }

    /// Cancels the effect running under `id`.
    ///
    /// - Returns: Whether one was running.
    @discardableResult
    func cancel(_ id: AnyHashable) -> Bool {
        guard let cancelled = lock.withLock({ running.removeValue(forKey: id) }) else { return false }
        cancelled.task?.cancel()
        return true
    }

    /// Cancels every running effect.
    func cancelAll() {
        let cancelled = lock.withLock {
            defer { running = [:] }
            return running.values
        }
        for effect in cancelled { effect.task?.cancel() }
    }
}
