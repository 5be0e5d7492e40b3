/// Describes how a ``Store`` changes its state for each action, and what effect follows.
///
/// The handler receives the store's state as an `inout` ``CacheStore``, the action, and the store's
/// dependency. It may read and write any key; its writes become visible together when it returns.
///
/// ```swift
/// let counterHandler = StoreActionHandler<Key, Action, Void> { cacheStore, action, _ in
///     switch action {
///     case .increment:
///         cacheStore.update(.count, as: Int.self) { count in count = (count ?? 0) + 1 }
///         return .none
///     case .incrementLater:
///         return ActionEffect { .increment }
///     }
/// }
/// ```
///
/// Handlers compose: ``init(combining:)`` runs several in order, ``before(_:)`` / ``after(_:)``
/// add hooks around one (the `enrich` and `after` interceptors of re-frame-style libraries), and
/// ``scope(label:keyTransformation:actionHandler:extractAction:embedAction:dependencyTransformation:)``
/// lifts a feature's handler, with its own keys, actions and dependency, into an app's handler.
///
/// A handler must be `Sendable`, as the store may run it on any thread: it captures no mutable state.
/// Its writes to `state` become visible together when it returns; a thread the handler hands `state`
/// to meanwhile sees the committed state, not those writes.
///
/// ## Topics
///
/// ### Creating a handler
///
/// - ``init(_:)``
/// - ``mainActor(_:)``
/// - ``Handler``
/// - ``none``
///
/// ### Composing handlers
///
/// - ``init(combining:)``
/// - ``before(_:)``
/// - ``after(_:)``
///
/// ### Building an app from features
///
/// - ``scope(label:keyTransformation:actionHandler:extractAction:embedAction:dependencyTransformation:)``
/// - ``scope(label:keys:actionHandler:extractAction:embedAction:dependencyTransformation:)``
/// - ``effectID(_:)``
/// - ``FeatureLift``
///
/// ### Running a handler
///
/// - ``handle(store:action:dependency:)``
public struct StoreActionHandler<Key: Hashable & SendableMetatype, Action, Dependency>: Sendable {
    /// The function that handles one action.
    public typealias Handler = @Sendable (inout CacheStore<Key>, Action, Dependency) -> ActionEffect<Action>?

    @usableFromInline let handler: Handler
    /// For a lifted feature's handler, the namespace its effects' ids run in (see ``effectID(_:)``).
    @usableFromInline let lift: EffectLift?
    /// Where the handler must run: `.mainActor` when it, or a handler it is made of, is isolated to
    /// the main actor (made with ``mainActor(_:)``).
    @usableFromInline let isolation: ActionIsolation

    /// Creates a handler from a function.
    ///
    /// - Parameter handler: Changes the state for an action and returns the effect to run, or `.none`.
    public init(_ handler: @escaping Handler) {
        self.init(handler, lift: nil)
    }

    @usableFromInline
    init(_ handler: @escaping Handler, lift: EffectLift?, isolation: ActionIsolation = .anyThread) {
        self.handler = handler
        self.lift = lift
        self.isolation = isolation
    }

    /// Creates a handler isolated to the main actor: it may use everything the main actor has (in a
    /// target with main-actor isolation by default, the app's models, dependencies, constants and
    /// functions as they are, with no `nonisolated`).
    ///
    /// ```swift
    /// let cartHandler = CartHandler.mainActor { state, action, _ in
    ///     switch action {
    ///     case .add(let item):
    ///         state[.items].append(item)
    ///         state[.total] += discounted(item.price)
    ///     }
    ///     return .none
    /// }
    /// let cart = Store(initialValues: [:], actionHandler: cartHandler)  // handles on the main actor
    /// ```
    ///
    /// A store made with such a handler, or with one composed of it (``init(combining:)``, a
    /// ``FeatureLift``), handles its actions on the main actor (``ActionIsolation/mainActor``), as
    /// do its scoped stores and its `TestStore`. Making it with `isolation: .anyThread`, or scoping
    /// a store that handles on any thread with it, stops the program with a message that says so:
    /// the handler could not run where it is isolated. The handler's effects still run off the main
    /// actor, as every effect does. A handler made with ``init(_:)`` that calls this one's
    /// ``handle(store:action:dependency:)`` itself is not isolated to the main actor, and neither is
    /// its store: compose with ``init(combining:)``, ``before(_:)``, ``after(_:)`` or a
    /// ``FeatureLift``, which keep the isolation.
    ///
    /// - Parameter handler: Changes the state for an action and returns the effect to run, or `.none`;
    ///   called on the main actor only.
    /// - Returns: The handler.
    public static func mainActor(
        _ handler: @escaping @MainActor @Sendable (inout CacheStore<Key>, Action, Dependency) -> ActionEffect<Action>?
    ) -> StoreActionHandler {
        // The engine calls a `.mainActor` store's handler on the main queue only, which is the main
        // actor's executor; the check turns any other call into a message, not a data race.
        let handlerOffTheMainActor = unsafeBitCast(handler, to: Handler.self)
        return StoreActionHandler(
            { state, action, dependency in
                if !MainQueue.isCurrent { ActionIsolation.stopForHandlerOffTheMainActor() }
                return handlerOffTheMainActor(&state, action, dependency)
            }, lift: nil, isolation: .mainActor)
    }

