/// A scope: a key space whose keys map onto its parent's, plus keys that live in the scope only.
///
/// Nothing is copied: every read and write of a mapped key goes to the parent (so to the root's
/// storage), which is what makes a scope a live view both ways.
///
/// A scoped key `s` is stored at parent key `toParent(s)`, or in the scope's own storage when that
/// is `nil`. A parent key `p` is visible in the scope as `fromParent(p)`; when several parent keys map
/// to the same scoped key, only the one that `toParent` names back is visible, so a scoped key always
/// shows exactly one parent value.
@usableFromInline
final class ScopedNode<Key: Hashable & SendableMetatype, ParentKey: Hashable & SendableMetatype>: StorageNode<Key>,
    @unchecked Sendable
{
    private let parent: StorageNode<ParentKey>
    private let toParent: (Key) -> ParentKey?
    private let fromParent: (ParentKey) -> Key?
    /// Values of keys that map to no parent key, seeded from the scope's default cache.
    private let local: KeyedValues<Key>
    /// Defaults for mapped keys, read when the parent has no value (never written to the parent).
    private let fallbacks: [Key: Any]

    @inlinable
    convenience init(
        parent: StorageNode<ParentKey>,
        toParent: @escaping (Key) -> ParentKey?,
        fromParent: @escaping (ParentKey) -> Key?,
        defaultCache: [Key: Any]
    ) {
        var localValues: [Key: Any] = [:]
        var fallbacks: [Key: Any] = [:]
        for (key, value) in defaultCache {
            guard let value = flattenedOptional(value) else { continue }
            if toParent(key) == nil { localValues[key] = value } else { fallbacks[key] = value }
        }
        let local = KeyedValues(lock: parent.lock, values: localValues)
        let readParent = parent.valueLocked
        let peekParent = parent.peekLocked
        let writeParent = parent.writeLocked
        self.init(
            parent: parent, toParent: toParent, fromParent: fromParent, local: local, fallbacks: fallbacks,
            valueLocked: { key in
                guard let parentKey = toParent(key) else { return local.valueLocked(key) }
                guard let value = readParent(parentKey) else { return fallbacks.isEmpty ? nil : fallbacks[key] }
                return value
            },
            peekLocked: { key in
                guard let parentKey = toParent(key) else { return local.peekLocked(key) }
                guard let value = peekParent(parentKey) else { return fallbacks.isEmpty ? nil : fallbacks[key] }
                return value
            },
            writeLocked: { key, value, batch in
                guard let parentKey = toParent(key) else { return local.writeLocked(value, for: key, into: &batch) }
                guard let previous = writeParent(parentKey, value, &batch) else {
                    return fallbacks.isEmpty ? nil : fallbacks[key]
                }
                return previous
            })
    }

    @usableFromInline
    init(
        parent: StorageNode<ParentKey>,
        toParent: @escaping (Key) -> ParentKey?,
        fromParent: @escaping (ParentKey) -> Key?,
        local: KeyedValues<Key>,
        fallbacks: [Key: Any],
        valueLocked: @escaping (Key) -> Any?,
        peekLocked: @escaping (Key) -> Any?,
        writeLocked: @escaping (Key, Any?, inout ChangeBatch) -> Any?
    ) {
        self.parent = parent
        self.toParent = toParent
        self.fromParent = fromParent
        self.local = local
        self.fallbacks = fallbacks
        super.init(lock: parent.lock, valueLocked: valueLocked, peekLocked: peekLocked, writeLocked: writeLocked)
    }

    override func allValuesLocked() -> [Key: Any] {
        var result = fallbacks
        for (parentKey, value) in parent.allValuesLocked() {
            guard let key = visibleKey(for: parentKey) else { continue }
            result[key] = value
        }
        local.accessAllLocked()
        result.merge(local.valuesLocked) { _, localValue in localValue }
        return result
    }

    override func subscribe(_ subscriber: Subscriber<Key>) -> Subscription {
        let throughParent = Subscriber<ParentKey>(
            onChange: { [weak self] parentKeys in
                guard let self else { return }
                let keys = Set(parentKeys.compactMap(self.visibleKey(for:)))
                if !keys.isEmpty { subscriber.onChange(keys) }
            },
            onEnd: subscriber.onEnd)
        return Subscription(combining: [parent.subscribe(throughParent), local.subscribe(subscriber)])
    }

    /// The scoped key under which `parentKey` is visible, if it is.
    private func visibleKey(for parentKey: ParentKey) -> Key? {
        guard let key = fromParent(parentKey), toParent(key) == parentKey else { return nil }
        return key
    }
}
