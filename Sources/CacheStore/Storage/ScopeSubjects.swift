/// A scope's subjects of the keys read through it (see ``LinkedKeyObservation``), by scoped key.
///
/// The first is held inline: most scopes, a row's among them, observe one key, and so make no
/// dictionary. Not synchronized: its ``ScopedCore`` guards it.
///
/// The fields whose size does not depend on `Key` come first: a scope's `deinit` runs unspecialized,
/// and reads them at fixed offsets, with no lookup of the struct's generic metadata.
@usableFromInline
struct ScopeSubjects<Key: Hashable> {
    @usableFromInline var first: KeyObservation?
    @usableFromInline var more: [Key: KeyObservation] = [:]
    /// Subjects that a newer one replaced (two threads' first reads of a key at once, or a
    /// transformation that maps the key elsewhere now): they stay linked, as an observer may have
    /// registered on them, until the scope is released.
    @usableFromInline var replaced: [KeyObservation] = []
    @usableFromInline var firstKey: Key?

    @inlinable init() {}

    /// The subject of `key`, if it was read observed.
    @inlinable
    func subject(for key: Key) -> KeyObservation? {
        if let firstKey, firstKey == key { return first }
        return more.isEmpty ? nil : more[key]
    }

    /// Makes `subject` the subject of `key`.
    @inlinable
    mutating func add(_ subject: KeyObservation, for key: Key) {
        if let first {
            if firstKey == key {
                replaced.append(first)
                self.first = subject
            } else if let old = more.updateValue(subject, forKey: key) {
                replaced.append(old)
            }
        } else {
            firstKey = key
            first = subject
        }
    }

    /// Calls `body` with every subject but ``first``. Called with no lock held.
    @usableFromInline
    func forEachAfterFirst(_ body: (KeyObservation) -> Void) {
        for subject in more.values { body(subject) }
        for subject in replaced { body(subject) }
    }
}

/// Subjects are found and added under a lock, and read without one only by their scope's `deinit`.
@available(*, unavailable)
extension ScopeSubjects: Sendable {}
