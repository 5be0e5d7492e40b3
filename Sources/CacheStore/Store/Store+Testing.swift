import Dispatch

/// What an expectation closure would do to a store's state, recorded without applying it.
@usableFromInline
package enum ExpectedState<Key: Hashable & SendableMetatype> {
    /// The closure wrote `keys`, each once, in the order first written, with `values` (`nil`: removed).
    case writes(keys: [Key], values: [Any?])
    /// The closure assigned a whole new cache holding these values.
    case replaced([Key: Any])
}

/// It holds values of any type.
@available(*, unavailable)
extension ExpectedState: Sendable {}

/// Runs a `TestStore`'s expectation closures, each against a transaction over the state whose writes
/// are then thrown away. One transaction, and its storage, serves every expectation while nothing else
/// holds it, as one serves every action of a store (see ``StoreEngine/apply(_:recordingChanges:)``).
///
/// Used only in its store's turn, which guards it.
@usableFromInline
package final class ExpectationRecorder<Key: Hashable & SendableMetatype>: @unchecked Sendable {
    @exclusivity(unchecked) @usableFromInline var spare: (state: CacheStore<Key>, transaction: TransactionCore<Key>)?
    /// The storage of the last action's changes, emptied, for the next action's (see
    /// ``TransactionCore/commit(recordingChanges:reusing:)``).
    @exclusivity(unchecked) @usableFromInline var changeBuffer: [StateChange<Key>] = []

    package init() {}

    /// Runs `body` against the state `engine` holds, and hands what it would write to `use`.
    ///
    /// The engine's state is read only when there is no spare transaction: passed as a value, the
    /// store's state table was copied for every send (six retains and releases).
    ///
    /// - Returns: What `use` returns.
    @inlinable
    func withExpectation<Action, Dependency, Result>(
        over engine: StoreEngine<Key, Action, Dependency>,
        _ body: (inout CacheStore<Key>) throws -> Void,
        _ use: (Swift.Result<ExpectedState<Key>, any Error>) -> Result
    ) -> Result {
        var (expectation, transaction) =
            spare.take()
            ?? {
                let transaction = TransactionCore(
                    base: engine.state.core, baseAccess: engine.state, holdsOnlyWriteApart: false)
                return (CacheStore(core: transaction), transaction)
            }()
        transaction.reopen()
        let expected = Swift.Result {
            try body(&expectation)
            guard expectation.core === transaction else { return ExpectedState.replaced(expectation.allValues) }
            // The writes move out, and back below: copied, each array was retained and released once
            // more per send (callgrind, `teststore-send`: 2,673 → 2,653 instructions).
            var (keys, values): ([Key], [Any?]) = ([], [])
            swap(&keys, &transaction.writtenKeys)
            swap(&values, &transaction.writtenValues)
            return .writes(keys: keys, values: values)
        }
        let result = use(expected)
        // The writes go, their storage stays for the next expectation.
        transaction.isCommitted = true
        if case .success(.writes(var keys, var values)) = consume expected {
            swap(&keys, &transaction.writtenKeys)
            swap(&values, &transaction.writtenValues)
        }
        // One `removeLast` per write, as in `TransactionCore.commit`: `popLast` until `nil` destroyed
        // each value and one `Any??` more through the runtime's value witnesses (callgrind,
        // `teststore-send`: 3,744 → 3,556 instructions per send).
        for _ in transaction.writtenKeys.indices {
            transaction.writtenValues.removeLast()
            transaction.writtenKeys.removeLast()
        }
        if !transaction.index.isEmpty { transaction.index.removeAll(keepingCapacity: true) }
        // Kept unless the closure replaced its state, or something may still hold it (see `apply`).
        if expectation.core === transaction, isKnownUniquelyReferenced(&expectation),
            !hasWeakOrUnownedReferences(expectation), !transaction.isScoped
        {
            spare = (consume expectation, transaction)
        }
        return result
    }
}

extension Store {
    /// Handles `action` now, as ``handle(action:)`` does, but returns its effect instead of running it.
    ///
    /// For `TestStore`, which queues effects to run one by one. A scoped store forwards the action to
    /// its parent as ``handle(action:)`` does (see ``forwardToParent(_:after:)``).
    package func handleWithoutEffects(_ action: Action) -> (changes: [StateChange<Key>], effect: ActionEffect<Action>?)
    {
        inTurn {
            let (changes, effect) = engine.apply(action, recordingChanges: true)
            return (forwardToParent(action, after: changes), effect)
        }
    }

