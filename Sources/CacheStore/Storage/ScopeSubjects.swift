/// A scope's subjects of the keys read through it (see ``LinkedKeyObservation``).
///
/// The first is held inline, under no key: most scopes, a row's among them, observe one key, and so
/// make no dictionary. Which key a subject belongs to is settled where it is linked: a read passes
/// its candidate (``candidate(for:)``) down to the ``RootCore`` storing the key, which takes it only
/// if it is linked to that very key there, and else links a new one. So a scope that reads a second
/// key offers the first key's subject once, has it refused, and keeps the second key's subject by key.
///
/// No field's layout depends on `Key` (the first key is not kept): a scope's `deinit` runs
/// unspecialized, and destroying a `Key?` looked the struct's generic metadata up at run time
/// (callgrind, `scope-create`: about 330 instructions per row). Not synchronized: its ``ScopedCore``
/// guards it.
@usableFromInline
struct ScopeSubjects<Key: Hashable> {
    @usableFromInline var first: KeyObservation?
    /// The subjects of keys read after the first one's subject was made, by key.
    @usableFromInline var more: [Key: KeyObservation]
    /// Subjects that a newer one replaced (two threads' first reads of a key at once, or a
    /// transformation that maps the key elsewhere now): they stay linked, as an observer may have
    /// registered on them, until the scope is released.
    @usableFromInline var replaced: [KeyObservation]
    /// Whether there are subjects besides ``first``, in ``more`` or ``replaced``: a flag, as a scope's
    /// unspecialized `deinit` tested `more.isEmpty` through a call to the generic `Dictionary` code.
    @usableFromInline var hasMore: Bool

    /// No subjects. The fields are set here, not by initial values: a property's initial value is a
    /// function of its own, which a scope's init called unspecialized.
    @inlinable
    init() {
        (first, more, replaced, hasMore) = (nil, Dictionary(), [], false)
    }

    /// The subject to offer for a read of `key`: its subject by key, or else the first, which is the
    /// subject of `key` if it is linked to it (the core storing the key checks that).
    @inlinable
    func candidate(for key: Key) -> KeyObservation? {
        if more.isEmpty { return first }
        return more[key] ?? first
    }

    /// Keeps `subject`, which was linked for a read of `key` in place of `candidate`.
    @inlinable
    mutating func add(_ subject: consuming KeyObservation, for key: Key) {
        if first == nil {
            first = subject
            return
        }
        hasMore = true
        if let old = more.updateValue(subject, forKey: key) { replaced.append(old) }
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
