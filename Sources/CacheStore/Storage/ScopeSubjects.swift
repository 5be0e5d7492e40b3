/// A scope's subjects of the keys read through it (see ``LinkedKeyObservation``).
///
/// The first is held inline, under no key: most scopes, a row's among them, observe one key, and so
/// make no dictionary. Which key a subject belongs to is settled where it is linked: a read passes
/// its candidate (``candidate(for:)``) down to the ``RootCore`` storing the key, which takes it only
/// if it is linked to that very key there, and else links a new one. So a scope that reads a second
/// key offers the first key's subject once, has it refused, and keeps the second key's subject by key.
///
/// A subject is unlinked by the core that stores its key when the key's slot is emptied and dropped
/// (see ``RootCore``); whenever the subjects kept here have doubled since the last sweep (and number
/// 64 or more), the scope forgets those unlinked (``ScopedCore/sweepSubjects()``), so a long-lived
/// scope that observes ever-new keys keeps memory for the keys its observers read now, not for every
/// key it ever read.
///
/// No field's layout depends on `Key` (the first key is not kept): a scope's `deinit` runs
/// unspecialized. Not synchronized: its ``ScopedCore`` guards it.
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
    /// How many subjects besides ``first`` there may be before the next sweep.
    @usableFromInline var sweepAt: Int
    /// How many sweeps forgot subjects: a read that offered a subject before a sweep keeps it again.
    @usableFromInline var sweeps: UInt

    /// No subjects. The fields are set here, not by initial values: a property's initial value is a
    /// function of its own, which a scope's init called unspecialized.
    @inlinable
    init() {
        (first, more, replaced, hasMore, sweepAt, sweeps) = (nil, Dictionary(), [], false, 64, 0)
    }

    /// Whether the subjects besides ``first`` have grown enough to sweep.
    @inlinable
    var needsSweep: Bool {
        hasMore && more.count + replaced.count >= sweepAt
    }

    /// Every subject besides ``first``.
    @usableFromInline
    var allAfterFirst: [KeyObservation] {
        Array(more.values) + replaced
    }

    /// Forgets the subjects in `unlinked`; returns them, to be released with no lock held.
    @usableFromInline
    mutating func forget(_ unlinked: Set<ObjectIdentifier>) -> [KeyObservation] {
        var forgotten: [KeyObservation] = []
        for (key, subject) in more where unlinked.contains(ObjectIdentifier(subject)) {
            forgotten.append(more.removeValue(forKey: key)!)
        }
        replaced.removeAll { subject in
            guard unlinked.contains(ObjectIdentifier(subject)) else { return false }
            forgotten.append(subject)
            return true
        }
        sweeps &+= 1
        sweepAt = Swift.max(64, 2 * (more.count + replaced.count))
        return forgotten
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
