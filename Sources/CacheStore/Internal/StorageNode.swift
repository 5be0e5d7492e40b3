/// One key space of a storage tree: the root's own values, a scope mapped onto its parent's, or an
/// action's uncommitted writes over either.
///
/// Every node of a tree shares the root's ``Lock``. The hot operations, ``valueLocked`` and
/// ``writeLocked``, are closures made by each kind of node's `@inlinable` initializer, so they run
/// code specialized for the client's key types instead of generic code behind a vtable. They must be
/// called with the lock held.
@usableFromInline
class StorageNode<Key: Hashable & SendableMetatype>: @unchecked Sendable {
    @usableFromInline let lock: Lock
    /// The value stored for a key, recording the read for observation. Lock held.
    @usableFromInline let valueLocked: (Key) -> Any?
    /// The value stored for a key, not recorded for observation: for reads that are not a view's,
    /// such as a handler's. Lock held.
    @usableFromInline let peekLocked: (Key) -> Any?
    /// Sets (or, for `nil`, removes) the value of a key, putting the changes to publish in the batch,
    /// and returns the value it had, as a read would have seen it. Lock held.
    @usableFromInline let writeLocked: (Key, Any?, inout ChangeBatch) -> Any?

    @inlinable
    init(
        lock: Lock,
        valueLocked: @escaping (Key) -> Any?,
        peekLocked: @escaping (Key) -> Any?,
        writeLocked: @escaping (Key, Any?, inout ChangeBatch) -> Any?
    ) {
        self.lock = lock
        self.valueLocked = valueLocked
        self.peekLocked = peekLocked
        self.writeLocked = writeLocked
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
@usableFromInline
final class RootNode<Key: Hashable & SendableMetatype>: StorageNode<Key>, @unchecked Sendable {
    @usableFromInline let storage: KeyedValues<Key>

    @inlinable
    init(values: [Key: Any]) {
        let lock = Lock()
        let storage = KeyedValues(lock: lock, values: values)
        self.storage = storage
        super.init(
            lock: lock,
            valueLocked: { key in storage.valueLocked(key) },
            peekLocked: { key in storage.peekLocked(key) },
            writeLocked: { key, value, batch in storage.writeLocked(value, for: key, into: &batch) })
    }

    override func allValuesLocked() -> [Key: Any] {
        storage.accessAllLocked()
        return storage.valuesLocked
    }

    override func subscribe(_ subscriber: Subscriber<Key>) -> Subscription {
        storage.subscribe(subscriber)
    }
}
