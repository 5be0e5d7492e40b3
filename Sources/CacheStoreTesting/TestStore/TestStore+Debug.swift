import CacheStore

extension TestStore {
    /// This test store, printing each action it handles and the state change it made, as
    /// ``/CacheStore/Store/debug`` does for a store.
    ///
    /// ```swift
    /// let store = TestStore(initialValues: [.count: 0], actionHandler: handler, dependency: ()).debug
    /// store.send(.increment) { $0.set(value: 1, forKey: .count) }
    /// // [CacheStore] Action: .increment
    /// //   ~ .count: 0 → 1
    /// ```
    public var debug: Self {
        _ = store.debug
        return self
    }

    /// This test store, sending each action's report (see ``debug``) to `output` instead of standard
    /// output.
    ///
    /// - Parameter output: Receives each report, as one string of one or more lines.
    /// - Returns: This test store.
    @discardableResult
    public func debug(_ output: @escaping @Sendable (String) -> Void) -> Self {
        store.debug(output)
        return self
    }
}