    /// The id under which this handler's store runs the effect this handler gives the id `id`.
    ///
    /// For a lifted feature's handler (made with
    /// ``scope(label:keyTransformation:actionHandler:extractAction:embedAction:dependencyTransformation:)``),
    /// the feature's ids run in the lift's own namespace: a feature lifted twice keeps its effects
    /// apart, and its `cancel(id:)` reaches only its own. This is how the app reaches one of them:
    ///
    /// ```swift
    /// let left = StoreActionHandler<AppKey, AppAction, Void>.scope(label: "left", …, actionHandler: counterHandler, …)
    /// store.cancel(id: left.effectID(CounterID.timer))      // stops the left counter's timer only
    /// ```
    ///
    /// For any other handler, `id` itself.
    ///
    /// - Parameter id: The id the handler (the feature) gives its effect.
    /// - Returns: The id its store runs the effect under.
    public func effectID(_ id: AnyHashable) -> AnyHashable {
        lift?.id(id) ?? id
    }

    /// A handler that handles nothing: the state never changes and no effect runs.
    public static var none: StoreActionHandler {
        StoreActionHandler { _, _, _ in nil }
    }

    /// A handler that runs each of `handlers` in order on the same state.
    ///
    /// Each sees the writes of the ones before it. Their effects all run, each under its own id, as
    /// if its handler had returned it alone: a cancellation still cancels, an id still replaces.
    ///
    /// ```swift
    /// let appHandler = StoreActionHandler(combining: [postsHandler, analyticsHandler])
    /// ```
    ///
    /// - Parameter handlers: The handlers, in the order they run.
    public init(combining handlers: [StoreActionHandler]) {
        self.init(
            { cacheStore, action, dependency in
                let effects = handlers.compactMap { handler in
                    handler.handle(store: &cacheStore, action: action, dependency: dependency)
                }
                return ActionEffect.merging(effects)
            }, lift: nil, isolation: handlers.contains { $0.isolation == .mainActor } ? .mainActor : .anyThread)
    }

    /// Runs the handler for `action`.
    ///
    /// - Parameters:
    ///   - store: The state to change.
    ///   - action: The action to handle.
    ///   - dependency: The store's dependency.
    /// - Returns: The effect to run next, or `nil`.
    @inlinable
    public func handle(store: inout CacheStore<Key>, action: Action, dependency: Dependency) -> ActionEffect<Action>? {
        handler(&store, action, dependency)
    }

    /// This handler, with `hook` running before it on the same state.
    ///
    /// ```swift
    /// let stamped = postsHandler.before { cacheStore, _, dependency in
    ///     cacheStore.set(value: dependency.now(), forKey: .lastActionAt)
    /// }
    /// ```
    ///
    /// - Parameter hook: Runs first; its writes are part of the same action.
    /// - Returns: The combined handler.
    public func before(_ hook: @escaping @Sendable (inout CacheStore<Key>, Action, Dependency) -> Void) -> Self {
        StoreActionHandler(
            { cacheStore, action, dependency in
                hook(&cacheStore, action, dependency)
                return handle(store: &cacheStore, action: action, dependency: dependency)
            }, lift: lift, isolation: isolation)
    }

    /// This handler, with `hook` running after it on the same state: to enrich the state the handler
    /// left (deduplicate, derive, validate) or to observe it.
    ///
    /// ```swift
    /// let deduplicated = todosHandler.after { cacheStore, _, _ in
    ///     cacheStore.update(.todos, as: [String].self) { todos in todos = todos.map { Array(Set($0)) } }
    /// }
    /// ```
    ///
    /// - Parameter hook: Runs last; its writes are part of the same action.
    /// - Returns: The combined handler.
    public func after(_ hook: @escaping @Sendable (inout CacheStore<Key>, Action, Dependency) -> Void) -> Self {
        StoreActionHandler(
            { cacheStore, action, dependency in
                let effect = handle(store: &cacheStore, action: action, dependency: dependency)
                hook(&cacheStore, action, dependency)
                return effect
            }, lift: lift, isolation: isolation)
    }
}
