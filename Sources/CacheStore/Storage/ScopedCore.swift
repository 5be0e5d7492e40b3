/// A scope: a key space whose keys map onto its parent's, plus keys that live in the scope only.
///
/// Nothing is copied: every read and write of a mapped key goes to the parent, which is what makes a
/// scope a live view both ways.
///
/// ## The visibility rule
///
/// A scoped key `s` is *mapped* to parent key `p` exactly when `to(s) == p` and `from(p) == s`. A
/// mapped key reads and writes `p`; every other scoped key lives in the scope's own storage, seeded
/// from its default cache. Every path — reads, writes, `allValues`, `changes` — applies this one rule,
/// so they agree whatever the transformation does (one that is not injective, or whose two halves
/// are not inverses, only makes fewer keys mapped).
///
/// The transformations are called with no lock held.
@usableFromInline
final class ScopedCore<Key: Hashable & SendableMetatype, ParentKey: Hashable & SendableMetatype>: StorageCore,
    @unchecked Sendable
{
    /// The transformation's halves, as the user wrote them (taking optionals): called directly, so a
    /// mapping costs one closure call.
    @usableFromInline let toParent: (Key?) -> ParentKey?
    @usableFromInline let fromParent: (ParentKey?) -> Key?
    /// The subjects that this scope's observed reads of mapped keys are recorded on, linked into the
    /// slots of the keys they read and unlinked when the scope is released, so that its observers go
    /// with it. Guarded by ``scopeSubjectsLock``.
    @usableFromInline var subjects = ScopeSubjects<Key>()
    /// The parent's core, with its hot operations.
    @usableFromInline let parentAccess: CoreAccess<ParentKey>
    /// Values of keys that are not mapped, when the scope's default cache seeds some: made with the
    /// scope. Else see ``local``.
    @usableFromInline let seededLocal: RootCore<Key>?
    /// Values of keys that are not mapped, in a scope without seeded ones: made on first use, as most
    /// scopes (a row's among them) never use a key that is not mapped. Guarded by
    /// ``scopeLocalCreationLock``.
    @usableFromInline var madeLocal: RootCore<Key>?
    /// Defaults for mapped keys, read while the parent has no value (never written to the parent).
    @usableFromInline let fallbacks: [Key: Any]

    @inlinable
    init(
        parentAccess: CoreAccess<ParentKey>,
        toParent: @escaping (Key?) -> ParentKey?,
        fromParent: @escaping (ParentKey?) -> Key?,
        defaultCache: [Key: Any]
    ) {
        self.parentAccess = parentAccess
        self.toParent = toParent
        self.fromParent = fromParent
        guard !defaultCache.isEmpty else {
            // Most scopes, a row's among them, seed nothing: no dictionaries to build.
            (seededLocal, self.fallbacks) = (nil, Dictionary())
            return
        }
        var localValues: [Key: Any] = [:]
        var fallbacks: [Key: Any] = [:]
        for (key, value) in defaultCache {
            guard let value = flattenedOptional(value) else { continue }
            if mappedParentKey(of: key, to: self.toParent, from: self.fromParent) == nil {
                localValues[key] = value
            } else {
                fallbacks[key] = value
            }
        }
        self.seededLocal = localValues.isEmpty ? nil : RootCore(values: localValues)
        self.fallbacks = fallbacks
    }

    /// Nothing else holds the scope now: its subjects need no lock to be read. They are all linked
    /// through the parent: reads of this scope's own keys are recorded by ``local``.
    ///
    /// A `deinit` runs unspecialized, so it touches no more than it must: the first subject is taken
    /// out in place, not copied, and unlinked through the parent's unlink function, not through
    /// ``CoreAccess/unlink(_:)``, which copies the whole table; the others are read only when there
    /// are some.
    deinit {
        if let first = subjects.first.take() { parentAccess.unlinkFunction(first) }
        if subjects.hasMore { subjects.forEachAfterFirst(parentAccess.unlink) }
    }

    /// The parent's core.
    @inlinable var parent: any StorageCore<ParentKey> { parentAccess.core }

    /// The values of keys that are not mapped: the seeded ones, or those made on first use.
    ///
    /// Made lazily: a scope that uses only mapped keys (a row's) makes no core and no lock of its own.
    @inlinable
    var local: RootCore<Key> {
        if let seededLocal { return seededLocal }
        scopeLocalCreationLock.lock()
        defer { scopeLocalCreationLock.unlock() }
        if let madeLocal { return madeLocal }
        let made = RootCore<Key>(values: [:])
        madeLocal = made
        return made
    }

    /// The parent key that `key` is mapped to, or `nil` when it lives in the scope (see the rule above).
    @inlinable
    func parentKey(for key: Key) -> ParentKey? {
        mappedParentKey(of: key, to: toParent, from: fromParent)
    }

    /// The scoped key under which `parentKey` is visible, if it is.
    @usableFromInline
    func visibleKey(for parentKey: ParentKey) -> Key? {
        visibleScopedKey(of: parentKey, to: toParent, from: fromParent)
    }

    // The parent's value is tested for `nil`, not unwrapped, so that it is returned as it is.

    @inlinable
    func value(for key: Key, observing: Bool) -> Any? {
        guard let parentKey = parentKey(for: key) else { return local.value(for: key, observing: observing) }
        let value = observing ? observedValue(of: parentKey, for: key) : parentAccess.read(parentKey, false)
        if value == nil, !fallbacks.isEmpty { return fallbacks[key] }
        return value
    }

    /// The value of `parentKey`, the read recorded on this scope's subject of `key`, made and linked on
    /// the key's first observed read.
    @inlinable
    func observedValue(of parentKey: ParentKey, for key: Key) -> Any? {
        scopeSubjectsLock.lock()
        var subject = subjects.candidate(for: key)
        let sweeps = subjects.sweeps
        scopeSubjectsLock.unlock()
        // The offered subject is known by its identity only, not by a second reference to it.
        let offered = subject.map(ObjectIdentifier.init)
        let value = parentAccess.readThrough(parentKey, &subject)
        if let made = subject.take() {
            let isNew = ObjectIdentifier(made) != offered
            scopeSubjectsLock.lock()
            // A sweep meanwhile may have forgotten the subject this read linked again: kept again.
            if isNew || (subjects.sweeps != sweeps && subjects.candidate(for: key) !== made) {
                subjects.add(made, for: key)
            }
            let needsSweep = subjects.needsSweep
            scopeSubjectsLock.unlock()
            if needsSweep { sweepSubjects() }
        }
        return value
    }

    /// Forgets the subjects that the cores storing their keys have unlinked (their keys' slots were
    /// emptied and dropped): see ``ScopeSubjects``. With no lock held.
    @usableFromInline
    func sweepSubjects() {
        let candidates = scopeSubjectsLock.withLock { subjects.allAfterFirst }
        let unlinked = Set(candidates.lazy.filter { !self.isLinked($0) }.map(ObjectIdentifier.init))
        let forgotten = scopeSubjectsLock.withLock { subjects.forget(unlinked) }
        withExtendedLifetime(forgotten) {}  // released here, unlocked
    }

    @usableFromInline
    func isLinked(_ subject: KeyObservation) -> Bool {
        let local =
            seededLocal
            ?? {
                scopeLocalCreationLock.lock()
                defer { scopeLocalCreationLock.unlock() }
                return madeLocal
            }()
        if let local, subject.host == Unmanaged.passUnretained(local).toOpaque() { return local.isLinked(subject) }
        return parent.isLinked(subject)
    }

    /// A subject of a scope of this scope: linked into this scope's own keys, or through its parent.
    @usableFromInline
    func unlink(_ subject: KeyObservation) {
        let local =
            seededLocal
            ?? {
                scopeLocalCreationLock.lock()
                defer { scopeLocalCreationLock.unlock() }
                return madeLocal
            }()
        if let local, subject.host == Unmanaged.passUnretained(local).toOpaque() { return local.unlink(subject) }
        parentAccess.unlink(subject)
    }

    /// A read through a scope of this scope: its subject is linked where the key is stored.
    @inlinable
    func value(for key: Key, observingThrough subject: inout KeyObservation?) -> Any? {
        guard let parentKey = parentKey(for: key) else { return local.value(for: key, observingThrough: &subject) }
        let value = parentAccess.readThrough(parentKey, &subject)
        if value == nil, !fallbacks.isEmpty { return fallbacks[key] }
        return value
    }

    @inlinable
    func write(_ value: consuming Any?, for key: Key) -> Any? {
        guard let parentKey = parentKey(for: key) else { return local.write(consume value, for: key) }
        let previous = parentAccess.write(parentKey, consume value)
        if previous == nil, !fallbacks.isEmpty { return fallbacks[key] }
        return previous
    }

    @inlinable
    func writeAll(_ keys: [Key], _ values: inout [Any?]) {
        var parentKeys: [ParentKey] = []
        var parentValues: [Any?] = []
        var parentPositions: [Int] = []
        var localKeys: [Key] = []
        var localValues: [Any?] = []
        var localPositions: [Int] = []
        for (position, key) in keys.enumerated() {
            if let parentKey = parentKey(for: key) {
                parentKeys.append(parentKey)
                parentValues.append(values[position])
                parentPositions.append(position)
            } else {
                localKeys.append(key)
                localValues.append(values[position])
                localPositions.append(position)
            }
        }
        // Told together: an observer of one key sees the other written (see `PublicationBatch`).
        PublicationBatch.run {
            parentAccess.writeAll(parentKeys, &parentValues)
            local.writeAll(localKeys, &localValues)
        }
        for (position, replaced) in zip(parentPositions, parentValues) {
            values[position] = replaced ?? (fallbacks.isEmpty ? nil : fallbacks[keys[position]])
        }
        for (position, replaced) in zip(localPositions, localValues) { values[position] = replaced }
    }

    @usableFromInline
    func update(_ key: Key, _ body: (inout Any?) -> Void) {
        guard let parentKey = parentKey(for: key) else { return local.update(key, body) }
        parent.update(parentKey) { value in
            if value == nil, !fallbacks.isEmpty { value = fallbacks[key] }
            body(&value)
        }
    }

    @usableFromInline
    func noteScoped() {
        parent.noteScoped()
    }

    @usableFromInline
    func allValues(observing: Bool) -> [Key: Any] {
        var result = fallbacks
        for (parentKey, value) in parent.allValues(observing: observing) {
            guard let key = visibleKey(for: parentKey) else { continue }
            result[key] = value
        }
        result.merge(local.allValues(observing: observing)) { _, localValue in localValue }
        return result
    }

    @usableFromInline
    func subscribe(_ subscriber: Subscriber<Key>) -> Subscription {
        // One write of both cores is one change (see `PublicationBatch`).
        let gathered = GatheredKeys(subscriber)
        let throughParent = Subscriber<ParentKey>(
            onChange: { [weak self] parentKeys in
                guard let self else { return }
                let keys = Set(parentKeys.compactMap(self.visibleKey(for:)))
                if !keys.isEmpty { gathered.deliver(keys) }
            },
            onEnd: gathered.end)
        let own = Subscriber<Key>(onChange: gathered.deliver, onEnd: gathered.end)
        return Subscription(combining: [parent.subscribe(throughParent), local.subscribe(own)])
    }
}

/// Guards every scope's ``ScopedCore/subjects``: held only to find or add one subject.
@usableFromInline let scopeSubjectsLock = Lock()

/// Guards the creation of every scope's ``ScopedCore/madeLocal``: held only to read or set that one
/// reference, which happens only for keys that are not mapped, in scopes without seeded ones.
@usableFromInline let scopeLocalCreationLock = Lock()
