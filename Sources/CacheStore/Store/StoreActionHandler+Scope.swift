extension StoreActionHandler {
    /// A handler of this store's actions that runs a feature's handler on the feature's keys: how an
    /// app's one handler is built from its features' handlers.
    ///
    /// ```swift
    /// let appHandler = StoreActionHandler<AppKey, AppAction, AppDependency>(combining: [
    ///     .scope(
    ///         keyTransformation: (
    ///             from: { appKey in appKey == .query ? .query : appKey == .results ? .results : nil },
    ///             to: { searchKey in searchKey == .query ? .query : searchKey == .results ? .results : nil }
    ///         ),
    ///         actionHandler: searchHandler,
    ///         extractAction: { appAction in
    ///             if case .search(let searchAction) = appAction { searchAction } else { nil }
    ///         },
    ///         embedAction: AppAction.search,
    ///         dependencyTransformation: { app in app.search }
    ///     ),
    ///     appCoreHandler,
    /// ])
    /// ```
    ///
    /// For each action that `extractAction` turns into a feature action, `actionHandler` runs on a
    /// view of this handler's state under the feature's keys, with the dependency that
    /// `dependencyTransformation` derives; every other action leaves it out. Its effect comes back
    /// with each action passed through `embedAction` (``ActionEffect/map(_:)``): the feature's
    /// effects send the app's actions.
    ///
    /// - Effect ids: each id the feature gives its effects runs in this lift's own namespace, so a
    ///   feature lifted twice keeps its effects apart: its `.cancel(id:)`, and a new effect under its
    ///   id, reach only its own effects. The app reaches one through the lift: `store.cancel(id:
    ///   lifted.effectID(FeatureID.x))`, or `.cancel(id: lifted.effectID(FeatureID.x))` from a handler
    ///   (see ``effectID(_:)``).
    ///
    /// The names are those of ``Store/scope(label:keyTransformation:actionHandler:dependencyTransformation:defaultCache:actionTransformation:)``
    /// (and of the original CacheStore); the shape is TCA's `Scope(state:action:) { Feature() }`. A
    /// scoped *store* is a second store over the same state, with its own effects and actions; a
    /// scoped *handler* is part of one store, so one `Store` runs the whole app, one `TestStore`
    /// tests it end to end, and the feature's writes are part of the app action's one atomic commit.
    ///
    /// - Keys: a feature key `s` is mapped to the app key `p` exactly when `to(s) == p` and
    ///   `from(p) == s`, the rule of ``CacheStore/scope(keyTransformation:defaultCache:)``. The
    ///   feature reads and writes mapped keys only. A key that maps to no app key is not part of the
    ///   app's state: it reads `nil`, and writing it does nothing (a scoped store keeps such keys in
    ///   a cache of its own; a handler has none).
    /// - A feature handler that assigns a whole new cache to its `inout` state sets every mapped key
    ///   to the new cache's value, removing those it lacks, in the same action.
    /// - A feature handler that keeps its state after the action reads and writes the committed
    ///   state, as any handler's kept state does.
    ///
    /// - Parameters:
    ///   - label: The lift's name, shown in the ids of its effects (`left/CounterID.timer`).
    ///   - keyTransformation: Maps keys between this handler's state (`from`) and the feature's (`to`).
    ///   - actionHandler: The feature's handler.
    ///   - extractAction: The feature action an action carries, or `nil` when it is not the feature's.
    ///   - embedAction: Wraps a feature action, which the feature's effects send, as an action here.
    ///   - dependencyTransformation: Derives the feature's dependency from this handler's.
    /// - Returns: The lifted handler.
    @inlinable
    public static func scope<ScopedKey: Hashable & SendableMetatype, ScopedAction, ScopedDependency>(
        label: String? = nil,
        keyTransformation: BiDirectionalTransformation<Key?, ScopedKey?>,
        actionHandler: StoreActionHandler<ScopedKey, ScopedAction, ScopedDependency>,
        extractAction: @escaping @Sendable (Action) -> ScopedAction?,
        embedAction: @escaping @Sendable (ScopedAction) -> Action,
        dependencyTransformation: @escaping @Sendable (Dependency) -> ScopedDependency
    ) -> StoreActionHandler {
        FeatureLift(
            label: label, keyTransformation: keyTransformation, extractAction: extractAction, embedAction: embedAction
        )
        .handler(actionHandler, dependency: dependencyTransformation)
    }

    /// A handler of this store's actions that runs a feature's handler on the keys in `keys`.
    ///
    /// As ``scope(label:keyTransformation:actionHandler:extractAction:embedAction:dependencyTransformation:)``,
    /// with this store's own key type: keys outside `keys` are invisible to the feature, as they are
    /// to ``Store/scope(label:keys:actionHandler:dependencyTransformation:actionTransformation:)``.
    ///
    /// ```swift
    /// let sessionPart = StoreActionHandler<AppKey, AppAction, AppDependency>.scope(
    ///     keys: [.token, .userID],
    ///     actionHandler: sessionHandler,
    ///     extractAction: { appAction in
    ///         if case .session(let sessionAction) = appAction { sessionAction } else { nil }
    ///     },
    ///     embedAction: AppAction.session,
    ///     dependencyTransformation: { app in app.session }
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - label: The lift's name, shown in the ids of its effects.
    ///   - keys: The keys the feature reads and writes.
    ///   - actionHandler: The feature's handler.
    ///   - extractAction: The feature action an action carries, or `nil` when it is not the feature's.
    ///   - embedAction: Wraps a feature action, which the feature's effects send, as an action here.
    ///   - dependencyTransformation: Derives the feature's dependency from this handler's.
    /// - Returns: The lifted handler.
    @inlinable
    public static func scope<ScopedAction, ScopedDependency>(
        label: String? = nil,
        keys: Set<Key>,
        actionHandler: StoreActionHandler<Key, ScopedAction, ScopedDependency>,
        extractAction: @escaping @Sendable (Action) -> ScopedAction?,
        embedAction: @escaping @Sendable (ScopedAction) -> Action,
        dependencyTransformation: @escaping @Sendable (Dependency) -> ScopedDependency
    ) -> StoreActionHandler {
        let keys = VisibleKeys(keys: keys)
        let visible: @Sendable (Key?) -> Key? = { key in key.flatMap { keys.keys.contains($0) ? $0 : nil } }
        return scope(
            label: label, keyTransformation: (from: visible, to: visible), actionHandler: actionHandler,
            extractAction: extractAction, embedAction: embedAction, dependencyTransformation: dependencyTransformation)
    }
}

/// The keys a lifted handler over a key subset shows: values it only compares, so sent across
/// threads although `Key` need not be `Sendable`.
@usableFromInline
struct VisibleKeys<Key: Hashable>: @unchecked Sendable {
    @usableFromInline let keys: Set<Key>

    @inlinable
    init(keys: Set<Key>) {
        self.keys = keys
    }
}
