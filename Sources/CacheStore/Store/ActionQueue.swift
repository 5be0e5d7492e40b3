/// Serialises the actions of a store and its scopes, and queues re-entrant ones.
///
/// One action is handled at a time per store tree. A thread that sends while another thread is
/// handling waits its turn. An action sent from the handling thread itself (by a handler, an
/// observer, an immediate effect) is queued and handled right after the current one, before the
/// outermost send returns, so user code can call back into the store without deadlocking it.
///
/// - Important: A handler or observer must not block waiting for *another* thread that sends to the
///   same store tree: that thread waits for the handler's turn to end.
@usableFromInline
final class ActionQueue: @unchecked Sendable {
    @usableFromInline let turn = Lock(recursive: true)
    /// Guarded by `turn`: only the thread holding it reads or writes these.
    @exclusivity(unchecked) @usableFromInline var isHandling = false
    @exclusivity(unchecked) @usableFromInline var queued: [() -> Void] = []

    @inlinable init() {}

    /// Starts a turn and returns `true`, or returns `false` when the calling thread is inside a turn
    /// already: then the caller queues its work with ``enqueue(_:)`` instead.
    @inlinable
    func beginTurn() -> Bool {
        turn.lock()
        guard !isHandling else {
            turn.unlock()
            return false
        }
        isHandling = true
        return true
    }

    /// Queues `work` to run after the current action of this thread's turn.
    @inlinable
    func enqueue(_ work: @escaping () -> Void) {
        turn.withLock { queued.append(work) }
    }

    /// Runs the work queued during the turn, in order, then ends the turn.
    @inlinable
    func endTurn() {
        if !queued.isEmpty { drainQueued() }
        isHandling = false
        turn.unlock()
    }

    /// Runs `body` in a turn of its own and returns its result; inside a turn, runs it there.
    @inlinable
    func runNow<Result>(_ body: () -> Result) -> Result {
        guard beginTurn() else { return turn.withLock(body) }
        defer { endTurn() }
        return body()
    }

    /// Runs `work` now in a turn of its own, or queues it when called from inside a turn.
    @inlinable
    func run(_ work: @escaping () -> Void) {
        guard beginTurn() else { return enqueue(work) }
        work()
        endTurn()
    }

    @usableFromInline
    func drainQueued() {
        var next = 0
        while next < queued.count {
            let item = queued[next]
            next += 1
            item()
        }
        queued.removeAll(keepingCapacity: queued.count <= 1024)
    }
}
