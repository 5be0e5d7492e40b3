/// The engine behind a ``Store``: one action's path from `handle` to committed state, observers,
/// the debug log and the effects it starts.
///
/// ```
/// handle(action) ─▶ ActionQueue turn ─▶ process ─▶ apply: handler on a TransactionCore ─▶ commit
///                                          │                                  ├─▶ observers, changes
///                                          │                                  └─▶ debug report
///                                          └─▶ EffectRunner.start ─▶ EffectScheduler decides
///                                                 └─▶ tasks ─▶ send / end ─▶ in the turn ─▶ process …
/// ```
///
/// Everything here runs in the turn of the store tree's ``ActionQueue`` (one action at a time per
/// tree), with no lock held: the handler, the debug output and observers may call back into any
/// store. The `var`s are guarded by that turn. Every lock the engine uses is listed in
/// ``LockCatalogue``.
@usableFromInline
final class StoreEngine<Key: Hashable & SendableMetatype, Action, Dependency>: @unchecked Sendable {
    /// The committed state, its core with its hot operations: a root cache's, or a scope of the parent
    /// store's state.
    @usableFromInline let state: CoreAccess<Key>
    @usableFromInline let queue: ActionQueue
    @usableFromInline let handler: StoreActionHandler<Key, Action, Dependency>
    /// Passed to the handler with each action; a test store may replace it between steps. Guarded
    /// by the turn.
    @exclusivity(unchecked) @usableFromInline var dependency: Dependency
    /// Where actions are handled; a scoped store shares its parent's.
    @usableFromInline let isolation: ActionIsolation
    /// Where the tasks of effects run: new tasks in an app, a test store's executor in a test.
    /// Guarded by the turn.
    @exclusivity(unchecked) @usableFromInline var starter: EffectStarter
    /// Hands an action on to the parent store, for a scoped store; runs after this store's handler,
    /// in the same turn, so a cancelled effect's action never reaches the parent after
    /// `cancel(id:)` returned `true`.
    @usableFromInline let forwardToParent: ((Action) -> Void)?
    /// The store this one is scoped from, for a scoped store: kept while this one lives, as its
    /// state is a view of the parent's, and ``DebugLog/parent`` does not retain the parent's engine.
    @usableFromInline let parentStore: AnyObject?
    /// Where this store's debug reports go: its own log and those above it (see ``DebugLog``).
    /// Guarded by the turn.
    @exclusivity(unchecked) @usableFromInline var debugLog = DebugLog<Key>()
    /// The last action's handler state, kept for the next action when nothing else holds it: a
    /// plain action then allocates nothing. Guarded by the turn.
    @exclusivity(unchecked) @usableFromInline var spare: (state: CacheStore<Key>, transaction: TransactionCore<Key>)?
    /// How many actions this store has handled: the sequence number of the one being handled, which
    /// the effects it starts remember. Guarded by the turn.
    @exclusivity(unchecked) @usableFromInline var handledCount: UInt64 = 0
    /// Sees every action the store handles, with where it came from and what it changed: a test
    /// store's. Set before the store handles its first action; read in the turn.
    @exclusivity(unchecked) @usableFromInline package var observer: ActionObserver<Key, Action>?
    /// For an observed store, the id of the effect whose action is handled next, read by its runner
    /// while the effect was still known (a single effect ends before its action is handled). Guarded
    /// by the turn.
    @exclusivity(unchecked) @usableFromInline var deliveringEffectID: AnyHashable?
    /// The store's effects, once its first effect made them (see ``effects``). Written once, in the
    /// turn and under the queue's lock; read in the turn, or under that lock.
    @exclusivity(unchecked) @usableFromInline var madeEffects: EffectRunner<Key, Action, Dependency>?
    /// Whether the store was released: an effect runner made after that is closed at once. Guarded
    /// by the queue's lock.
    @exclusivity(unchecked) @usableFromInline var isEffectsClosed = false

    @inlinable
    init(
        state: CoreAccess<Key>,
        queue: ActionQueue,
        handler: StoreActionHandler<Key, Action, Dependency>,
        dependency: Dependency,
        isolation: ActionIsolation,
        starter: EffectStarter = .tasks,
        forwardToParent: ((Action) -> Void)?,
        parentStore: AnyObject? = nil
    ) {
        if handler.isolation == .mainActor, isolation != .mainActor {
            ActionIsolation.stopForMainActorHandlerInAnyThreadStore()
        }
        self.isolation = isolation
        self.state = state
        self.queue = queue
        self.handler = handler
        self.dependency = dependency
        self.starter = starter
        self.forwardToParent = forwardToParent
        self.parentStore = parentStore
    }

    // MARK: - Handling

    /// Handles `action` in the tree's turn (see ``ActionQueue``).
    @inlinable
    func handle(_ action: Action) {
        if isolation == .mainActor { return handleOnMainActor(action) }
        guard queue.beginTurn() else { return queue.perform { [self] in process(action, from: .sent) } }
        process(action, from: .sent)
        queue.endTurn()
    }

