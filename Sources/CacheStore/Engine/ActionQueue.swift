import CacheStoreAtomics

/// The turn of a store tree (a store and its scoped stores): who handles actions now, and what waits.
///
/// One thread at a time, the *handling thread*, handles the tree's actions; it holds no lock while
/// it does, so handlers, observers and effects may call back into any store.
///
/// - A send to an idle tree makes the calling thread the handling thread: it handles the action at
///   once, then everything queued meanwhile, then returns.
/// - A send from the handling thread itself (a handler, an observer, an immediate effect) is queued
///   and handled right after the current action, before the outermost send returns.
/// - A synchronous send from another thread is queued, and the sender waits until the handling
///   thread has handled it, unless the sender holds a turn itself (of any store, or of a key's
///   updates): a thread that holds a turn never waits for another, so no two threads ever wait for
///   each other. Its action is then handled right after the handling thread's current work.
/// - An effect's send never blocks: it is queued, and the effect suspends until it was handled
///   (``perform(suspending:)``).
///
/// Work queued is handled first in, first out, so actions sent in a happens-before order are handled
/// in that order. A tree whose actions are handled on the main actor has its own entry points, in
/// ActionQueue+MainActor.swift.
///
/// ## The turn word and the lock
///
/// `turn` says who handles: `0` when the tree is idle, else the handling thread's ``ThreadID/word``,
/// with ``queuedFlag`` set while work is queued. Beginning and ending a turn with nothing queued is
/// one compare-and-exchange each, with no lock. `lock` guards the queue (the fields below), and is
/// held only to read or change it, never while work runs. The flag is set, and `turn` changed from
/// idle to a thread, under `lock` on the slow path; the handling thread clears the flag only under
/// `lock` with the queue empty. So work queued is always seen: either the handling thread's
/// lock-free end fails on the flag and it drains, or the end wins and the sender finds the tree idle
/// and handles the work itself. (A main-actor tree may also be idle with work queued for the main
/// queue: `turn` is then ``queuedFlag`` alone, which no compare-and-exchange from `0` takes.)
@usableFromInline
final class ActionQueue: @unchecked Sendable {
    /// Who handles the tree's actions now, and whether work is queued (see the type's discussion).
    @usableFromInline let turn = AtomicWord(0)
    @usableFromInline let lock = ConditionLock()
    /// Work queued for the handling thread, oldest first from `head`. Guarded by `lock`, as is every
    /// `var` below but `hasDebugLog`.
    @exclusivity(unchecked) @usableFromInline var queued: [QueuedWork?] = []
    @exclusivity(unchecked) @usableFromInline var head = 0
    /// How many items were ever queued, and how many of those are done: a waiter waits for its own.
    @exclusivity(unchecked) @usableFromInline var queuedCount: UInt64 = 0
    @exclusivity(unchecked) @usableFromInline var doneCount: UInt64 = 0
    @exclusivity(unchecked) @usableFromInline var waiterCount = 0
    /// Whether a drain of a main-actor tree's queue is scheduled on the main queue.
    @exclusivity(unchecked) @usableFromInline var isMainDrainScheduled = false
    /// Whether a store of the tree has a debug log: until then, no store of the tree looks for a log
    /// that wants its action's report. Guarded by the turn (not by `lock`); set once, never unset.
    @exclusivity(unchecked) @usableFromInline var hasDebugLog = false

    /// The bit of `turn` set while work is queued: a thread's word never has it (see ``ThreadID/word``).
    @inlinable static var queuedFlag: UInt { 1 }

    @inlinable init() {}

    /// Makes the calling thread the handling thread and returns `true`, or returns `false` when
    /// another thread, or this one already, is handling, or work waits for the main queue.
    @inlinable
    func beginTurn() -> Bool {
        guard turn.compareExchange(expected: 0, desired: ThreadID.current.word) else { return false }
        cachestore_turn_taken()
        return true
    }

    /// Runs the work queued during the turn, in order, then ends the turn.
    @inlinable
    func endTurn() {
        if turn.compareExchange(expected: ThreadID.current.word, desired: 0) {
            cachestore_turn_given_up()
            return
        }
        drainQueued()  // the flag is set: work was queued
    }

