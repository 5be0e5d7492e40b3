/// One action of a lifted handler (``StoreActionHandler/scope(label:keyTransformation:actionHandler:extractAction:embedAction:dependencyTransformation:)``):
/// the feature's handler on a ``LiftedCore`` view of the parent handler's state.
///
/// The lifted handler keeps one view for the next action (`spare`), detached from any state, so that
/// a plain action allocates nothing, as the store keeps its own handler state. The view is made
/// without telling the parent's state (``StorageCore/noteScoped()``), so the store can reuse that
/// too; it is told only when the feature kept its state (strongly, weakly or unowned) or made a
/// scope of it, exactly as when the parent's own handler does, and such a view is not reused: it
/// stays attached to the parent's state, which it keeps alive.
///
/// `spareInUse` guards `spare`: a run that sets it (0 to 1) takes the spare and may put it back, and
/// clears it when it returns; a run that finds it set (two stores running one handler at once, or a
/// feature handler that handles an action of a store with the same handler) does without. An atomic
/// flag, not a lock: taking the spare is one compare-and-exchange, with no lock round trip.
@usableFromInline
final class ScopedHandlerRun<Key: Hashable & SendableMetatype, ScopedKey: Hashable & SendableMetatype>:
    @unchecked Sendable
{
    @usableFromInline let toParent: @Sendable (ScopedKey?) -> Key?
    @usableFromInline let fromParent: @Sendable (Key?) -> ScopedKey?
    @usableFromInline let spareInUse = AtomicWord(0)
    @exclusivity(unchecked) @usableFromInline var spare:
        (state: CacheStore<ScopedKey>, core: LiftedCore<ScopedKey, Key>)?

    @inlinable
    init(toParent: @escaping @Sendable (ScopedKey?) -> Key?, fromParent: @escaping @Sendable (Key?) -> ScopedKey?) {
        self.toParent = toParent
        self.fromParent = fromParent
    }

    /// Runs `handler` on a view of `state` and returns its effect.
    @inlinable
    func run<Action, Dependency>(
        _ handler: StoreActionHandler<ScopedKey, Action, Dependency>,
        on state: CacheStore<Key>,
        action: Action,
        dependency: Dependency
    ) -> ActionEffect<Action>? {
        // The flag is held for the whole run: the spare is taken and put back with one
        // compare-and-exchange, not two.
        let holdsSpare = spareInUse.compareExchange(expected: 0, desired: 1)
        defer { if holdsSpare { spareInUse.store(0) } }
        var spare = holdsSpare ? self.spare.take() : nil
        // Moved out of `spare`, so that the view's state is uniquely referenced unless the feature keeps it;
        // and out of the tuple by a `let`, so that `core` is not kept retained around the handler's call.
        let (view, core) = spare.take() ?? makeView()
        var scopedState = consume view
        core.attach(to: state)
        let effect = handler.handle(store: &scopedState, action: action, dependency: dependency)
        guard scopedState.core === core else {
            Self.replace(core, with: scopedState.allValues)
            // The view is gone unless the feature kept it: it may then be used after the action.
            state.core.noteScoped()
            return effect
        }
        if isKnownUniquelyReferenced(&scopedState), !hasWeakOrUnownedReferences(scopedState), !core.isScoped {
            core.detach()
            if holdsSpare { self.spare = (consume scopedState, consume core) }
        } else {
            state.core.noteScoped()
        }
        return effect
    }

    @usableFromInline
    func makeView() -> (CacheStore<ScopedKey>, LiftedCore<ScopedKey, Key>) {
        let core = LiftedCore(toParent: toParent, fromParent: fromParent)
        return (CacheStore(core: core), core)
    }

    /// Sets every key visible in `core` to its value in `values`, removing the keys `values` lacks:
    /// what a feature handler that assigned a whole new cache to its state asked for.
    @usableFromInline
    static func replace(_ core: LiftedCore<ScopedKey, Key>, with values: [ScopedKey: Any]) {
        let keys = Array(Set(core.allValues(observing: false).keys).union(values.keys))
        var written = keys.map { key in values[key] }
        core.writeAll(keys, &written)
    }
}