    /// Queues `action` to be handled right after the current one, in the turn: an immediate action
    /// a handler returned.
    @usableFromInline
    func handleNext(_ action: Action, from origin: ActionOrigin) {
        let work = { [self] in process(action, from: origin) }
        if isolation == .mainActor, MainQueue.isCurrent { return queue.performOnMainQueue(work) }
        queue.perform(waiting: false, work)
    }

    /// Handles `action` and starts its effect. In the turn.
    @inlinable
    func process(_ action: Action, from origin: ActionOrigin) {
        handledCount &+= 1
        guard observer == nil else { return processObserved(action, from: origin) }
        let effect = apply(action).effect
        switch consume effect {
        case .some(let effect): effects.start(effect, .root, startedBy: handledCount)
        case .none: break
        }
        if let forwardToParent { forwardToParent(action) }
    }

    /// ``process(_:from:)`` for an observed store (a test store's): the observer is told the action
    /// and every key it changed, the parent's writes to this store's keys included. In the turn.
    @inlinable
    func processObserved(_ action: Action, from origin: ActionOrigin) {
        let (changes, startsEffect) = processRecording(action)
        observer?.handled(
            ObservedAction(
                action: action, origin: origin, sequence: handledCount, changes: changes,
                effectID: deliveringEffectID.take(), startsEffect: startsEffect))
    }

    /// Handles `action` and starts its effect, telling no observer: a test store's `send`, which checks
    /// the changes itself. In the turn.
    ///
    /// - Returns: Each key the action changed, with its value before and after (the parent's writes
    ///   to this store's keys included), and whether its handler returned an effect.
    @inlinable
    func processRecording(_ action: Action, reusing buffer: consuming [StateChange<Key>] = [])
        -> (changes: [StateChange<Key>], startsEffect: Bool)
    {
        let sequence = handledCount
        var (changes, effect) = apply(action, recordingChanges: true, reusing: consume buffer)
        let startsEffect: Bool
        switch consume effect {
        case .some(let effect):
            effects.start(effect, .root, startedBy: sequence)
            startsEffect = true
        case .none:
            startsEffect = false
        }
        if let forwardToParent { changes = forwarding(action, to: forwardToParent, after: changes) }
        return (changes, startsEffect)
    }

    /// Hands `action` to the parent store, and adds what that changed in this store's keys to
    /// `changes`, the changes of this store's own handler. O(keys this store sees): for observed
    /// scoped stores only.
    ///
    /// - Returns: Each key either handler changed, with its value before the action and after both.
    @usableFromInline
    func forwarding(_ action: Action, to parent: (Action) -> Void, after changes: [StateChange<Key>])
        -> [StateChange<Key>]
    {
        let before = state.core.allValues(observing: false)
        parent(action)
        let after = state.core.allValues(observing: false)
        var merged = changes
        var positions = Dictionary(changes.indices.map { (changes[$0].key, $0) }, uniquingKeysWith: { $1 })
        for key in Set(before.keys).union(after.keys) where firstDifference(before[key], after[key]) != nil {
            if let position = positions[key] {
                merged[position] = StateChange(key: key, before: merged[position].before, after: after[key])
            } else {
                positions[key] = merged.count
                merged.append(StateChange(key: key, before: before[key], after: after[key]))
            }
        }
        return merged
    }

    /// Runs the handler for `action` and commits its writes, without starting its effect.
    ///
    /// The one path every action's state change takes. In the turn.
    ///
    /// - Parameters:
    ///   - recordingChanges: Whether to return the changes even when the debug log is off.
    ///   - buffer: An empty array whose storage the changes reuse (see ``TransactionCore/commit(recordingChanges:reusing:)``).
    /// - Returns: Each key the handler wrote, with its value before and after (when recorded); and
    ///   the handler's effect.
    @inlinable
    func apply(_ action: Action, recordingChanges: Bool = false, reusing buffer: consuming [StateChange<Key>] = [])
        -> (changes: [StateChange<Key>], effect: ActionEffect<Action>?)
    {
        let (state, transaction) = takeHandlerState()
        var handlerState = consume state
        let effect = handler.handle(store: &handlerState, action: action, dependency: dependency)
        let isLogged = queue.hasDebugLog && debugLog.reportsOwnActions && isDebugLogWriting
        let isRecording = recordingChanges || isLogged
        let changes: [StateChange<Key>]
        if handlerState.core === transaction {
            changes = transaction.commit(recordingChanges: isRecording, reusing: consume buffer)
            // Keep the state for the next action unless something outside the store may hold it:
            // the handler kept it (strongly, weakly or unowned), or made a scope over it. Such a
            // holder then reads and writes the committed state, as after any commit.
            if isKnownUniquelyReferenced(&handlerState), !hasWeakOrUnownedReferences(handlerState),
                !transaction.isScoped
            {
                spare = (consume handlerState, consume transaction)
            }
        } else {
            // Read before the discard: the new state may be a view over this transaction (a scope of
            // the handler's own state, assigned to it), which reads the handler's writes through it.
            let values = handlerState.allValues
            transaction.discard()
            changes = replaceState(with: values)
        }
        if isLogged { reportToDebugLog(action: action, changes: changes) }
        return (changes, effect)
    }

