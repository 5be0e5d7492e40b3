/// Which of a store's persisted keys were written since the last save: marked by every write, under
/// the key space's lock, and taken by the save (``RootCore/takePersistedWrites()``). Held in the key
/// space, not referenced: a write reaches it without retaining anything.
@usableFromInline
struct PersistedWrites<Key: Hashable> {
    /// Each persisted key, and whether it was written since the last save.
    @usableFromInline var isWritten: [Key: Bool]
    /// Whether a save is scheduled: a write schedules one only when none is.
    @usableFromInline var isSaveScheduled = false
    /// The key whose update's action is being handled, in the store's turn: its writes are not
    /// marked, as the update saved its value; ``isKeyOfUpdateWritten`` notes them.
    @usableFromInline var keyOfUpdate: Key?
    /// Whether the action of the update of ``keyOfUpdate`` wrote it.
    @usableFromInline var isKeyOfUpdateWritten = false
    /// How many saves took each key: an update's action whose key a save took after the update
    /// saved it is saved again (the save may have written an older value over the update's).
    var takes: [Key: Int] = [:]
    /// Schedules a save on the persister's queue; called under the key space's lock.
    @usableFromInline let scheduleSave: () -> Void

    init(keys: some Sequence<Key>, scheduleSave: @escaping () -> Void) {
        isWritten = Dictionary(uniqueKeysWithValues: keys.map { ($0, false) })
        self.scheduleSave = scheduleSave
    }

    /// Marks `key`, if persisted, for the next save; returns whether a save is to be scheduled now.
    @inlinable @inline(__always)
    mutating func noteWrite(of key: Key) -> Bool {
        guard let index = isWritten.index(forKey: key) else { return false }
        if _slowPath(keyOfUpdate != nil), keyOfUpdate == key {
            isKeyOfUpdateWritten = true
            return false
        }
        // A key written again before its save is marked already: read, not written.
        if !isWritten.values[index] { isWritten.values[index] = true }
        guard !isSaveScheduled else { return false }
        isSaveScheduled = true
        return true
    }
}

/// Guarded by the key space's lock: never handed to another thread.
@available(*, unavailable)
extension PersistedWrites: Sendable {}
