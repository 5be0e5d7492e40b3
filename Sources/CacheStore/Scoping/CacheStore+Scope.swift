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
        CacheStore(access: access.scope(keys: keys))
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
    /// A scoped key `s` is *mapped* to the parent key `p` exactly when `to(s) == p` and
    /// `from(p) == s`: it then reads and writes `p`. Every other scoped key lives in the scope only.
    /// Reads, writes, ``allValues`` and ``changes`` all follow this one rule, so a transformation that
    /// is not injective, or whose halves are not inverses, never makes them disagree: when several
    /// parent keys map to one scoped key, only the one that `to` names back is visible. A default
    /// for a mapped key is used while the parent has no value for it, and is never written to the
    /// parent. The transformation is called with no lock held; keep it a pure mapping.
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
        CacheStore<ScopedKey>(access: access.scope(keyTransformation: keyTransformation, defaultCache: defaultCache))
    }
}

extension CoreAccess {
    /// A scope of this core over the keys in `keys` (see ``CacheStore/scope(keys:)``).
    @inlinable
    func scope(keys: Set<Key>) -> CoreAccess<Key> {
        core.noteScoped()
        let visible = { (key: Key?) in key.flatMap { keys.contains($0) ? $0 : nil } }
        return CoreAccess(ScopedCore(parentAccess: self, toParent: visible, fromParent: visible, defaultCache: [:]))
    }

    /// A scope of this core under another key type (see
    /// ``CacheStore/scope(keyTransformation:defaultCache:)``).
    @inlinable
    func scope<ScopedKey: Hashable & SendableMetatype>(
        keyTransformation: BiDirectionalTransformation<Key?, ScopedKey?>,
        defaultCache: [ScopedKey: Any]
    ) -> CoreAccess<ScopedKey> {
        core.noteScoped()
        let (fromParent, toParent) = keyTransformation
        return CoreAccess<ScopedKey>(
            ScopedCore(parentAccess: self, toParent: toParent, fromParent: fromParent, defaultCache: defaultCache))
    }
}
