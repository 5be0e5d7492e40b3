/// Which of a store's persisted keys were written since the last save: marked by every write, under
/// the key space's lock, and taken by the save (``RootCore/takePersistedWrites()``).
@usableFromInline
final class PersistedWrites<Key: Hashable>: @unchecked Sendable {
    /// Each persisted key, and whether it was written since the last save. Guarded by the key
    /// space's lock, as is every `var` here.
    @exclusivity(unchecked) @usableFromInline var isWritten: [Key: Bool]
    /// Whether a save is scheduled: a write schedules one only when none is.
    @exclusivity(unchecked) @usableFromInline var isSaveScheduled = false
    /// The key whose update's action is being handled, in the store's turn: its writes are not
    /// marked, as the update saved its value; ``isKeyOfUpdateWritten`` notes them.
    @exclusivity(unchecked) @usableFromInline var keyOfUpdate: Key?
    /// Whether the action of the update of ``keyOfUpdate`` wrote it.
    @exclusivity(unchecked) @usableFromInline var isKeyOfUpdateWritten = false
    /// Schedules a save on the persister's queue; called under the key space's lock.
    @usableFromInline let scheduleSave: () -> Void

    init(keys: some Sequence<Key>, scheduleSave: @escaping () -> Void) {
        isWritten = Dictionary(uniqueKeysWithValues: keys.map { ($0, false) })
        self.scheduleSave = scheduleSave
    }
}
