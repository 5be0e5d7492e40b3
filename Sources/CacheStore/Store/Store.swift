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
/// scoped stores), with no lock held while its handler runs; an action sent while another is being
/// handled on the same thread — by a handler, an observer, an immediate effect — is queued and
/// handled right after it, before the outermost ``handle(action:)`` returns. Stores whose handlers
/// send to each other never deadlock (see <doc:Threading>).
///
/// ## Effects
///
/// An effect whose id is still running is cancelled when a new one with that id starts; ``cancel(id:)``
/// cancels one; a cancelled effect never delivers its action. Releasing the store cancels all its
/// effects: a running effect does not hold the store.
///
/// ## Topics
///
/// ### Creating a store
///
/// - ``init(initialValues:actionHandler:dependency:)``
/// - ``init(initialValues:actionHandler:)``
/// - ``init(initialValues:actionHandler:dependency:isolation:)``
/// - ``init(initialValues:actionHandler:isolation:)``
/// - ``ActionIsolation``
///
/// ### Persisting keys
///
/// - ``init(initialValues:actionHandler:dependency:isolation:persistence:)``
/// - ``flush()``
/// - ``update(_:sending:_:)``
/// - ``persistenceErrors``
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
/// - ``subscript(_:)``
/// - ``resolve(_:)``
///
/// ### Bindings
///
/// - ``binding(_:using:)``
/// - ``binding(_:fallback:using:)``
/// - ``StoreBinding``
///
/// ### Effects
///
/// - ``cancel(id:)``
/// - ``runningEffectIDs``
///
/// ### Scoped stores
///
/// - ``scope(label:keyTransformation:actionHandler:dependencyTransformation:defaultCache:actionTransformation:)``
/// - ``scope(label:keyTransformation:actionHandler:defaultCache:actionTransformation:)``
/// - ``scope(label:keys:actionHandler:dependencyTransformation:actionTransformation:)``
/// - ``actionlessScope(label:keyTransformation:dependencyTransformation:defaultCache:)``
/// - ``actionlessScope(label:keyTransformation:defaultCache:)``
/// - ``view(_:label:)``
///
/// ### Debugging
///
/// - ``debug``
/// - ``debug(_:)``
/// - ``debug(maxReportLength:_:)``
/// - ``debug(label:maxReportLength:_:)``
public final class Store<Key: Hashable & SendableMetatype, Action, Dependency>: Observable, @unchecked Sendable {
    /// Everything that handles actions; the store is its public face.
    @usableFromInline let engine: StoreEngine<Key, Action, Dependency>
    /// What keeps the persisted keys in their files, for a store made with a ``Persistence``.
    @usableFromInline let persister: Persister<Key>?

    /// A cache over the store's committed state, made for each use: the read API that is not on a
    /// hot path forwards to it.
    @inlinable var cacheStore: CacheStore<Key> { CacheStore(access: engine.state) }

    /// Creates a store holding `initialValues`, changed by `actionHandler`.
    ///
    /// - Parameters:
    ///   - initialValues: The state the store starts with, by key. `nil` optionals are left out.
    ///   - actionHandler: Changes the state for each action.
    ///   - dependency: Passed to the handler with each action: the clients, clocks and other
    ///     services effects use.
    ///
    /// The store handles its actions on any thread (``ActionIsolation/anyThread``), or on the main
    /// actor when its handler is isolated to it (``StoreActionHandler/mainActor(_:)``).
    @inlinable
    public convenience init(
        initialValues: [Key: Any],
        actionHandler: StoreActionHandler<Key, Action, Dependency>,
        dependency: Dependency
    ) {
        self.init(
            initialValues: initialValues, actionHandler: actionHandler, dependency: dependency,
            isolation: actionHandler.isolation)
    }

