/// The turn of a store tree (a store and its scoped stores): who handles actions now, and what waits.
///
/// One thread at a time, the *handling thread*, handles the tree's actions; it holds no lock while
/// it does, so handlers, observers and effects may call back into any store.
///
/// - A send to an idle tree makes the calling thread the handling thread: it handles the action at
///   once, then everything queued meanwhile, then returns.
/// - A send from the handling thread itself (a handler, an observer, an immediate effect) is queued
///   and handled right after the current action, before the outermost send returns.
/// - A send from another thread is queued, and the sender waits until the handling thread has
///   handled it — unless waiting could deadlock (see ``WaitGraph``): then it returns at once and the
///   action is handled right after the handling thread's current work.
///
/// So whenever `handle(action:)` returns on a thread that was not inside a handler, its action has
/// been handled; and no two handlers of one tree ever run at once.
///
/// ## The turn word and the lock
///
/// `turn` says who handles: `0` when the tree is idle, else the handling thread's ``ThreadID/word``,
/// with ``queuedFlag`` set while work is queued for it. Beginning and ending a turn with nothing
/// queued is one compare-and-exchange each, with no lock: a plain `handle` takes no lock for its
/// turn. `lock` guards the queue (the fields below), and is held only to read or change it, never
/// while work runs. The flag is set, and `turn` changed from idle to a thread, under `lock` on the
/// slow path; the handling thread clears the flag only under `lock` with the queue empty. So work
/// queued is always seen: either the handling thread's lock-free end fails on the flag and it
/// drains, or the end wins and the sender finds the tree idle and handles the work itself.
///
/// (Callgrind, `store-handle` at 10 keys: 2,216 instructions per action with the turn's two lock
/// round trips, 2,095 with these two compare-and-exchanges; and four atomic instructions fewer.)
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
    /// Whether a store of the tree has a debug log: until then, no store of the tree looks for a log
    /// that wants its action's report. Guarded by the turn (not by `lock`); set once, never unset.
    @exclusivity(unchecked) @usableFromInline var hasDebugLog = false

    /// The bit of `turn` set while work is queued: a thread's word never has it (see ``ThreadID/word``).
    @inlinable static var queuedFlag: UInt { 1 }

    @inlinable init() {}

    /// Makes the calling thread the handling thread and returns `true`, or returns `false` when
    /// another thread, or this one already, is handling.
    @inlinable
    func beginTurn() -> Bool {
        turn.compareExchange(expected: 0, desired: ThreadID.current.word)
    }

    /// Runs the work queued during the turn, in order, then ends the turn.
    @inlinable
    func endTurn() {
        if turn.compareExchange(expected: ThreadID.current.word, desired: 0) { return }
        drainQueued()  // the flag is set: work was queued
    }

    /// Runs queued work until none is left, then ends the turn and wakes the waiting senders.
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
                if hasWaiters { lock.broadcast() }
                return
            }
            let work = queued[head].take()?.run
            head += 1
            lock.unlock()
            work?()
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
    ///   `work` to be done; `false` for work nobody waits on (an effect's last action: its task has
    ///   nothing left to do), so that the task's thread goes on at once instead of sleeping until the
    ///   handling thread wakes it.
    @usableFromInline
    func perform(waiting: Bool = true, _ work: @escaping () -> Void) {
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
                work()
                return drainQueued()
            }
            // Flag the queued work; fails when the handling thread ended its turn meanwhile.
            if state & Self.queuedFlag != 0 || turn.compareExchange(expected: state, desired: state | Self.queuedFlag) {
                break
            }
            state = turn.load()
        }
        queued.append(QueuedWork(run: work))
        queuedCount += 1
        let ticket = queuedCount
        lock.unlock()
        let holder = ThreadID(word: state & ~Self.queuedFlag)
        guard waiting, holder != me, WaitGraph.shared.beginWait(me, for: holder) else { return }
        lock.lock()
        waiterCount += 1
        while doneCount < ticket { lock.wait() }
        waiterCount -= 1
        lock.unlock()
        WaitGraph.shared.endWait(me)
    }

    /// Runs `body` in the tree's turn and returns its result, waiting for the turn if need be.
    ///
    /// On the handling thread itself, `body` runs at once. Only for callers that are never inside a
    /// handler of another store (a test store, configuration), so the wait cannot close a cycle.
    @usableFromInline
    func performAndWait<Result>(_ body: @escaping () -> Result) -> Result {
        if turn.load() & ~Self.queuedFlag == ThreadID.current.word { return body() }
        var result: Result?
        perform { result = body() }
        guard let result else {
            preconditionFailure("performAndWait was called from a handler of a store another thread handles")
        }
        return result
    }
}

/// A closure queued for the handling thread, wrapped so that the array holds it as it is: stored
/// bare in an array of optionals, each closure was first wrapped in a reabstraction thunk, one more
/// allocation per queued action (callgrind, `effect-roundtrip`).
@usableFromInline
struct QueuedWork {
    @usableFromInline let run: () -> Void
}

/// Queued work moves between threads only inside the queue, under its lock.
@available(*, unavailable)
extension QueuedWork: Sendable {}
