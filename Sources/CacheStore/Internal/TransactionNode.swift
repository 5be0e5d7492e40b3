/// One action's writes, held apart from the state until the action's handler returns.
///
/// A handler mutates a ``CacheStore`` backed by a transaction: reads see the transaction's own writes
/// first, then the committed state. ``commitLocked(into:recordingChanges:)`` applies every write at
/// once, so other threads never see an action half-applied, and reports what changed, in O(keys
/// written).
///
/// The transaction is guarded by its store's turn lock (``ActionQueue/turn``), which the handler's
/// thread already holds, so the handler's own reads and writes re-take a lock it owns instead of
/// contending for the storage lock. The storage lock is taken only around reads and writes of the
/// committed state: lock order is always turn, then storage.
@usableFromInline
final class TransactionNode<Key: Hashable & SendableMetatype>: StorageNode<Key>, @unchecked Sendable {
    @usableFromInline let base: StorageNode<Key>
    @usableFromInline let overlay: Overlay

    /// The transaction's writes; after commit, writes through a captured handle go straight to the
    /// committed state. Guarded by the tree's lock.
    ///
    /// Most actions write a few keys, so writes are kept in order in an array and found by a linear
    /// scan, which beats hashing; past ``indexThreshold`` writes a dictionary index takes over.
    @usableFromInline
    final class Overlay {
        /// Written values in the order first written; `nil` marks a removal.
        @exclusivity(unchecked) @usableFromInline var writes: [(key: Key, value: Any?)] = []
        /// Positions in `writes` by key, once there are more than `indexThreshold` writes.
        @exclusivity(unchecked) @usableFromInline var index: [Key: Int] = [:]
        @exclusivity(unchecked) @usableFromInline var isCommitted = false
        /// Whether a scope was made over the transaction, which could outlive the action.
        @exclusivity(unchecked) @usableFromInline var isShared = false

        @usableFromInline static var indexThreshold: Int { 16 }

        @inlinable init() {}

        /// The position of `key` in `writes`, if written.
        @inlinable
        func position(of key: Key) -> Int? {
            if writes.count > Self.indexThreshold { return index[key] }
            return writes.firstIndex { $0.key == key }
        }

        /// The value written for `key`: `.some(nil)` for a removal, `nil` when not written.
        @inlinable
        func written(_ key: Key) -> Any?? {
            position(of: key).map { writes[$0].value }
        }

        @inlinable
        func write(_ value: Any?, for key: Key) {
            if let position = position(of: key) {
                writes[position].value = value
                return
            }
            writes.append((key, value))
            if writes.count > Self.indexThreshold {
                if index.isEmpty {
                    for (position, write) in writes.enumerated() { index[write.key] = position }
                } else {
                    index[key] = writes.count - 1
                }
            }
        }

        /// Forgets every write, keeping the storage of small ones for the next action.
        @inlinable
        func removeAll() {
            writes.removeAll(keepingCapacity: writes.count <= 64)
            if !index.isEmpty { index = [:] }
        }
    }

    /// A transaction over `base`, guarded by `turn`: the lock of the store's ``ActionQueue``.
    @inlinable
    init(over base: StorageNode<Key>, turn: Lock) {
        let overlay = Overlay()
        let storageLock = base.lock
        // A handler's reads are not a view's: they record no observation.
        let readBase = base.peekLocked
        let writeBase = base.writeLocked
        self.base = base
        self.overlay = overlay
        let read = { (key: Key) -> Any? in
            if !overlay.isCommitted, let written = overlay.written(key) { return written }
            storageLock.lock()
            defer { storageLock.unlock() }
            return readBase(key)
        }
        super.init(
            lock: turn,
            valueLocked: read,
            peekLocked: read,
            // Before commit a write returns `nil`, not the value it replaces: reading that would cost a
            // lookup per write, and only the commit needs it (it gets it from the committed state).
            writeLocked: { key, value, batch in
                guard overlay.isCommitted else {
                    overlay.write(value, for: key)
                    return nil
                }
                storageLock.lock()
                defer { storageLock.unlock() }
                return writeBase(key, value, &batch)
            })
    }

    override func allValuesLocked() -> [Key: Any] {
        var result = base.lock.withLock { base.allValuesLocked() }
        guard !overlay.isCommitted else { return result }
        for (key, value) in overlay.writes { result[key] = value }
        return result
    }

    override func subscribe(_ subscriber: Subscriber<Key>) -> Subscription {
        base.subscribe(subscriber)
    }

    /// The writes recorded so far, without applying them: what an expectation closure would change.
    func pendingWritesLocked() -> [Key: Any?] {
        Dictionary(overlay.writes.lazy.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// Drops every write: the handler replaced the whole state instead.
    func discardLocked() {
        overlay.isCommitted = true
        overlay.removeAll()
    }

    /// Opens the transaction again for the next action, keeping its storage. Only for a transaction
    /// that nothing outside its store holds (see `Store.apply`), so no other thread can see it and
    /// the lock is not needed.
    @inlinable
    func reopen() {
        overlay.isCommitted = false
    }

    /// Applies every write to the committed state. Both the turn and the storage lock must be held.
    ///
    /// - Parameter recordingChanges: Whether to return each written key's value before and after; a
    ///   plain action with no debug log and no test store needs none, so allocates none.
    @inlinable
    func commitLocked(into batch: inout ChangeBatch, recordingChanges: Bool) -> [StateChange<Key>] {
        overlay.isCommitted = true
        guard !overlay.writes.isEmpty else { return [] }
        if !overlay.index.isEmpty { overlay.index = [:] }
        let writeBase = base.writeLocked
        // Popping moves each write out (each key is written once, so the order does not matter) and
        // keeps the array's storage for the next action.
        guard recordingChanges else {
            while let (key, after) = overlay.writes.popLast() { _ = writeBase(key, after, &batch) }
            return []
        }
        var changes: [StateChange<Key>] = []
        changes.reserveCapacity(overlay.writes.count)
        while let (key, after) = overlay.writes.popLast() {
            changes.append(StateChange(key: key, before: writeBase(key, after, &batch), after: after))
        }
        return changes
    }
}

/// One key's value before and after an action; `nil` means absent.
@usableFromInline
package struct StateChange<Key: Hashable>: @unchecked Sendable {
    @usableFromInline package let key: Key
    @usableFromInline package let before: Any?
    @usableFromInline package let after: Any?

    @inlinable
    package init(key: Key, before: Any?, after: Any?) {
        self.key = key
        self.before = before
        self.after = after
    }
}
