extension Store {
    /// A store for one feature, with its own keys, actions and dependency, over this store's state.
    ///
    /// The scoped store reads and writes this store's state live, through `keyTransformation` (see
    /// ``CacheStore/scope(keyTransformation:defaultCache:)``). Its actions are handled by
    /// `actionHandler`, one at a time together with this store's. After a scoped action is handled,
    /// `actionTransformation` may map it to an action of this store, which is then handled here too.
    ///
    /// ```swift
    /// let filter = appStore.scope(
    ///     keyTransformation: (
    ///         from: { appKey in appKey == .selectedUser ? .userID : nil },
    ///         to: { filterKey in filterKey == .userID ? .selectedUser : nil }
    ///     ),
    ///     actionHandler: filterHandler,
    ///     dependencyTransformation: { app in app.filter },
    ///     actionTransformation: { filterAction in
    ///         if case .select = filterAction { .refresh } else { nil }
    ///     }
    /// )
    /// ```
    ///
    /// The scoped store keeps this store alive; this store does not keep the scoped store. Effects of
    /// the scoped store run (and are cancelled) in the scoped store.
    ///
    /// This store's debug log (see ``debug``) shows the scoped store's actions under `label`, with
    /// its writes named by this store's keys: `[CacheStore/filter] Action: .select(2)`.
    ///
    /// - Parameters:
    ///   - label: The scoped store's name in debug logs; by default its action type's name.
    ///   - keyTransformation: Maps keys between this store (`from`) and the scoped store (`to`).
    ///   - actionHandler: Handles the scoped store's actions.
    ///   - dependencyTransformation: Derives the scoped store's dependency from this store's.
    ///   - defaultCache: Initial values of the scope's own keys, and fallbacks for mapped keys.
    ///   - actionTransformation: Maps a scoped action to an action of this store, or `nil` for none.
    /// - Returns: The scoped store.
    @inlinable
    public func scope<ScopedKey: Hashable & SendableMetatype, ScopedAction, ScopedDependency>(
        label: String? = nil,
        keyTransformation: BiDirectionalTransformation<Key?, ScopedKey?>,
        actionHandler: StoreActionHandler<ScopedKey, ScopedAction, ScopedDependency>,
        dependencyTransformation: (Dependency) -> ScopedDependency,
        defaultCache: [ScopedKey: Any] = [:],
        actionTransformation: @escaping (ScopedAction?) -> Action? = { _ in nil }
    ) -> Store<ScopedKey, ScopedAction, ScopedDependency> {
        scoped(
            label: label,
            state: engine.state.scope(keyTransformation: keyTransformation, defaultCache: defaultCache),
            actionHandler: actionHandler,
            dependency: dependencyTransformation(engine.dependency),
            actionTransformation: actionTransformation)
    }

    /// A store for one feature over the keys in `keys` of this store's state.
    ///
    /// As ``scope(label:keyTransformation:actionHandler:dependencyTransformation:defaultCache:actionTransformation:)``,
    /// with the keys of this store: keys outside `keys` are invisible to the scoped store.
    ///
    /// ```swift
    /// let session = appStore.scope(
    ///     keys: [.token, .userID],
    ///     actionHandler: sessionHandler,
    ///     dependencyTransformation: { app in app.session }
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - label: The scoped store's name in debug logs; by default its action type's name.
    ///   - keys: The keys the scoped store shows.
    ///   - actionHandler: Handles the scoped store's actions.
    ///   - dependencyTransformation: Derives the scoped store's dependency from this store's.
    ///   - actionTransformation: Maps a scoped action to an action of this store, or `nil` for none.
    /// - Returns: The scoped store.
    @inlinable
    public func scope<ScopedAction, ScopedDependency>(
        label: String? = nil,
        keys: Set<Key>,
        actionHandler: StoreActionHandler<Key, ScopedAction, ScopedDependency>,
        dependencyTransformation: (Dependency) -> ScopedDependency,
        actionTransformation: @escaping (ScopedAction?) -> Action? = { _ in nil }
    ) -> Store<Key, ScopedAction, ScopedDependency> {
        scoped(
            label: label,
            state: engine.state.scope(keys: keys),
            actionHandler: actionHandler,
            dependency: dependencyTransformation(engine.dependency),
            actionTransformation: actionTransformation)
    }

    /// A read-only store over part of this store's state: it has no actions, so it never changes
    /// the state itself, but it sees every change live.
    ///
    /// ```swift
    /// let header = appStore.actionlessScope(
    ///     keyTransformation: (from: { $0 == .userName ? .title : nil }, to: { $0 == .title ? .userName : nil }),
    ///     dependencyTransformation: { _ in () }
    /// )
    /// header.get(.title, as: String.self)
    /// ```
    ///
    /// - Parameters:
    ///   - label: The scoped store's name in the debug log paths of stores scoped from it; by default
    ///     its key type's name.
    ///   - keyTransformation: Maps keys between this store (`from`) and the scoped store (`to`).
    ///   - dependencyTransformation: Derives the scoped store's dependency from this store's.
    ///   - defaultCache: Initial values of the scope's own keys, and fallbacks for mapped keys.
    /// - Returns: The scoped store.
    @inlinable
    public func actionlessScope<ScopedKey: Hashable & SendableMetatype, ScopedDependency>(
        label: String? = nil,
        keyTransformation: BiDirectionalTransformation<Key?, ScopedKey?>,
        dependencyTransformation: (Dependency) -> ScopedDependency,
        defaultCache: [ScopedKey: Any] = [:]
    ) -> Store<ScopedKey, Void, ScopedDependency> {
        scope(
            label: label,
            keyTransformation: keyTransformation,
            actionHandler: .none,
            dependencyTransformation: dependencyTransformation,
            defaultCache: defaultCache)
    }

