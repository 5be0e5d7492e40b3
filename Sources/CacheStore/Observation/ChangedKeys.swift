/// The keys one element of ``CacheStoreChanges`` says changed: a set of keys, or "every key", when
/// more changed than the stream keeps while its consumer is busy.
///
/// Test it with ``contains(_:)``, which is `true` for every key when the changes were too many to
/// list: a consumer then reads again everything it shows.
///
/// ```swift
/// for await changed in store.changes {
///     if changed.contains(.posts) { render(store.get(.posts, as: [Post].self) ?? []) }
/// }
/// ```
///
/// ## Topics
///
/// ### Reading the keys
///
/// - ``contains(_:)``
/// - ``keys``
/// - ``isEveryKey``
/// - ``description``
///
/// ### Creating changed keys
///
/// - ``init(_:)``
/// - ``init(arrayLiteral:)``
/// - ``everyKey``
public struct ChangedKeys<Key: Hashable>: Equatable, ExpressibleByArrayLiteral, @unchecked Sendable {
    /// The keys that changed, or `nil` when too many changed to list them (every key may have).
    public let keys: Set<Key>?

    /// Changed keys naming `keys`.
    ///
    /// - Parameter keys: The keys that changed.
    public init(_ keys: Set<Key>) {
        self.keys = keys
    }

    /// Changed keys naming the keys listed.
    ///
    /// - Parameter elements: The keys that changed.
    public init(arrayLiteral elements: Key...) {
        self.keys = Set(elements)
    }

    private init(everyKey: Void) {
        self.keys = nil
    }

    /// Changes too many to list: any key may have changed, so read again everything you show.
    public static var everyKey: ChangedKeys {
        ChangedKeys(everyKey: ())
    }

    /// Whether the changes were too many to list (see ``everyKey``).
    public var isEveryKey: Bool {
        keys == nil
    }

    /// Whether `key` may have changed: `true` when it is listed, or when every key may have.
    ///
    /// - Parameter key: The key to look for.
    /// - Returns: Whether `key` should be read again.
    public func contains(_ key: Key) -> Bool {
        keys?.contains(key) ?? true
    }
}

extension ChangedKeys: CustomStringConvertible {
    /// The keys, or `every key`.
    public var description: String {
        keys.map { "\($0)" } ?? "every key"
    }
}
