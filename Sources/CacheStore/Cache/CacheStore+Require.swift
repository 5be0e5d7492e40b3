extension CacheStore {
    /// Checks that `key` has a value.
    ///
    /// ```swift
    /// try cache.require(.url).require(.token)
    /// ```
    ///
    /// - Parameter key: The key that must have a value.
    /// - Returns: This cache, so checks can be chained.
    /// - Throws: ``MissingRequiredKeysError`` naming `key` when it has no value.
    @discardableResult
    public func require(_ key: Key) throws -> Self {
        try require(keys: [key])
    }

    /// Checks that every key in `keys` has a value.
    ///
    /// ```swift
    /// try cache.require(keys: [.url, .token])
    /// ```
    ///
    /// - Parameter keys: The keys that must have values.
    /// - Returns: This cache, so checks can be chained.
    /// - Throws: ``MissingRequiredKeysError`` naming every key of `keys` that has no value.
    @discardableResult
    public func require(keys: Set<Key>) throws -> Self {
        let missing = keys.filter { key in access.read(key, true) == nil }
        guard missing.isEmpty else { throw MissingRequiredKeysError(keys: missing) }
        return self
    }
}
