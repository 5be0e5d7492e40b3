extension Store {
    /// The value of `key` as a `Value`; `nil` when absent or of another type.
    ///
    /// ```swift
    /// let posts = store.get(.posts, as: [Post].self) ?? []
    /// ```
    ///
    /// Inside `withObservationTracking` (or a SwiftUI `body`) the read tracks `key` only.
    ///
    /// - Parameters:
    ///   - key: The key to read.
    ///   - as: The type to read the value as; inferred when left out.
    /// - Returns: The value, or `nil`.
    public func get<Value>(_ key: Key, as: Value.Type = Value.self) -> Value? {
        storedValue(engine.read(key), as: Value.self)
    }

    /// The value of `key` as a `Value`, or an error that says why there is none.
    ///
    /// - Parameters:
    ///   - key: The key to read.
    ///   - as: The type to read the value as; inferred when left out.
    /// - Returns: The value of `key`.
    /// - Throws: ``CacheStore/MissingRequiredKeysError`` or ``CacheStore/InvalidTypeError``.
    public func resolve<Value>(_ key: Key, as: Value.Type = Value.self) throws -> Value {
        try CacheStore.resolved(engine.read(key), of: key, as: Value.self)
    }

    /// Whether `key` has a value.
    ///
    /// - Parameter key: The key to look up.
    /// - Returns: `true` when `key` has a value of any type.
    public func contains(_ key: Key) -> Bool {
        engine.read(key) != nil
    }

    /// Checks that `key` has a value.
    ///
    /// - Parameter key: The key that must have a value.
    /// - Returns: This store, so checks can be chained.
    /// - Throws: ``CacheStore/MissingRequiredKeysError`` naming `key`.
    @discardableResult
    public func require(_ key: Key) throws -> Self {
        try cacheStore.require(key)
        return self
    }

    /// Checks that every key in `keys` has a value.
    ///
    /// - Parameter keys: The keys that must have values.
    /// - Returns: This store, so checks can be chained.
    /// - Throws: ``CacheStore/MissingRequiredKeysError`` naming every missing key.
    @discardableResult
    public func require(keys: Set<Key>) throws -> Self {
        try cacheStore.require(keys: keys)
        return self
    }

    /// Every value that is a `Value`, by key.
    ///
    /// - Parameter ofType: The type of the values to return; inferred when left out.
    /// - Returns: The keys whose values are `Value`s, with those values.
    public func valuesInCache<Value>(ofType: Value.Type = Value.self) -> [Key: Value] {
        cacheStore.valuesInCache(ofType: Value.self)
    }

    /// Every key that has a value, with its value.
    public var allValues: [Key: Any] {
        cacheStore.allValues
    }

    /// The keys each action changes, as an `AsyncSequence`: see ``CacheStoreChanges``.
    ///
    /// ```swift
    /// for await keys in store.changes where keys.contains(.posts) {
    ///     redraw()
    /// }
    /// ```
    public var changes: CacheStoreChanges<Key> {
        cacheStore.changes
    }
}

extension StoreEngine {
    /// The value of `key` in the committed state; with `observing`, the read is recorded for
    /// observation.
    ///
    /// Read here, through the engine's own field, so that a store's read does not copy the whole
    /// ``CoreAccess`` for the call.
    @inlinable
    func read(_ key: Key, observing: Bool = true) -> Any? {
        state.read(key, observing)
    }
}
