/// One action's writes, held apart from the state until the action's handler returns.
///
/// A handler mutates a ``CacheStore`` backed by a transaction: reads see the transaction's own writes
/// first, then the committed state. ``commitLocked(into:)`` applies every write at once, so other
/// threads never see an action half-applied, and reports what changed, in O(keys written).
final class TransactionNode<Key: Hashable & SendableMetatype>: StorageNode<Key>, @unchecked Sendable {
    private let base: StorageNode<Key>
    /// Written values by key; `nil` marks a removal.
    private var writes: [Key: Any?] = [:]
    /// After commit, writes through a captured handle go straight to the committed state.
    private var isCommitted = false

    init(over base: StorageNode<Key>) {
        self.base = base
        super.init(lock: base.lock)
    }

    override func valueLocked(_ key: Key) -> Any? {
        if !isCommitted, let written = writes[key] { return written }
        return base.valueLocked(key)
    }

    override func writeLocked(_ value: Any?, for key: Key, into batch: inout ChangeBatch) -> Any? {
        if isCommitted { return base.writeLocked(value, for: key, into: &batch) }
        let previous = writes.updateValue(value, forKey: key)
        return previous ?? base.valueLocked(key)
    }

    override func allValuesLocked() -> [Key: Any] {
        var result = base.allValuesLocked()
        guard !isCommitted else { return result }
        for (key, value) in writes { result[key] = value }
        return result
    }

    override func subscribe(_ subscriber: Subscriber<Key>) -> Subscription {
        base.subscribe(subscriber)
    }

    /// The writes recorded so far, without applying them: what an expectation closure would change.
    func pendingWritesLocked() -> [Key: Any?] {
        writes
    }

    /// Drops every write: the handler replaced the whole state instead.
    func discardLocked() {
        isCommitted = true
        writes = [:]
    }

    /// Applies every write to the committed state, and returns each written key's value before and after.
    func commitLocked(into batch: inout ChangeBatch) -> [StateChange<Key>] {
        isCommitted = true
        guard !writes.isEmpty else { return [] }
        var changes: [StateChange<Key>] = []
        changes.reserveCapacity(writes.count)
        for (key, after) in writes {
            let before = base.writeLocked(after, for: key, into: &batch)
            changes.append(StateChange(key: key, before: before, after: after))
        }
        writes = [:]
        return changes
    }
}

/// One key's value before and after an action; `nil` means absent.
package struct StateChange<Key: Hashable & SendableMetatype>: @unchecked Sendable {
    package let key: Key
    package let before: Any?
    package let after: Any?
}
