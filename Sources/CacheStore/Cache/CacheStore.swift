import Observation

/// A thread-safe cache of values of any type, by key.
///
/// Values are read back typed, scopes give a feature its own view of a subset of the keys, and reads
/// are observable key by key.
///
/// ```swift
/// enum Key { case count, name }
///
/// let cache = CacheStore<Key>(initialValues: [.count: 0])
/// cache.set(value: "Ada", forKey: .name)
/// cache.update(.count, as: Int.self) { count in count = (count ?? 0) + 1 }
///
/// cache.get(.count, as: Int.self)      // 1
/// cache.get(.name, as: Int.self)       // nil: not an Int
/// try cache.resolve(.name, as: String.self) // "Ada"
/// ```
///
/// Every method may be called from any thread. A handler's `state` is a cache too: on the thread
/// handling the action it holds the handler's writes until the handler returns; another thread it is
/// handed to meanwhile reads and writes the store's committed state. Setting an `Optional` that is
/// `nil` removes the key;
/// a non-nil `Optional` is stored unwrapped, so it reads back as its wrapped type. Keys are looked up
/// while the cache's lock is held: a key's `hash(into:)` and `==`, like any `Hashable` value's, must
/// depend on the key alone and never call a store. (Every other user code, a value's `deinit`
/// included, runs with no lock held.)
///
/// ## Observation
///
/// Reading a key inside `withObservationTracking` (or a SwiftUI view's `body`) tracks that key only:
/// a write to another key does not fire it. Observers run after the write is applied, so reading in
/// `onChange` sees the new value. For code without SwiftUI, ``changes`` is an `AsyncSequence` of the
/// keys that changed.
///
/// ## Topics
///
/// ### Creating a cache
///
/// - ``init(initialValues:)``
/// - ``copy()``
///
/// ### Reading values
///
/// - ``get(_:as:)``
/// - ``resolve(_:as:)``
/// - ``contains(_:)``
/// - ``valuesInCache(ofType:)``
/// - ``allValues``
///
/// ### Typed keys
///
/// - ``subscript(_:)``
/// - ``resolve(_:)``
/// - ``update(_:updater:)``
/// - ``TypedKey``
///
/// ### Checking required keys
///
/// - ``require(_:)``
/// - ``require(keys:)``
/// - ``MissingRequiredKeysError``
/// - ``InvalidTypeError``
///
/// ### Writing values
///
/// - ``set(value:forKey:)``
/// - ``update(_:as:updater:)``
/// - ``remove(_:)``
///
/// ### Scopes
///
/// - ``scope(keys:)``
/// - ``scope(keyTransformation:defaultCache:)``
///
/// ### Observing changes
///
/// - ``changes``
public final class CacheStore<Key: Hashable & SendableMetatype>: Observable, @unchecked Sendable {
    /// The key space this cache reads and writes, with its hot operations specialized for `Key` (see
    /// ``CoreAccess``).
    @usableFromInline let access: CoreAccess<Key>

    /// The key space this cache reads and writes: its own values, a scope's, or an action's.
    @inlinable var core: any StorageCore<Key> { access.core }

    /// Creates a cache holding `initialValues`.
    ///
    /// Values that are `nil` optionals are left out; other optionals are stored unwrapped.
    ///
    /// - Parameter initialValues: The values the cache starts with, by key.
    @inlinable
    public convenience init(initialValues: [Key: Any]) {
        self.init(core: RootCore(values: initialValues.compactMapValues(flattenedOptional)))
    }

    @inlinable
    init<Core: StorageCore>(core: Core) where Core.Key == Key {
        self.access = CoreAccess(core)
    }

    /// A cache over the core of `access`: a handle, as two caches over one core are one cache.
    @inlinable
    init(access: CoreAccess<Key>) {
        self.access = access
    }

    /// The value of `key` as a `Value`.
    ///
    /// ```swift
    /// let name = cache.get(.name, as: String.self)
    /// let count: Int? = cache.get(.count)
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key to read.
    ///   - as: The type to read the value as; inferred from the context when left out.
    /// - Returns: The value, or `nil` when `key` has no value or its value is not a `Value`.
    @inlinable
    public func get<Value>(_ key: Key, as: Value.Type = Value.self) -> Value? {
        storedValue(access.read(key, true), as: Value.self)
    }

    /// The value of `key` as a `Value`, or an error that says why there is none.
    ///
    /// ```swift
    /// let url = try cache.resolve(.url, as: URL.self)
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key to read.
    ///   - as: The type to read the value as; inferred from the context when left out.
    /// - Returns: The value of `key`.
    /// - Throws: ``MissingRequiredKeysError`` when `key` has no value; ``InvalidTypeError`` when its
    ///   value is not a `Value`.
    @inlinable
    public func resolve<Value>(_ key: Key, as: Value.Type = Value.self) throws -> Value {
        try Self.resolved(access.read(key, true), of: key, as: Value.self)
    }

