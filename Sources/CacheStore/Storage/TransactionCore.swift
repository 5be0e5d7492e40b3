/// One action's writes, held apart from the state until the action's handler returns.
///
/// A handler mutates a ``CacheStore`` backed by a transaction: reads see the transaction's own writes
/// first, then the committed state. ``commit(recordingChanges:)`` applies every write at once through
/// the base's ``StorageCore/writeAll(_:)`` (a lone write through ``StorageCore/write(_:for:)``), so
/// other threads never see an action half-applied, and reports what changed in O(keys written).
///
/// ## Threading
///
/// A transaction belongs to the thread handling its action (its ``owner``), which the store's
/// ``ActionQueue`` lets handle one action at a time: it has no lock. Another thread that uses the
/// handler's state while the action runs (a handler may hand its `Sendable` state to one) reads and
/// writes the committed state, as after the commit, and never the transaction's writes, which only
/// the owner touches: so the transaction needs no lock, and no other thread races with its writes.
@usableFromInline
final class TransactionCore<Key: Hashable & SendableMetatype>: StorageCore, @unchecked Sendable {
    @usableFromInline let base: any StorageCore<Key>
    @usableFromInline let baseAccess: CoreAccess<Key>
    /// The one key written so far, when there is only one, and its value (`nil` marks a removal):
    /// most actions write one key, which then touches neither array below, and is committed with one
    /// ``StorageCore/write(_:for:)``. A second key moves it into the arrays.
    @exclusivity(unchecked) @usableFromInline var onlyKey: Key?
    @exclusivity(unchecked) @usableFromInline var onlyValue: Any?
    /// Written keys in the order first written, and their values (`nil` marks a removal), once two
    /// keys or more are written: two arrays, which the commit hands to the base as they are.
    ///
    /// Most actions write a few keys, so a linear scan finds a write faster than hashing; past
    /// ``indexThreshold`` writes, `index` takes over.
    @exclusivity(unchecked) @usableFromInline var writtenKeys: [Key] = []
    @exclusivity(unchecked) @usableFromInline var writtenValues: [Any?] = []
    @exclusivity(unchecked) @usableFromInline var index: [Key: Int] = [:]
    @exclusivity(unchecked) @usableFromInline var isCommitted = false
    /// The thread handling the action (``ThreadID/word``): set before the handler runs, so before any
    /// other thread can reach the transaction.
    @exclusivity(unchecked) @usableFromInline var owner = ThreadID.current.word
    /// Whether a scope was made over the transaction: it could then be used after its action.
    @exclusivity(unchecked) @usableFromInline var isScoped = false

    @usableFromInline static var indexThreshold: Int { 16 }

    /// Whether the one write of a one-write transaction is held apart from the arrays (see
    /// ``onlyKey``): not for a test store's expectations, which hand the arrays on.
    @usableFromInline let holdsOnlyWriteApart: Bool

    /// A transaction over the state that `base` and `baseAccess` (the same core) reach.
    ///
    /// - Parameter holdsOnlyWriteApart: `false` when the writes are read from the arrays, not
    ///   committed (see ``holdsOnlyWriteApart``).
    @inlinable
    init(base: any StorageCore<Key>, baseAccess: CoreAccess<Key>, holdsOnlyWriteApart: Bool = true) {
        self.base = base
        self.baseAccess = baseAccess
        self.holdsOnlyWriteApart = holdsOnlyWriteApart
    }

    /// The position of `key` in `writes`, if written.
    @inlinable
    func position(of key: Key) -> Int? {
        if writtenKeys.count > Self.indexThreshold { return index[key] }
        return writtenKeys.firstIndex(of: key)
    }

    /// Whether the caller reads and writes the committed state: after the commit, or from a thread
    /// other than the owner's (see the type's discussion). The owner is checked first: another thread
    /// never reads the fields the owner changes.
    @inlinable
    var readsCommittedState: Bool {
        owner != ThreadID.current.word || isCommitted
    }

    /// A handler's reads are not a view's: they record no observation. After the commit, a kept
    /// state reads as a view of the store would.
    @inlinable
    func value(for key: Key, observing: Bool) -> Any? {
        guard !readsCommittedState else { return baseAccess.read(key, observing) }
        if onlyKey == key { return onlyValue }
        if let position = position(of: key) { return writtenValues[position] }
        return baseAccess.read(key, false)
    }

    /// Before the commit, a handler's read, which records nothing.
    @inlinable
    func value(for key: Key, observingThrough subject: inout KeyObservation?) -> Any? {
        guard !readsCommittedState else { return baseAccess.readThrough(key, &subject) }
        return value(for: key, observing: false)
    }

    @inlinable
    func unlink(_ subject: KeyObservation) {
        baseAccess.unlink(subject)
    }

