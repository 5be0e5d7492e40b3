/// One key space of a storage tree: the root's own values, a scope mapped onto its parent, or an
/// action's uncommitted writes over either.
///
/// Every node of a tree shares the root's ``Lock``. Methods whose names end in `Locked` must be called
/// with it held; they may call a parent's `Locked` methods, never take the lock again.
class StorageNode<Key: Hashable & SendableMetatype>: @unchecked Sendable {
    let lock: Lock

    init(lock: Lock) {
        self.lock = lock
    }

    /// The value stored for `key`, recording the read for observation.
    func valueLocked(_ key: Key) -> Any? {
        fatalError("abstract: \(Self.self) must override \(#function)")
    }

    /// Sets (or, for `nil`, removes) the value of `key`; the changes to publish go into `batch`.
    /// - Returns: The value `key` had before, as a read would have seen it.
    @discardableResult
    func writeLocked(_ value: Any?, for key: Key, into batch: inout ChangeBatch) -> Any? {
        fatalError("abstract: \(Self.self) must override \(#function)")
    }

    /// Every key visible in this key space with its value, recording the reads for observation.
    func allValuesLocked() -> [Key: Any] {
        fatalError("abstract: \(Self.self) must override \(#function)")
    }

    /// Registers `subscriber` to be told which keys of this key space change, after each change.
    func subscribe(_ subscriber: Subscriber<Key>) -> Subscription {
        fatalError("abstract: \(Self.self) must override \(#function)")
    }
}

/// The root of a storage tree: owns its values.
final class RootNode<Key: Hashable & SendableMetatype>: StorageNode<Key>, @unchecked Sendable {
    let storage: KeyedValues<Key>

    init(values: [Key: Any]) {
        let lock = Lock()
        storage = KeyedValues(lock: lock, values: values)
        super.init(lock: lock)
    }

    override func valueLocked(_ key: Key) -> Any? {
        storage.valueLocked(key)
    }

    override func writeLocked(_ value: Any?, for key: Key, into batch: inout ChangeBatch) -> Any? {
        storage.writeLocked(value, for: key, into: &batch)
    }

    override func allValuesLocked() -> [Key: Any] {
        storage.accessAllLocked()
        return storage.values
    }

    override func subscribe(_ subscriber: Subscriber<Key>) -> Subscription {
        storage.subscribe(subscriber)
    }
}