    /// The state a handler mutates: the spare one from the last action, or a new transaction.
    @inlinable
    func takeHandlerState() -> (CacheStore<Key>, TransactionCore<Key>) {
        guard let spare = spare.take() else {
            let transaction = TransactionCore(base: state.core, baseAccess: state)
            return (CacheStore(core: transaction), transaction)
        }
        spare.transaction.reopen()
        return spare
    }

    /// Applies a handler that assigned a whole new cache to its `inout` state: every key takes the
    /// value the new cache holds (keys it lacks are removed), in one atomic write. O(keys).
    @usableFromInline
    func replaceState(with values: [Key: Any]) -> [StateChange<Key>] {
        let keys = Array(Set(state.core.allValues(observing: false).keys).union(values.keys))
        var written = keys.map { key in values[key] }
        state.writeAll(keys, &written)
        return keys.indices.map { index in
            StateChange(key: keys[index], before: written[index], after: values[keys[index]])
        }
    }

    // MARK: - Effects

    /// The store's effects, made by its first effect: most scoped stores, a row's among them, never
    /// start one, and so make neither the runner nor its lock. In the turn.
    @inlinable
    var effects: EffectRunner<Key, Action, Dependency> {
        if let madeEffects { return madeEffects }
        return makeEffects()
    }

    /// Makes the runner, in the turn; closed at once when the store was released meanwhile.
    @usableFromInline
    func makeEffects() -> EffectRunner<Key, Action, Dependency> {
        let made = EffectRunner(engine: self)
        let isClosed = queue.lock.withLock {
            madeEffects = made
            return isEffectsClosed
        }
        if isClosed { made.close() }
        return made
    }

    /// The store's effects, if it ever started one; from any thread.
    var existingEffects: EffectRunner<Key, Action, Dependency>? {
        queue.lock.withLock { madeEffects }
    }

    /// Cancels every effect of the released store, and every effect started from now on at once;
    /// a runner made later (by an action queued before the release) is closed as it is made.
    func closeEffects() {
        let runner = queue.lock.withLock {
            isEffectsClosed = true
            return madeEffects
        }
        runner?.close()
    }

}

/// Where an action a store handles came from.
@usableFromInline
package enum ActionOrigin: Sendable, Equatable {
    /// Sent with `handle(action:)` (or a test store's `send`).
    case sent
    /// Returned by a handler as an immediate action (`ActionEffect(action)`).
    case immediate
    /// Sent or returned by the effect of this ticket.
    case effect(EffectTicket)
}

/// What a test store sees of each action its store handles (see ``StoreEngine/observer``).
@usableFromInline
package struct ActionObserver<Key: Hashable & SendableMetatype, Action>: @unchecked Sendable {
    /// Called in the turn after each action's writes were committed: every action but those a test
    /// store's `send` handles itself (``StoreEngine/processRecording(_:)``).
    @usableFromInline package let handled: (ObservedAction<Key, Action>) -> Void

    package init(handled: @escaping (ObservedAction<Key, Action>) -> Void) {
        self.handled = handled
    }
}

/// An action a store handled, as its observer sees it.
@usableFromInline
package struct ObservedAction<Key: Hashable & SendableMetatype, Action>: @unchecked Sendable {
    @usableFromInline package let action: Action
    /// Where it came from.
    @usableFromInline package let origin: ActionOrigin
    /// Its sequence number in the store: the effects its handler started remember it.
    @usableFromInline package let sequence: UInt64
    /// Each key it wrote, with its value before and after.
    @usableFromInline package let changes: [StateChange<Key>]
    /// The id of the effect it came from, if any.
    @usableFromInline package let effectID: AnyHashable?
    /// Whether its handler returned an effect.
    @usableFromInline package let startsEffect: Bool

    @usableFromInline
    package init(
        action: Action, origin: ActionOrigin, sequence: UInt64, changes: [StateChange<Key>], effectID: AnyHashable?,
        startsEffect: Bool
    ) {
        self.action = action
        self.origin = origin
        self.sequence = sequence
        self.changes = changes
        self.effectID = effectID
        self.startsEffect = startsEffect
    }
}

/// Whether a weak or unowned reference to `object` exists, which `isKnownUniquelyReferenced` does
/// not count: a handler may keep its state as `weak var` or `[weak state]`, and such a state must
/// not be reused for the next action. The standard library's reference-count queries are its only
/// means.
@inlinable
func hasWeakOrUnownedReferences(_ object: AnyObject) -> Bool {
    // With none, the weak count is 1 (the object's own) and the unowned count 1 (the strong ones').
    _getWeakRetainCount(object) > 1 || _getUnownedRetainCount(object) > 1
}