    /// Records what `expectation` would write to the state, handles `action` as
    /// ``handleWithoutEffects(_:)`` does, and hands both to `check`: all in one turn, so no other action
    /// comes between.
    ///
    /// Inlinable, with what it calls, so that a `TestStore.send` specializes for its key and action types.
    ///
    /// - Parameters:
    ///   - check: Compares the expectation's writes (or what it threw) with each key the action wrote,
    ///     with its value before and after. It runs in the turn: it must not call into the store.
    /// - Returns: What `check` returned, and the action's effect, not started.
    @inlinable
    package func handleWithoutEffects<Checked>(
        _ action: Action,
        expecting expectation: (inout CacheStore<Key>) throws -> Void,
        recorder: ExpectationRecorder<Key>,
        check: (Result<ExpectedState<Key>, any Error>, [StateChange<Key>]) -> Checked
    ) -> (checked: Checked, effect: ActionEffect<Action>?) {
        inTurn {
            recorder.withExpectation(over: engine, expectation) { expected in
                var buffer: [StateChange<Key>] = []
                swap(&buffer, &recorder.changeBuffer)
                var (changes, effect) = engine.apply(action, recordingChanges: true, reusing: consume buffer)
                if engine.forwardToParent != nil { changes = forwardToParent(action, after: changes) }
                let checked = check(expected, changes)
                // Releases the values and keeps the storage, one `removeLast` at a time (see
                // `TransactionCore.commit`: `removeAll(keepingCapacity:)` calls a generic `replaceSubrange`).
                for _ in changes.indices { changes.removeLast() }
                recorder.changeBuffer = consume changes
                return (checked, effect)
            }
        }
    }

    /// For a scoped store, hands `action` to the parent store as ``handle(action:)`` does (its
    /// `actionTransformation` decides the parent's action, if any, and the parent handles it and starts
    /// its effects), and adds what that changed in this store's keys to `changes`, the changes of this
    /// store's own handler. In the turn.
    ///
    /// The parent's writes are found by comparing this store's values before and after: O(keys this
    /// store sees), for scoped stores only.
    ///
    /// - Returns: Each key either handler changed, with its value before the action and after both.
    @usableFromInline
    func forwardToParent(_ action: Action, after changes: [StateChange<Key>]) -> [StateChange<Key>] {
        guard let forward = engine.forwardToParent else { return changes }
        let before = engine.state.core.allValues(observing: false)
        forward(action)
        let after = engine.state.core.allValues(observing: false)
        var merged = changes
        var positions = Dictionary(changes.indices.map { (changes[$0].key, $0) }, uniquingKeysWith: { $1 })
        for key in Set(before.keys).union(after.keys) where firstDifference(before[key], after[key]) != nil {
            if let position = positions[key] {
                merged[position] = StateChange(key: key, before: merged[position].before, after: after[key])
            } else {
                positions[key] = merged.count
                merged.append(StateChange(key: key, before: before[key], after: after[key]))
            }
        }
        return merged
    }

    /// Runs `body` in the store tree's turn: at once when no thread is handling the tree, else after
    /// the actions before it.
    @inlinable
    func inTurn<Result>(_ body: () -> Result) -> Result {
        if engine.isolation == .mainActor { return inTurnOnMainActor(body) }
        return engine.queue.inTurn(body)
    }

    /// Runs `body` in the turn on the main queue, for a store that handles its actions on the main
    /// actor: a test store's `send` or `receive` from another thread waits there, so that the
    /// handler runs where the store promises. When the main queue is itself waiting for this thread
    /// (see ``WaitGraph``), waiting would deadlock: `body` then runs here.
    @usableFromInline
    func inTurnOnMainActor<Result>(_ body: () -> Result) -> Result {
        guard !MainQueue.isCurrent else { return engine.queue.inTurn(body) }
        let me = ThreadID.current
        guard WaitGraph.shared.beginWait(me, for: .mainQueue) else { return engine.queue.inTurn(body) }
        defer { WaitGraph.shared.endWait(me) }
        return withoutActuallyEscaping(body) { body in
            let work = UncheckedSendable((engine.queue, body))
            return DispatchQueue.main.sync { UncheckedSendable(work.value.0.inTurn(work.value.1)) }.value
        }
    }

    /// The value of `key` now, without recording an observation access.
    @inlinable
    package func currentValue(_ key: Key) -> Any? {
        engine.read(key, observing: false)
    }
}

extension ActionQueue {
    /// ``Store/inTurn(_:)``'s work, a method of the queue: called as `engine.queue.beginTurn()` from
    /// the store, the queue was retained and released around each of `beginTurn` and `endTurn`, now
    /// once around the turn (callgrind, `teststore-send`: 2,755 → 2,704 instructions per send).
    @inlinable
    func inTurn<Result>(_ body: () -> Result) -> Result {
        if beginTurn() {
            defer { endTurn() }
            return body()
        }
        return afterTurn(body)
    }

    /// Runs `body` in the turn after the actions before it: the path of ``inTurn(_:)`` when the tree
    /// is busy, or when this thread is handling it already (then at once).
    @usableFromInline
    func afterTurn<Result>(_ body: () -> Result) -> Result {
        withoutActuallyEscaping(body) { body in
            performAndWait { UncheckedSendable(body()) }.value
        }
    }
}
