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
    /// The parent handler's state while an action runs, not retained: the lifted handler's caller
    /// holds it (it is the handler's `inout` state) from ``attach(to:)`` until ``detach()``, and a
    /// view that escaped its action holds it in ``keptParent``. Retained, it cost two retains and two
    /// releases per action, all atomic, here and in ``write(_:for:)`` (callgrind, `lifted-handle` at
    /// 1,000 keys: 1,422 → 1,390 instructions, 3 → 1 retains, 7 → 4 releases).
    @exclusivity(unchecked) @usableFromInline var parent: Unmanaged<CacheStore<ParentKey>>?
    /// The parent's state, retained, once the view may be used after its action (``keepParent()``):
    /// written once, after the action, and never read, so no reader races with it.
    @exclusivity(unchecked) @usableFromInline var keptParent: CacheStore<ParentKey>?
    /// Whether a scope was made over the view: it may then be used after its action.
    @exclusivity(unchecked) @usableFromInline var isScoped = false

    @inlinable
    init(toParent: @escaping @Sendable (Key?) -> ParentKey?, fromParent: @escaping @Sendable (ParentKey?) -> Key?) {
        self.toParent = toParent
        self.fromParent = fromParent
    }

    /// Points the view at `state`, the parent handler's state for the action about to run, which the
    /// caller keeps alive until ``detach()`` or ``keepParent()``.
    @inlinable
    func attach(to state: CacheStore<ParentKey>) {
        parent = Unmanaged.passUnretained(state)
    }

    /// Lets go of the parent's state after the action.
    @inlinable
    func detach() {
        parent = nil
    }

    /// Keeps the parent's state alive for a view that may be used after its action; it stays
    /// attached for good.
    @usableFromInline
    func keepParent() {
        keptParent = parent?.takeUnretainedValue()
    }

    /// `body` on the parent's state, `nil` when the view is detached; the state is not retained for
    /// the call, as the action's caller or ``keptParent`` holds it.
    @inlinable
    func withParent<Result>(_ body: (CacheStore<ParentKey>) -> Result) -> Result? {
        guard let parent else { return nil }
        return parent._withUnsafeGuaranteedRef(body)
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
        return parent._withUnsafeGuaranteedRef { parent in parent.access.read(parentKey, observing) }
    }

    @inlinable
    func write(_ value: consuming Any?, for key: Key) -> Any? {
        guard let parentKey = parentKey(for: key), let parent else { return nil }
        // Moved into the closure through a `var` (a captured value is copied), which is then empty:
        // ended by a consuming switch, not destroyed through `Optional`'s value witness.
        var moved = consume value
        let replaced = parent._withUnsafeGuaranteedRef { parent in parent.access.write(parentKey, moved.take()) }
        switch consume moved {
        case .some(let value): _ = value
        case .none: break
        }
        return replaced
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
        guard let parentKey = parentKey(for: key), let parent = parent?.takeUnretainedValue() else {
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
        guard let parent = parent?.takeUnretainedValue() else { return Subscription {} }
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
