extension Store {
    /// The value of a typed key: its default while it has none.
    ///
    /// ```swift
    /// let size = store[.fontSize]  // an Int
    /// ```
    ///
    /// Inside `withObservationTracking` (or a SwiftUI `body`) the read tracks the key only. A store's
    /// state changes only through actions, so a store's subscript is read-only; a handler writes
    /// through its `state`: `state[.fontSize] += 1`.
    ///
    /// - Parameter key: The typed key.
    @inlinable
    public subscript<Value>(key: TypedKey<Key, Value>) -> Value {
        self.get(key.key, as: Value.self) ?? key.defaultValue
    }

    /// The value of a typed key, or an error that says why it reads as its default.
    ///
    /// - Parameter key: The typed key.
    /// - Returns: The key's value, when it has one of type `Value`.
    /// - Throws: ``CacheStore/MissingRequiredKeysError`` or ``CacheStore/InvalidTypeError``.
    public func resolve<Value>(_ key: TypedKey<Key, Value>) throws -> Value {
        try resolve(key.key, as: Value.self)
    }
}
