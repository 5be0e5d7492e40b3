import CacheStoreAtomics
import Dispatch

/// The entry points of a tree whose actions are handled on the main actor
/// (``ActionIsolation/mainActor``).
///
/// Every send goes through the queue, first in, first out, so that actions sent in a
/// happens-before order are handled in that order wherever they come from: a send from another
/// thread queues its work and schedules a drain on the main queue; a send on the main queue runs
/// after the work queued before it. Only code on the main queue takes such a tree's turn; while
/// work waits for the main queue, `turn` is ``queuedFlag`` alone, which the lock-free
/// ``beginTurn()`` never takes.
extension ActionQueue {
    /// On the main queue: runs `work` in the turn after the work queued before it; at once, with that
    /// work, when the tree is idle; queued when the main queue is handling already (a handler's send).
    @usableFromInline
    func performOnMainQueue(_ work: @escaping () -> Void) {
        let me = ThreadID.current
        lock.lock()
        let state = turn.load()
        if state == 0 || state == Self.queuedFlag {
            turn.store(state == 0 ? me.word : me.word | Self.queuedFlag)
            if state != 0 { _ = append(work) }
            lock.unlock()
            cachestore_turn_taken()
            if state == 0 { work() }
            return drainQueued()
        }
        if state & Self.queuedFlag == 0 { turn.store(state | Self.queuedFlag) }
        _ = append(work)
        lock.unlock()
    }

    /// From any other thread: queues `work` for the main queue and returns at once.
    @usableFromInline
    func queueForMainQueue(_ work: @escaping () -> Void) {
        lock.lock()
        let state = turn.load()
        if state & Self.queuedFlag == 0 { turn.store(state | Self.queuedFlag) }
        _ = append(work)
        let schedules = !isMainDrainScheduled
        isMainDrainScheduled = true
        lock.unlock()
        guard schedules else { return }
        let queue = UncheckedSendable(self)
        DispatchQueue.main.async { queue.value.drainOnMainQueue() }
    }

    /// From an effect: queues `work` for the main queue, and suspends until it has run.
    @usableFromInline
    func performOnMainQueue(suspending work: @escaping () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queueForMainQueue {
                work()
                done.resume()
            }
        }
    }

    /// On the main queue, for a test store's step: runs `body` in the turn, after the work queued for
    /// the main queue, which it runs here first (the drain scheduled on the main queue cannot run while
    /// the main queue waits for it); at once when this thread is handling the tree.
    func inTurnOnMainQueue<Result>(_ body: () -> Result) -> Result {
        if isHandlingThread { return body() }
        return withoutActuallyEscaping(body) { body in
            var result: Result?
            // Only code on the main queue takes the turn, and this is the main queue: the turn is free
            // or waits for it, so `performOnMainQueue` runs the queued work and `body` before it returns.
            performOnMainQueue { result = body() }
            guard let result else { preconditionFailure("the main queue found its tree's turn taken elsewhere") }
            return result
        }
    }

    /// On the main queue: runs the queued work, unless the main queue is handling the tree already
    /// (its turn's end drains it).
    func drainOnMainQueue() {
        let me = ThreadID.current
        lock.lock()
        isMainDrainScheduled = false
        guard turn.load() == Self.queuedFlag else { return lock.unlock() }
        turn.store(me.word | Self.queuedFlag)
        lock.unlock()
        cachestore_turn_taken()
        drainQueued()
    }
}