    /// Whether the calling thread is the tree's handling thread.
    @inlinable
    var isHandlingThread: Bool {
        turn.load() & ~Self.queuedFlag == ThreadID.current.word
    }

    /// Runs queued work until none is left, then ends the turn and wakes the waiting senders. Called
    /// by the handling thread, which counts its turn as held until the end.
    @usableFromInline
    func drainQueued() {
        while true {
            lock.lock()
            guard head < queued.count else {
                queued.removeAll(keepingCapacity: queued.count <= 1_024)
                head = 0
                // Senders change `turn` only under `lock`, and nobody begins a turn that is taken.
                turn.store(0)
                let hasWaiters = waiterCount > 0
                lock.unlock()
                cachestore_turn_given_up()
                if hasWaiters { lock.broadcast() }
                return
            }
            var work = queued[head].take()?.run
            head += 1
            lock.unlock()
            work?()
            // Let go of the work before saying it is done: a waiter's work holds a closure that must
            // not outlive its wait (`withoutActuallyEscaping`).
            work = nil
            lock.lock()
            doneCount += 1
            let hasWaiters = waiterCount > 0
            lock.unlock()
            if hasWaiters { lock.broadcast() }
        }
    }

    /// Runs `work` in the tree's turn: now when the tree is idle, else after the work queued before
    /// it (waiting for it when the caller may; see the type's discussion).
    ///
    /// - Parameter waiting: Whether a caller on another thread than the handling one waits for
    ///   `work` to be done; `false` for work nobody waits on (an effect's end).
    @usableFromInline
    func perform(waiting: Bool = true, _ work: @escaping () -> Void) {
        guard let ticket = performOrQueue(work) else { return }
        guard waiting, !cachestore_holds_turn() else { return }
        lock.lock()
        waiterCount += 1
        while doneCount < ticket { lock.wait() }
        waiterCount -= 1
        lock.unlock()
    }

    /// Runs `work` in the tree's turn from an effect: now when the tree is idle, else queued, and the
    /// effect suspends (holding no thread) until the handling thread has run it.
    @usableFromInline
    func perform(suspending work: @escaping () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            perform(waiting: false) {
                work()
                done.resume()
            }
        }
    }

    /// Runs `work` now when the tree is idle (then returns `nil`), else queues it for the handling
    /// thread and returns its place in the queue.
    @usableFromInline
    func performOrQueue(_ work: @escaping () -> Void) -> UInt64? {
        let me = ThreadID.current
        lock.lock()
        var state = turn.load()
        while true {
            if state == 0 {
                guard turn.compareExchange(expected: 0, desired: me.word) else {
                    state = turn.load()
                    continue
                }
                lock.unlock()
                cachestore_turn_taken()
                work()
                drainQueued()
                return nil
            }
            // Flag the queued work; fails when the handling thread ended its turn meanwhile.
            if state & Self.queuedFlag != 0 || turn.compareExchange(expected: state, desired: state | Self.queuedFlag) {
                break
            }
            state = turn.load()
        }
        let ticket = append(work)
        lock.unlock()
        return state & ~Self.queuedFlag == me.word ? nil : ticket
    }

    /// Queues `work`; returns its place in the queue. Lock held.
    @usableFromInline
    func append(_ work: @escaping () -> Void) -> UInt64 {
        queued.append(QueuedWork(run: work))
        queuedCount += 1
        return queuedCount
    }

    /// Runs `body` in the tree's turn and returns its result, waiting for the turn if need be.
    ///
    /// On the handling thread itself, `body` runs at once. Only for callers that hold no turn of
    /// another store (a test store, configuration), so that the wait is always allowed.
    @usableFromInline
    func performAndWait<Result>(_ body: @escaping () -> Result) -> Result {
        if isHandlingThread { return body() }
        var result: Result?
        perform { result = body() }
        guard let result else {
            preconditionFailure("performAndWait was called from a thread that holds another store's turn")
        }
        return result
    }
}

/// A closure queued for the handling thread, wrapped so that the array holds it as it is.
@usableFromInline
struct QueuedWork {
    @usableFromInline let run: () -> Void
}

/// Queued work moves between threads only inside the queue, under its lock.
@available(*, unavailable)
extension QueuedWork: Sendable {}