    /// Creates a store that handles its actions where `isolation` says: on the main actor, for a
    /// UI that observes it.
    ///
    /// ```swift
    /// let store = Store(
    ///     initialValues: [:],
    ///     actionHandler: postsHandler,
    ///     dependency: .live,
    ///     isolation: .mainActor
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - initialValues: The state the store starts with, by key. `nil` optionals are left out.
    ///   - actionHandler: Changes the state for each action.
    ///   - dependency: Passed to the handler with each action.
    ///   - isolation: Where actions are handled (see ``ActionIsolation``): `.mainActor` for a handler
    ///     isolated to the main actor (``StoreActionHandler/mainActor(_:)``), which stops the program
    ///     with `.anyThread`.
    @inlinable
    public convenience init(
        initialValues: [Key: Any],
        actionHandler: StoreActionHandler<Key, Action, Dependency>,
        dependency: Dependency,
        isolation: ActionIsolation
    ) {
        self.init(
            engine: StoreEngine(
                state: CoreAccess(RootCore(values: initialValues.compactMapValues(flattenedOptional))),
                queue: ActionQueue(),
                handler: actionHandler,
                dependency: dependency,
                isolation: isolation,
                forwardToParent: nil))
    }

    @usableFromInline
    init(engine: StoreEngine<Key, Action, Dependency>) {
        self.engine = engine
        persister = nil
    }

    @usableFromInline
    init(engine: StoreEngine<Key, Action, Dependency>, persister: Persister<Key>) {
        self.engine = engine
        self.persister = persister
    }

    /// Cancels the store's effects, and saves its persisted keys' pending changes. A store whose
    /// actions are `Never` handles none, and so never starts an effect: its release takes no lock.
    deinit {
        if Action.self != Never.self { engine.closeEffects() }
        persister?.close()
    }

    /// Handles `action`: runs the handler, applies its writes, and starts its effect.
    ///
    /// When it returns, the state is updated — also for actions queued meanwhile by the handler, by
    /// observers or by immediate effects. Actions sent from several threads are handled one at a
    /// time, first come first served, none lost. Called from a thread that holds another store's
    /// turn (inside a handler or an observer of another store) while a third thread is handling this
    /// one, it queues the action and returns before it is handled: a thread inside a handler never
    /// waits for another, so stores that send to each other never deadlock (see <doc:Threading>).
    ///
    /// - Parameter action: The action to handle.
    @inlinable
    public func handle(action: Action) {
        engine.handle(action)
    }

    /// Cancels the effect running under `id`, and a debounced or throttled effect waiting under it. A
    /// cancelled effect never delivers its action.
    ///
    /// ```swift
    /// store.cancel(id: CancelID.fetchPosts)
    /// ```
    ///
    /// When this returns `true`, nothing the effect sends is handled any more: if one of its actions
    /// is being handled on another thread at that moment, `cancel(id:)` waits for that handler to
    /// return. It returns `false` when no effect runs under `id` — for example one that finished and
    /// is delivering its last action — and when it is called from a thread that holds another
    /// store's turn (inside another store's handler) while such an action is being handled: a thread
    /// inside a handler never waits for another. The effect is cancelled all the same, after the
    /// action in hand. For a lifted feature's effect, pass the lift's id
    /// (``StoreActionHandler/effectID(_:)``).
    ///
    /// - Parameter id: The id the effect was started with.
    /// - Returns: Whether an effect was running under `id` and nothing it sends will be handled.
    @discardableResult
    public func cancel(id: AnyHashable) -> Bool {
        engine.existingEffects?.cancel(id) ?? false
    }

    /// The ids of the effects running now, and of debounced or throttled effects waiting to start.
    public var runningEffectIDs: Set<AnyHashable> {
        engine.existingEffects?.runningIDs ?? []
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

    /// Creates a store whose handler needs no dependency, handling its actions where `isolation`
    /// says.
    ///
    /// - Parameters:
    ///   - initialValues: The state the store starts with, by key.
    ///   - actionHandler: Changes the state for each action.
    ///   - isolation: Where actions are handled (see ``ActionIsolation``).
    @inlinable
    public convenience init(
        initialValues: [Key: Any],
        actionHandler: StoreActionHandler<Key, Action, Void>,
        isolation: ActionIsolation
    ) {
        self.init(initialValues: initialValues, actionHandler: actionHandler, dependency: (), isolation: isolation)
    }
}