    /// The scoped store over `state`, a scope of this store's state.
    @inlinable
    func scoped<ScopedKey: Hashable & SendableMetatype, ScopedAction, ScopedDependency>(
        label: String?,
        state: CoreAccess<ScopedKey>,
        actionHandler: StoreActionHandler<ScopedKey, ScopedAction, ScopedDependency>,
        dependency: ScopedDependency,
        actionTransformation: @escaping (ScopedAction?) -> Action?,
        reportsOwnActions: Bool = true
    ) -> Store<ScopedKey, ScopedAction, ScopedDependency> {
        let scopedEngine = StoreEngine(
            state: state,
            queue: engine.queue,
            handler: actionHandler,
            dependency: dependency,
            isolation: engine.isolation,
            forwardToParent: forwarding(
                label: label, of: ScopedKey.self, actionTransformation, notesForwarding: reportsOwnActions),
            parentStore: self)
        // Before the store is returned, so no other thread can see it yet.
        scopedEngine.debugLog = DebugLog(label: label, parent: engine, reportsOwnActions: reportsOwnActions)
        return Store<ScopedKey, ScopedAction, ScopedDependency>(engine: scopedEngine)
    }

    /// What a scoped store calls with each action it handled: hands the parent the action that
    /// `actionTransformation` makes of it, noting in the parent's log where it came from unless the
    /// scoped store is a view store, whose actions are the parent's own. `nil` for a store whose
    /// actions are `Never`, which can have none: a read-only row's store then makes no closure.
    @inlinable
    func forwarding<ScopedKey: Hashable & SendableMetatype, ScopedAction>(
        label: String?, of scopedKey: ScopedKey.Type, _ actionTransformation: @escaping (ScopedAction?) -> Action?,
        notesForwarding: Bool
    ) -> ((ScopedAction) -> Void)? {
        if ScopedAction.self == Never.self { return nil }
        // Called in the scoped action's turn, which is this store's too (one tree, one queue): the
        // parent handles its action right away, as part of the same delivery.
        return { [self] action in
            guard let parentAction = actionTransformation(action) else { return }
            if notesForwarding {
                engine.noteForwarded(from: DebugLog<ScopedKey>.scopedLabel(label, action: ScopedAction.self))
            }
            engine.process(parentAction, from: .sent)
        }
    }
}

extension Store where Dependency == Void {
    /// A scoped store whose handler needs no dependency.
    ///
    /// - Parameters:
    ///   - label: The scoped store's name in debug logs; by default its action type's name.
    ///   - keyTransformation: Maps keys between this store (`from`) and the scoped store (`to`).
    ///   - actionHandler: Handles the scoped store's actions.
    ///   - defaultCache: Initial values of the scope's own keys, and fallbacks for mapped keys.
    ///   - actionTransformation: Maps a scoped action to an action of this store, or `nil` for none.
    /// - Returns: The scoped store.
    @inlinable
    public func scope<ScopedKey: Hashable & SendableMetatype, ScopedAction>(
        label: String? = nil,
        keyTransformation: BiDirectionalTransformation<Key?, ScopedKey?>,
        actionHandler: StoreActionHandler<ScopedKey, ScopedAction, Void>,
        defaultCache: [ScopedKey: Any] = [:],
        actionTransformation: @escaping (ScopedAction?) -> Action? = { _ in nil }
    ) -> Store<ScopedKey, ScopedAction, Void> {
        scope(
            label: label,
            keyTransformation: keyTransformation,
            actionHandler: actionHandler,
            dependencyTransformation: { _ in () },
            defaultCache: defaultCache,
            actionTransformation: actionTransformation)
    }

    /// A read-only scoped store whose parent needs no dependency.
    ///
    /// - Parameters:
    ///   - label: The scoped store's name in the debug log paths of stores scoped from it; by default
    ///     its key type's name.
    ///   - keyTransformation: Maps keys between this store (`from`) and the scoped store (`to`).
    ///   - defaultCache: Initial values of the scope's own keys, and fallbacks for mapped keys.
    /// - Returns: The scoped store.
    @inlinable
    public func actionlessScope<ScopedKey: Hashable & SendableMetatype>(
        label: String? = nil,
        keyTransformation: BiDirectionalTransformation<Key?, ScopedKey?>,
        defaultCache: [ScopedKey: Any] = [:]
    ) -> Store<ScopedKey, Void, Void> {
        actionlessScope(
            label: label, keyTransformation: keyTransformation, dependencyTransformation: { _ in () },
            defaultCache: defaultCache)
    }
}
