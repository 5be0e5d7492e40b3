/// Which thread waits for which, across every store: the check that makes cross-store deadlock
/// impossible.
///
/// A thread that sends an action to a store another thread is handling waits until that thread
/// has handled it. Two threads each inside a handler of one store, sending to each other's store
/// (A's handler sends to B while B's handler sends to A), would each wait for the other forever.
/// Before it waits, a thread records the edge "I wait for thread T" here; when following the edges
/// from T leads back to itself, waiting would close a cycle, so it does not wait: its action stays
/// queued, to be handled by T right after T's current work, and the send returns at once.
///
/// Only the slow path takes this lock: a send to a store that is idle, or that the calling thread
/// itself is handling, never looks here.
final class WaitGraph: @unchecked Sendable {
    static let shared = WaitGraph()

    private let lock = Lock()
    /// Guarded by `lock`: each waiting thread and the thread it waits for.
    private var waitsFor: [Edge] = []

    private struct Edge {
        let waiter: ThreadID
        let holder: ThreadID
    }

    /// Records that `waiter` waits for `holder`, unless `holder` (through the threads it waits for)
    /// waits for `waiter`.
    ///
    /// - Returns: `false` when waiting would close a cycle: then nothing is recorded.
    func beginWait(_ waiter: ThreadID, for holder: ThreadID) -> Bool {
        lock.withLock {
            var next: ThreadID? = holder
            while let thread = next {
                if thread == waiter { return false }
                next = waitsFor.first { $0.waiter == thread }?.holder
            }
            waitsFor.append(Edge(waiter: waiter, holder: holder))
            return true
        }
    }

    /// Removes the edge that ``beginWait(_:for:)`` recorded for `waiter`.
    func endWait(_ waiter: ThreadID) {
        lock.withLock { waitsFor.removeAll { $0.waiter == waiter } }
    }
}
