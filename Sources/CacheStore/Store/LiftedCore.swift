/// A feature's view of its parent handler's state, for a lifted handler
/// (``StoreActionHandler/scope(label:keyTransformation:actionHandler:extractAction:embedAction:dependencyTransformation:)``).
///
/// Like ``ScopedCore`` it maps the feature's keys onto the parent's by the one visibility rule, but
/// it has no storage of its own (a key that maps to no parent key reads `nil`, and a write to it
/// does nothing), and it is attached to the parent's state for one action at a time: ``attach(to:)``
/// before the feature's handler, ``detach()`` after. So a lifted handler reuses one view from
/// action to action and allocates nothing, and a view kept between actions holds nothing alive.
///
/// ## Threading
///
/// It belongs to the action that runs it, as the parent's transaction does: no lock. A feature that
/// keeps its state or makes a scope of it makes the view escape: the view then stays attached to the
/// parent's state for good (see ``ScopedHandlerRun``).
@usableFromInline
final class LiftedCore<Key: Hashable & SendableMetatype, ParentKey: Hashable & SendableMetatype>: StorageCore,
    @unchecked Sendable
{
    @usableFromInline let toParent: @Sendable (Key?) -> ParentKey?
    @usableFromInline let fromParent: @Sendable (ParentKey?) -> Key?
    /// The parent handler's state, from ``attach(to:)`` until ``detach()``. A view that escaped its
    /// action is never detached: it keeps the parent's state alive, and its `parent` is not written
    /// again, so no reader races with a writer.
    @exclusivity(unchecked) @usableFromInline var parent: CacheStore<ParentKey>?
    /// Whether a scope was made over the view: it may then be used after its action.
    @exclusivity(unchecked) @usableFromInline var isScoped = false

    @inlinable
    init(toParent: @escaping @Sendable (Key?) -> ParentKey?, fromParent: @escaping @Sendable (ParentKey?) -> Key?) {
        self.toParent = toParent
        self.fromParent = fromParent
    }

    /// Points the view at `state`, the parent handler's state for the action about to run.
    @inlinable
    func attach(to state: CacheStore<ParentKey>) {
        parent = state
    }

    /// Lets go of the parent's state after the action.
    @inlinable
    func detach() {
        parent = nil
    }

    /// `body` on the parent's state, `nil` when the view is detached.
    @inlinable
    func withParent<Result>(_ body: (CacheStore<ParentKey>) -> Result) -> Result? {
        guard let parent else { return nil }
        return body(parent)
    }

    /// The parent key that `key` is mapped to: `to(key) == p` and `from(p) == key`.
    @inlinable
    func parentKey(for key: Key) -> ParentKey? {
        mappedParentKey(of: key, to: toParent, from: fromParent)
    }

    /// The key under which `parentKey` is visible, if it is.
    @usableFromInline
    func visibleKey(for parentKey: ParentKey) -> Key? {
        visibleScopedKey(of: parentKey, to: toParent, from: fromParent)
    }

    @inlinable
    func value(for key: Key, observing: Bool) -> Any? {
        guard let parentKey = parentKey(for: key), let parent else { return nil }
        return parent.access.read(parentKey, observing)
    }

    @inlinable
    func write(_ value: consuming Any?, for key: Key) -> Any? {
        guard let parentKey = parentKey(for: key), let parent else { return nil }
        return parent.access.write(parentKey, consume value)
    }

    @usableFromInline
    func writeAll(_ keys: [Key], _ values: inout [Any?]) {
        var parentKeys: [ParentKey] = []
        var parentValues: [Any?] = []
        var positions: [Int] = []
        for (position, key) in keys.enumerated() {
            var value: Any?
            swap(&value, &values[position])
            guard let parentKey = parentKey(for: key) else { continue }
            parentKeys.append(parentKey)
            parentValues.append(consume value)
            positions.append(position)
        }
        withParent { parent in parent.access.writeAll(parentKeys, &parentValues) }
        for (position, replaced) in zip(positions, parentValues) { values[position] = replaced }
    }

    @usableFromInline
    func update(_ key: Key, _ body: (inout Any?) -> Void) {
        guard let parentKey = parentKey(for: key), let parent else {
            var ignored: Any?
            return body(&ignored)
        }
        parent.core.update(parentKey, body)
    }

    @usableFromInline
    func allValues(observing: Bool) -> [Key: Any] {
        var result: [Key: Any] = [:]
        let parentValues = withParent { parent in parent.core.allValues(observing: observing) }
        for (parentKey, value) in parentValues ?? [:] {
            guard let key = visibleKey(for: parentKey) else { continue }
            result[key] = value
        }
        return result
    }

    @usableFromInline
    func subscribe(_ subscriber: Subscriber<Key>) -> Subscription {
        guard let parent else { return Subscription {} }
        // The key mapping is captured, not the view: a feature's `changes` made during its action
        // yields the parent's later changes for as long as the parent's storage lives, and ends with
        // it, as a plain handler's state's `changes` does, whether or not the view is kept.
        let (toParent, fromParent) = (self.toParent, self.fromParent)
        return parent.core.subscribe(
            Subscriber<ParentKey>(
                onChange: { parentKeys in
                    let keys = Set(parentKeys.compactMap { visibleScopedKey(of: $0, to: toParent, from: fromParent) })
                    if !keys.isEmpty { subscriber.onChange(keys) }
                },
                onEnd: subscriber.onEnd))
    }

    @usableFromInline
    func noteScoped() {
        isScoped = true
        withParent { parent in parent.core.noteScoped() }
    }
}