    /// `value`, read for `key`, as a `Value`, or the error ``resolve(_:as:)`` throws.
    @inlinable
    static func resolved<Value>(_ value: Any?, of key: Key, as: Value.Type) throws -> Value {
        guard let value else {
            throw MissingRequiredKeysError(keys: [key])
        }
        guard let typed = storedValue(value, as: Value.self) else {
            throw InvalidTypeError(key: key, expectedType: Value.self, actualValue: value)
        }
        return typed
    }

    /// Sets the value of `key`; setting an `Optional` that is `nil` removes the key.
    ///
    /// ```swift
    /// cache.set(value: 42, forKey: .count)
    /// cache.set(value: nil as Int?, forKey: .count) // removes .count
    /// ```
    ///
    /// The value it replaces is released after the cache is unlocked, so its `deinit` may use the cache.
    ///
    /// - Parameters:
    ///   - value: The new value. A non-nil `Optional` is stored unwrapped.
    ///   - key: The key to set.
    @inlinable
    public func set<Value>(value: Value, forKey key: Key) {
        dropStoredValue(access.write(key, storableValue(value)))
    }

    /// Removes `key` and its value. Removing an absent key does nothing.
    ///
    /// - Parameter key: The key to remove.
    @inlinable
    public func remove(_ key: Key) {
        dropStoredValue(access.write(key, nil))
    }

    /// Whether `key` has a value.
    ///
    /// - Parameter key: The key to look up.
    /// - Returns: `true` when `key` has a value of any type.
    @inlinable
    public func contains(_ key: Key) -> Bool {
        access.read(key, true) != nil
    }

    /// Reads, changes and writes back the value of `key` in one atomic step.
    ///
    /// No other write to `key` can land between the read and the write, so concurrent updates are
    /// never lost:
    ///
    /// ```swift
    /// cache.update(.count, as: Int.self) { count in
    ///     count = (count ?? 0) + 1
    /// }
    /// ```
    ///
    /// `updater` runs with no lock held, so it may read this cache (or any other). When another
    /// thread writes `key` while `updater` runs, `updater` runs again on the new value, as a
    /// compare-and-swap loop does: keep it free of side effects.
    ///
    /// - Parameters:
    ///   - key: The key to update.
    ///   - as: The type of the value; inferred from `updater` when left out.
    ///   - updater: Changes the value in place. It receives `nil` when `key` has no value or a value of
    ///     another type; setting `nil` removes the key.
    @inlinable
    public func update<Value>(_ key: Key, as: Value.Type = Value.self, updater: (inout Value?) -> Void) {
        core.update(key) { stored in
            var value = storedValue(stored, as: Value.self)
            updater(&value)
            stored = value.flatMap(storableValue)
        }
    }

    /// Every value that is a `Value`, by key.
    ///
    /// ```swift
    /// let counters = cache.valuesInCache(ofType: Int.self)
    /// ```
    ///
    /// Inside `withObservationTracking`, the read is told of any later write, insert or removal.
    ///
    /// - Parameter ofType: The type of the values to return; inferred from the context when left out.
    /// - Returns: The keys whose values are `Value`s, with those values.
    public func valuesInCache<Value>(ofType: Value.Type = Value.self) -> [Key: Value] {
        allValues.compactMapValues { value in storedValue(value, as: Value.self) }
    }

    /// Every key that has a value, with its value.
    ///
    /// Inside `withObservationTracking`, the read is told of any later write, insert or removal.
    public var allValues: [Key: Any] {
        core.allValues(observing: true)
    }

    /// An independent cache holding the values this one holds now.
    ///
    /// Later writes to either are not seen by the other. Copying a scope gives a plain cache of the
    /// scope's visible keys.
    ///
    /// - Returns: A new cache with a snapshot of ``allValues``.
    public func copy() -> CacheStore<Key> {
        CacheStore(initialValues: core.allValues(observing: false))
    }

    /// The keys that change, after each change, as an `AsyncSequence`.
    ///
    /// Each element names the keys one write (or one ``Store`` action) changed. When the consumer
    /// falls behind, waiting changes are merged into one, and past a bound into one that says
    /// "everything may have changed" (see ``ChangedKeys``): no change is lost, and memory stays
    /// bounded however slow the consumer is.
    ///
    /// ```swift
    /// for await keys in cache.changes {
    ///     if keys.contains(.posts) { redraw() }
    /// }
    /// ```
    public var changes: CacheStoreChanges<Key> {
        // The sequence subscribes to the core when iterated, maybe after the current action: a
        // handler's state that made one is not reused for the next action, as when it made a scope.
        core.noteScoped()
        return CacheStoreChanges(core: core)
    }
}
