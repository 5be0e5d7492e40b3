extension Store {
    /// A store of one feature's keys and actions for its views: it reads the feature's keys of this
    /// store live, and each action sent to it is handled by this store's handler, wrapped as the
    /// lift says (`.refresh` is handled here as `.list(.refresh)`).
    ///
    /// ```swift
    /// let list = FeatureLift(keys: [ListKey.posts: AppKey.posts, .page: .listPage], action: AppAction.list)
    /// let appStore = Store(initialValues: [:], actionHandler: appHandler, dependency: .live)
    ///
    /// let listStore = appStore.view(list)       // Store<ListKey, ListAction, Void>
    /// listStore[.posts]                         // the app's .posts, read as the feature's key
    /// listStore.handle(action: .refresh)        // the app's handler handles .list(.refresh)
    /// ```
    ///
    /// A view store has no handler of its own: its actions change the state and start effects only
    /// through this store's handler (the feature's part of it made by ``FeatureLift/handler(_:dependency:)``),
    /// so they are reported once, in this store's debug log, as this store's actions. It keeps this
    /// store alive; this store does not keep it.
    ///
    /// - Parameters:
    ///   - lift: Which keys are the feature's, and the case that wraps its actions.
    ///   - label: The view store's name in debug logs; by default the lift's label, else its action
    ///     type's name.
    /// - Returns: The view store.
    @inlinable
    public func view<FeatureKey: Hashable & SendableMetatype, FeatureAction>(
        _ lift: FeatureLift<Key, Action, FeatureKey, FeatureAction>,
        label: String? = nil
    ) -> Store<FeatureKey, FeatureAction, Void> {
        let embedAction = lift.embedAction
        return scoped(
            label: label ?? lift.label,
            state: engine.state.scope(keyTransformation: lift.keyTransformation, defaultCache: [:]),
            actionHandler: .none,
            dependency: (),
            actionTransformation: { $0.map(embedAction) },
            reportsOwnActions: false)
    }
}
