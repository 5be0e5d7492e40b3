import Foundation
import Observation

/// An action-driven owner of keyed state: you send it actions, and read its state.
///
/// All state changes go through a ``StoreActionHandler``; the effects it returns run concurrently
/// and feed their actions back into the store.
///
/// ```swift
/// let store = Store(
///     initialValues: [.url: URL(string: "https://example.com/posts")!],
///     actionHandler: postsHandler,
///     dependency: .live
/// )
///
/// store.handle(action: .fetchPosts)
/// store.get(.isLoading, as: Bool.self) // true: the handler ran before `handle` returned
/// ```
///
/// ## Threading
///
/// A store may be used from any thread or task. It handles one action at a time (together with its
/// scoped stores); an action sent while another is being handled on the same thread — by a handler,
/// an observer, an immediate effect — is queued and handled right after it, before the outermost
/// ``handle(action:)`` returns.
///
/// ## Effects
///
/// An effect whose id is still running is cancelled when a new one with that id starts; ``cancel(id:)``
/// cancels one; a cancelled effect never delivers its action. Releasing the store cancels all its
/// effects: a running effect holds the store weakly.
///
/// ## Topics
///
/// ### Creating a store
///
/// - ``init(initialValues:actionHandler:dependency:)``
/// - ``init(initialValues:actionHandler:)``
///
/// ### Handling actions
///
/// - ``handle(action:)``
///
/// ### Reading state
///
/// - ``get(_:as:)``
/// - ``resolve(_:as:)``
/// - ``contains(_:)``
/// - ``require(_:)``
/// - ``require(keys:)``
/// - ``valuesInCache(ofType:)``
/// - ``allValues``
/// - ``changes``
///
/// ### Effects
///
/// - ``cancel(id:)``
/// - ``runningEffectIDs``
///
/// ### Scoped stores
///
/// - ``scope(keyTransformation:actionHandler:dependencyTransformation:defaultCache:actionTransformation:)``
/// - ``scope(keyTransformation:actionHandler:defaultCache:actionTransformation:)``
/// - ``scope(keys:actionHandler:dependencyTransformation:actionTransformation:)``
/// - ``actionlessScope(keyTransformation:dependencyTransformation:defaultCache:)``
/// - ``actionlessScope(keyTransformation:defaultCache:)``
///
/// ### Debugging
///
/// - ``debug``
/// - ``debug(_:)``
public final class Store<Key: Hashable & SendableMetatype, Action, Dependency>: Observable, ActionHandling,
    @unchecked Sendable
{
    /// The store's state: the read API forwards to it.
    @usableFromInline let cacheStore: CacheStore<Key>
    /// The lock of the state's storage tree (`cacheStore.node.lock`), kept at hand for commits.
    @usableFromInline let storageLock: Lock
    @usableFromInline let queue: ActionQueue
    @usableFromInline let actionHandler: StoreActionHandler<Key, Action, Dependency>
    @usableFromInline let dependency: Dependency
    @usableFromInline let effects = EffectRunner()
    /// Hands an action on to the parent store, for a scoped store; runs after this store's handler.
    @usableFromInline let forwardToParent: ((Action) -> Void)?
    /// Where debug reports go; guarded by the queue's turn, so reading it while handling is free.
    @exclusivity(unchecked) @usableFromInline var debugOutput: (@Sendable (String) -> Void)?
    /// The last action's state, kept for the next one when nothing else holds it; guarded by the turn.
    @exclusivity(unchecked) @usableFromInline var spareState:
        (state: CacheStore<Key>, transaction: TransactionNode<Key>)?

    /// Creates a store holding `initialValues`, changed by `actionHandler`.
    ///
    /// - Parameters:
    ///   - initialValues: The state the store starts with, by key. `nil` optionals are left out.
    ///   - actionHandler: Changes the state for each action.
    ///   - dependency: Passed to the handler with each action: the clients, clocks and other
    ///     services effects use.
    @inlinable
    public convenience init(
        initialValues: [Key: Any],
        actionHandler: StoreActionHandler<Key, Action, Dependency>,
        dependency: Dependency
    ) {
        self.init(
            cacheStore: CacheStore(initialValues: initialValues),
            queue: ActionQueue(),
            actionHandler: actionHandler,
            dependency: dependency,
            forwardToParent: nil)
    }

    @usableFromInline
    init(
        cacheStore: CacheStore<Key>,
        queue: ActionQueue,
        actionHandler: StoreActionHandler<Key, Action, Dependency>,
        dependency: Dependency,
        forwardToParent: ((Action) -> Void)?
    ) {
        self.cacheStore = cacheStore
        self.storageLock = cacheStore.node.lock
        self.queue = queue
        self.actionHandler = actionHandler
        self.dependency = dependency
        self.forwardToParent = forwardToParent
    }

    deinit {
        effects.cancelAll()
    }

    /// Handles `action`: runs the handler, applies its writes, and starts its effect.
    ///
    /// When it returns, the state is updated — also for actions queued meanwhile by the handler, by
    /// observers or by immediate effects. Actions sent from several threads are handled one at a time,
    /// none lost.
    ///
    /// - Parameter action: The action to handle.
    @inlinable
    public func handle(action: Action) {
        guard queue.beginTurn() else { return queue.enqueue { [self] in process(action) } }
        process(action)
        queue.endTurn()
    }

    /// Cancels the effect running under `id`. A cancelled effect never delivers its action.
    ///
    /// ```swift
    /// store.cancel(id: CancelID.fetchPosts)
    /// ```
    ///
    /// An effect that finished first, and is delivering its action, is not running any more: it is
    /// not cancelled, and `false` is returned.
    ///
    /// - Parameter id: The id the effect was started with.
    /// - Returns: Whether an effect was running under `id` (and so is cancelled).
    @discardableResult
    public func cancel(id: AnyHashable) -> Bool {
        effects.cancel(id)
    }

    /// The ids of the effects running now.
    public var runningEffectIDs: Set<AnyHashable> {
        effects.ids
    }

    /// Handles `action` and starts its effect: the store's own action path, on the queue.
    @inlinable
    func process(_ action: Action) {
        let effect = apply(action).effect
        if let effect { run(effect) }
        if let forwardToParent { forwardToParent(action) }
    }

    /// Runs the handler for `action` and commits its writes, without running its effect.
    ///
    /// This is the one path every action's state change takes: ``handle(action:)`` and `TestStore` both
    /// use it. Must run on the store's queue.
    ///
    /// - Parameter recordingChanges: Whether to return the changes even when the debug log is off.
    /// - Returns: Each key the handler wrote, with its value before and after (when recorded); and
    ///   the handler's effect.
    @inlinable
    package func apply(_ action: Action, recordingChanges: Bool = false)
        -> (changes: [StateChange<Key>], effect: ActionEffect<Action>?)
    {
        var (state, transaction) = takeState()
        let effect = actionHandler.handle(store: &state, action: action, dependency: dependency)
        let debugOutput = self.debugOutput
        let isRecording = recordingChanges || debugOutput != nil
        let changes: [StateChange<Key>]
        if state.node === transaction {
            changes = commit(transaction, recordingChanges: isRecording)
            // Keep the state for the next action unless something outside the store holds it: the
            // handler captured it, or made a scope over it. Such a holder then writes straight to
            // the committed state, as after any commit.
            if isKnownUniquelyReferenced(&state), !transaction.overlay.isShared {
                spareState = (consume state, consume transaction)
            }
        } else {
            changes = replaceState(discarding: transaction, with: state.allValues)
        }
        if let debugOutput { debugOutput(StateChangeReport.debugText(action: action, changes: changes)) }
        return (changes, effect)
    }

    /// The state a handler mutates: the spare one from the last action, or a new transaction.
    @inlinable
    func takeState() -> (CacheStore<Key>, TransactionNode<Key>) {
        guard let spare = spareState.take() else {
            let transaction = TransactionNode(over: cacheStore.node, turn: queue.turn)
            return (CacheStore(node: transaction), transaction)
        }
        spare.transaction.reopen()
        return spare
    }

    @inlinable
    func commit(_ transaction: TransactionNode<Key>, recordingChanges: Bool) -> [StateChange<Key>] {
        var batch = ChangeBatch()
        storageLock.lock()
        let changes = transaction.commitLocked(into: &batch, recordingChanges: recordingChanges)
        storageLock.unlock()
        if !batch.pending.isEmpty { batch.publish() }
        return changes
    }

    /// Applies a handler that assigned a whole new cache to its `inout` state: every key takes the
    /// value the new cache holds (keys it lacks are removed). O(keys), unlike a normal action.
    @usableFromInline
    func replaceState(discarding transaction: TransactionNode<Key>, with values: [Key: Any])
        -> [StateChange<Key>]
    {
        var batch = ChangeBatch()
        let node = cacheStore.node
        transaction.discardLocked()
        let changes = node.lock.withLock {
            let current = node.allValuesLocked()
            return Set(current.keys).union(values.keys).map { key in
                StateChange(key: key, before: node.writeLocked(key, values[key], &batch), after: values[key])
            }
        }
        batch.publish()
        return changes
    }

    /// Starts `effect`: an immediate action is queued, async work runs in its own task.
    @usableFromInline
    package func run(_ effect: ActionEffect<Action>) {
        switch effect.operation {
        case .action(let action):
            handle(action: action)
        case .single(let operation):
            effects.start(effect.id) { [weak self] ticket in
                let action = await operation()
                self?.deliver(action, from: ticket, isLast: true)
            }
        case .sequence(let operation):
            effects.start(effect.id) { [weak self] ticket in
                await operation(Send { [weak self] action in self?.deliver(action, from: ticket, isLast: false) })
                self?.effects.finish(ticket)
            }
        case .cancel:
            effects.cancel(effect.id)
        case .merged(let parts):
            for part in parts { run(part) }
        }
    }

    /// Handles an action an effect produced, unless the effect was cancelled or replaced by then.
    ///
    /// The check runs in the action's turn on the queue, so a cancel that comes first always wins.
    private func deliver(_ action: Action?, from ticket: EffectRunner.Ticket, isLast: Bool) {
        guard let action else {
            if isLast { effects.finish(ticket) }
            return
        }
        queue.run { [self] in
            let isCurrent = isLast ? effects.finish(ticket) : effects.isRunning(ticket)
            if isCurrent { process(action) }
        }
    }
}

extension Store where Dependency == Void {
    /// Creates a store whose handler needs no dependency.
    ///
    /// - Parameters:
    ///   - initialValues: The state the store starts with, by key.
    ///   - actionHandler: Changes the state for each action.
    @inlinable
    public convenience init(initialValues: [Key: Any], actionHandler: StoreActionHandler<Key, Action, Void>) {
        self.init(initialValues: initialValues, actionHandler: actionHandler, dependency: ())
    }
}
