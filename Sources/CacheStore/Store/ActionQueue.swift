import Foundation

/// Serialises the actions of a store and its scopes, and queues re-entrant ones.
///
/// One action is handled at a time per store tree. A thread that sends while another thread is
/// handling waits its turn. An action sent from the handling thread itself (by a handler, an
/// observer, an immediate effect) is queued and handled right after the current one, before the
/// outermost send returns, so user code can call back into the store without deadlocking it.
///
/// - Important: A handler or observer must not block waiting for *another* thread that sends to the
///   same store tree: that thread waits for the handler's turn to end.
final class ActionQueue: @unchecked Sendable {
    private let turn = NSRecursiveLock()
    /// Guarded by `turn`: only the thread holding it reads or writes these.
    private var isHandling = false
    private var queued: [() -> Void] = []

    /// Runs `body` now, in its own turn, and returns its result. Actions it queues run before this
    /// returns. Called from inside a turn, it runs nested rather than queued.
    func runNow<Result>(_ body: () -> Result) -> Result {
        turn.lock()
        defer { turn.unlock() }
        guard !isHandling else { return body() }
        isHandling = true
        let result = body()
        drainQueued()
        isHandling = false
        return result
    }

    /// Runs `work` now, or after the current action when called from inside one.
    func run(_ work: @escaping () -> Void) {
        turn.lock()
        defer { turn.unlock() }
        guard !isHandling else {
            queued.append(work)
            return
        }
        isHandling = true
        work()
        drainQueued()
        isHandling = false
    }

    private func drainQueued() {
        var next = 0
        while next < queued.count {
            let item = queued[next]
            next += 1
            item()
        }
        queued.removeAll(keepingCapacity: queued.count <= 1024)
    }
}
