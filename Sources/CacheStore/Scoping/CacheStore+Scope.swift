extension CacheStore {
    /// A live view of the keys in `keys`.
    ///
    /// The scope reads and writes this cache's storage directly: a write through the scope is seen
    /// here at once, and a write here is seen through the scope at once. Keys outside `keys` are
    /// invisible to the scope; a value the scope sets for such a key stays in the scope only.
    ///
    /// ```swift
    /// let session = appCache.scope(keys: [.token, .userID])
    /// session.set(value: "t0k3n", forKey: .token)
    /// appCache.get(.token, as: String.self) // "t0k3n"
    /// ```
    ///
    /// A scope keeps its parent's storage alive (the parent `CacheStore` object is a handle to it and
    /// may be released while the scope goes on working); the parent does not keep its scopes.
    ///
    /// - Parameter keys: The keys the scope shows.
    /// - Returns: The scope.
    @inlinable
    public func scope(keys: Set<Key>) -> CacheStore<Key> {
        markTransactionShared()
        return CacheStore(node: ScopedNode(subsetOf: node, keys: keys))
    }

    /// A live view of this cache under another key type.
    ///
    /// `from` maps each parent key to the scope's key (`nil` hides it); `to` maps each scoped key back
    /// to the parent key that stores it (`nil` makes it a key of the scope's own, seeded from
    /// `defaultCache`). Reads and writes go straight to this cache's storage, so the scope and the
    /// parent always agree.
    ///
    /// ```swift
    /// enum AppKey { case theme, fontSize, token }
    /// enum SettingsKey { case theme, fontSize, preview }
    ///
    /// let settings: CacheStore<SettingsKey> = appCache.scope(
    ///     keyTransformation: (
    ///         from: { appKey in
    ///             switch appKey {
    ///             case .theme: .theme
    ///             case .fontSize: .fontSize
    ///             default: nil
    ///             }
    ///         },
    ///         to: { settingsKey in
    ///             switch settingsKey {
    ///             case .theme: .theme
    ///             case .fontSize: .fontSize
    ///             default: nil // .preview lives in the scope only
    ///             }
    ///         }
    ///     ),
    ///     defaultCache: [.preview: false]
    /// )
    /// ```
    ///
    /// When several parent keys map to one scoped key, the scoped key shows the parent key that `to`
    /// names; the others are not visible. A default for a key that maps to the parent is used while
    /// the parent has no value for it, and is never written to the parent. The transformation is
    /// called while the cache is locked: keep it a pure mapping.
    ///
    /// - Parameters:
    ///   - keyTransformation: Maps keys between this cache (`from`) and the scope (`to`).
    ///   - defaultCache: Initial values of the scope's own keys, and fallbacks for mapped keys.
    /// - Returns: The scope.
    @inlinable
    public func scope<ScopedKey: Hashable & SendableMetatype>(
        keyTransformation: BiDirectionalTransformation<Key?, ScopedKey?>,
        defaultCache: [ScopedKey: Any] = [:]
    ) -> CacheStore<ScopedKey> {
        markTransactionShared()
        return CacheStore<ScopedKey>(
            node: ScopedNode(transforming: node, keyTransformation, defaultCache: defaultCache))
    }

    /// A scope over an action's state could outlive the action: the store must not reuse that state.
    @usableFromInline
    func markTransactionShared() {
        guard let transaction = node as? TransactionNode<Key> else { return }
        node.lock.withLock { transaction.overlay.isShared = true }
    }
}

extension ScopedNode {
    /// A scope of `parent` under a key transformation.
    @inlinable
    convenience init(
        transforming parent: StorageNode<ParentKey>,
        _ transformation: BiDirectionalTransformation<ParentKey?, Key?>,
        defaultCache: [Key: Any]
    ) {
        self.init(
            parent: parent,
            toParent: { key in transformation.to(key) },
            fromParent: { parentKey in transformation.from(parentKey) },
            defaultCache: defaultCache)
    }
}

extension ScopedNode where Key == ParentKey {
    /// A scope of `parent` showing `keys` only.
    @inlinable
    convenience init(subsetOf parent: StorageNode<Key>, keys: Set<Key>) {
        let visible = { (key: Key) in keys.contains(key) ? key : nil }
        self.init(parent: parent, toParent: visible, fromParent: visible, defaultCache: [:])
    }
}
