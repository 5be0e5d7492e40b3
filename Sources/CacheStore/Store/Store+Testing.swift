/// What an expectation closure would do to a store's state, recorded without applying it.
package enum ExpectedState<Key: Hashable & SendableMetatype> {
    /// The closure wrote these keys (`nil`: removed).
    case writes([Key: Any?])
    /// The closure assigned a whole new cache holding these values.
    case replaced([Key: Any])
}

extension Store {
    /// Handles `action` now, as ``handle(action:)`` does, but returns its effect instead of running it.
    ///
    /// For `TestStore`, which queues effects to run one by one. Actions are not forwarded to a parent.
    package func handleWithoutEffects(_ action: Action) -> (changes: [StateChange<Key>], effect: ActionEffect<Action>?)
    {
        let result = engine.queue.performAndWait { [engine] in
            UncheckedSendable(engine.apply(action, recordingChanges: true))
        }
        return result.value
    }

    /// What `body` would write to the state, without writing it: it runs against a transaction that
    /// is then thrown away.
    package func expectedState(_ body: (inout CacheStore<Key>) throws -> Void) rethrows -> ExpectedState<Key> {
        let transaction = TransactionCore(base: cacheStore.core, baseAccess: cacheStore.access)
        var state = CacheStore(core: transaction)
        try body(&state)
        if state.core !== transaction { return .replaced(state.allValues) }
        return .writes(transaction.pendingWrites())
    }

    /// The value of `key` now, without recording an observation access.
    package func currentValue(_ key: Key) -> Any? {
        cacheStore.access.read(key, false)
    }
}
