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
/// The main queue is a node of its own (``Holder/mainQueue``): an effect's thread waits for it when
/// it sends to a store that handles its actions on the main actor, and code running on the main
/// queue that waits is recorded as the main queue waiting (on Linux, after `dispatchMain()`, the
/// thread serving the main queue can change).
///
/// Only the slow path takes this lock: a send to a store that is idle, or that the calling thread
/// itself is handling, never looks here.
final class WaitGraph: @unchecked Sendable {
    static let shared = WaitGraph()

    /// What a thread waits for.
    enum Holder {
        case thread(ThreadID)
        /// The main queue, whichever thread serves it.
        case mainQueue
    }

    private let lock = Lock()
    /// Guarded by `lock`: each waiting thread and what it waits for.
    private var waitsFor: [Edge] = []

    private struct Edge {
        let waiter: ThreadID
        /// Whether the waiter runs on the main queue: then it is the main queue that waits.
        let isOnMainQueue: Bool
        let holder: Holder
    }

    /// Records that `waiter` waits for the thread `holder`; see ``beginWait(_:for:)-(_,Holder)``.
    func beginWait(_ waiter: ThreadID, for holder: ThreadID) -> Bool {
        beginWait(waiter, for: .thread(holder))
    }

    /// Records that `waiter` (the calling thread) waits for `holder`, unless `holder` (through what
    /// it waits for) waits for `waiter`.
    ///
    /// - Returns: `false` when waiting would close a cycle: then nothing is recorded.
    func beginWait(_ waiter: ThreadID, for holder: Holder) -> Bool {
        let isOnMainQueue = MainQueue.isCurrent
        return lock.withLock {
            var next: Holder? = holder
            while let node = next {
                switch node {
                case .thread(let thread):
                    if thread == waiter { return false }
                    next = waitsFor.first { $0.waiter == thread }?.holder
                case .mainQueue:
                    if isOnMainQueue { return false }
                    next = waitsFor.first { $0.isOnMainQueue }?.holder
                }
            }
            waitsFor.append(Edge(waiter: waiter, isOnMainQueue: isOnMainQueue, holder: holder))
            return true
        }
    }

    /// Removes the edge that ``beginWait(_:for:)-(_,Holder)`` recorded for `waiter`.
    func endWait(_ waiter: ThreadID) {
        lock.withLock { waitsFor.removeAll { $0.waiter == waiter } }
    }
}
