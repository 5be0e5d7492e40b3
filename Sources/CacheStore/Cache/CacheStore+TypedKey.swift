extension CacheStore {
    /// The value of a typed key: its default while it has none.
    ///
    /// ```swift
    /// settings[.fontSize] += 1          // an Int
    /// settings[.tags].append("swift")   // a [String]
    /// settings[.nickname] = nil         // removes .nickname
    /// ```
    ///
    /// A read is a ``get(_:as:)`` of the plain key, so it is tracked by observation in the same way.
    /// A write is a ``set(value:forKey:)``; a read-modify-write such as `+= 1` is a read then a
    /// write, atomic inside a handler (the handler's state is its own until it returns) but not
    /// between threads: on a cache shared between threads, use ``update(_:updater:)``.
    ///
    /// - Parameter key: The typed key.
    @inlinable
    public subscript<Value>(key: TypedKey<Key, Value>) -> Value {
        get { get(key.key, as: Value.self) ?? key.defaultValue }
        set { set(value: newValue, forKey: key.key) }
    }

    /// The value of a typed key, or an error that says why it reads as its default.
    ///
    /// ```swift
    /// let size = try settings.resolve(.fontSize)
    /// ```
    ///
    /// - Parameter key: The typed key.
    /// - Returns: The key's value, when it has one of type `Value`.
    /// - Throws: ``MissingRequiredKeysError`` when the key has no value; ``InvalidTypeError`` when its
    ///   value is of another type (written through the untyped API).
    @inlinable
    public func resolve<Value>(_ key: TypedKey<Key, Value>) throws -> Value {
        try resolve(key.key, as: Value.self)
    }

    /// Reads, changes and writes back the value of a typed key in one atomic step, starting from its
    /// default while it has none.
    ///
    /// ```swift
    /// settings.update(.fontSize) { size in size += 1 }
    /// ```
    ///
    /// As ``update(_:as:updater:)``, `updater` runs with no lock held and runs again when another
    /// thread writes the key meanwhile: keep it free of side effects.
    ///
    /// - Parameters:
    ///   - key: The typed key.
    ///   - updater: Changes the value in place.
    @inlinable
    public func update<Value>(_ key: TypedKey<Key, Value>, updater: (inout Value) -> Void) {
        update(key.key, as: Value.self) { stored in
            var value = stored ?? key.defaultValue
            updater(&value)
            stored = value
        }
    }
}