    @inlinable
    func write(_ value: consuming Any?, for key: Key) -> Any? {
        guard !readsCommittedState else { return baseAccess.write(key, consume value) }
        if writtenKeys.isEmpty, holdsOnlyWriteApart {
            if onlyKey == nil { onlyKey = key }
            if onlyKey == key {
                // Swapped, also with the `nil` of a first write, which assigned over would be
                // destroyed through the runtime's value witnesses.
                var replaced = consume value
                swap(&replaced, &onlyValue)
                return replaced
            }
            moveOnlyWriteToArrays()
        }
        guard let position = position(of: key) else {
            writtenKeys.append(key)
            writtenValues.append(consume value)
            if writtenKeys.count > Self.indexThreshold { indexLastWrite() }
            return nil
        }
        var replaced = consume value
        swap(&replaced, &writtenValues[position])
        return replaced
    }

    /// Moves the one write held apart into the arrays, so that they hold every write. Keeps the
    /// arrays' storage: no allocation once they have held a write. Inlinable, to run specialized for
    /// the key type, with no generic metadata looked up.
    @inlinable
    func moveOnlyWriteToArrays() {
        guard let only = onlyKey.take() else { return }
        writtenKeys.append(only)
        writtenValues.append(onlyValue.take())
    }

    @usableFromInline
    func indexLastWrite() {
        if index.isEmpty {
            for (position, key) in writtenKeys.enumerated() { index[key] = position }
        } else {
            index[writtenKeys[writtenKeys.count - 1]] = writtenKeys.count - 1
        }
    }

    @usableFromInline
    func writeAll(_ keys: [Key], _ values: inout [Any?]) {
        for index in keys.indices { values[index] = write(values[index], for: keys[index]) }
    }

    @usableFromInline
    func update(_ key: Key, _ body: (inout Any?) -> Void) {
        guard !readsCommittedState else { return base.update(key, body) }
        var value = value(for: key, observing: false)
        body(&value)
        _ = write(value, for: key)
    }

    @usableFromInline
    func allValues(observing: Bool) -> [Key: Any] {
        var values = base.allValues(observing: observing)
        guard !readsCommittedState else { return values }
        if let onlyKey { values[onlyKey] = onlyValue }
        for (key, value) in zip(writtenKeys, writtenValues) { values[key] = value }
        return values
    }

    @usableFromInline
    func subscribe(_ subscriber: Subscriber<Key>) -> Subscription {
        base.subscribe(subscriber)
    }

    @usableFromInline
    func noteScoped() {
        isScoped = true
    }

    /// Applies every write to the base, atomically, and closes the transaction.
    ///
    /// The values the writes replaced are released here, after the base released its lock.
    ///
    /// - Parameters:
    ///   - recordingChanges: Whether to return each written key's value before and after; a plain
    ///     action with no debug log and no test store needs none, so allocates none.
    ///   - buffer: An empty array whose storage the changes reuse: a test store's, which records the
    ///     changes of every action, so that recording them allocates nothing once the buffer has held
    ///     a change.
    @inlinable
    func commit(recordingChanges: Bool, reusing buffer: consuming [StateChange<Key>] = []) -> [StateChange<Key>] {
        isCommitted = true
        if let key = onlyKey.take() {
            var changes = consume buffer
            guard recordingChanges else {
                dropReplacedValue(baseAccess.write(key, onlyValue.take()))  // released here, unlocked
                return changes
            }
            let value = onlyValue.take()
            let after = value
            let before = baseAccess.write(key, consume value)
            changes.append(StateChange(key: key, before: consume before, after: consume after))
            return changes
        }
        guard !writtenKeys.isEmpty else { return buffer }
        if !index.isEmpty { index.removeAll(keepingCapacity: true) }
        // The changes take the written values first, so that `writtenValues` stays unshared and
        // `writeAll` swaps the replaced values into it without copying it.
        var changes = consume buffer
        if recordingChanges {
            changes.reserveCapacity(writtenKeys.count)
            for index in writtenKeys.indices {
                changes.append(StateChange(key: writtenKeys[index], before: nil, after: writtenValues[index]))
            }
        }
        baseAccess.writeAll(writtenKeys, &writtenValues)
        for index in changes.indices { swap(&changes[index].before, &writtenValues[index]) }
        // Releases each replaced value and keeps the arrays' storage for the next action.
        writtenValues.removeAll(keepingCapacity: true)
        writtenKeys.removeAll(keepingCapacity: true)
        return changes
    }

    /// Drops every write without applying it (the handler replaced the whole state instead).
    @usableFromInline
    func discard() {
        isCommitted = true
        onlyKey = nil
        onlyValue = nil
        writtenKeys.removeAll()
        writtenValues.removeAll()
        index.removeAll()
    }

    /// Opens the transaction again for the next action, keeping its storage. Only for a transaction
    /// that nothing outside its store holds (`isKnownUniquelyReferenced`).
    @inlinable
    func reopen() {
        isCommitted = false
        owner = ThreadID.current.word
    }
}

/// One key's value before and after an action; `nil` means absent.
@usableFromInline
package struct StateChange<Key: Hashable>: @unchecked Sendable {
    @usableFromInline package let key: Key
    @usableFromInline package var before: Any?
    @usableFromInline package let after: Any?

    @inlinable
    package init(key: Key, before: Any?, after: Any?) {
        self.key = key
        self.before = before
        self.after = after
    }
}
