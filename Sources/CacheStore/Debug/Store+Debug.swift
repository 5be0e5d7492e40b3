extension Store {
    /// This store, printing each action and the state change it made to standard output.
    ///
    /// ```swift
    /// let store = Store(initialValues: [:], actionHandler: handler, dependency: .live).debug
    /// store.handle(action: .fetchPosts)
    /// // [CacheStore] Action: .fetchPosts
    /// //   + .isLoading: true
    /// ```
    ///
    /// Each report names the action, then one entry per key written: `+` added (with its value), `-`
    /// removed (with the value it had), `~` changed (before and after, as a line diff when a value
    /// spans several lines); or `(no state change)`. Only the keys written are rendered, so debugging a
    /// large store stays cheap.
    public var debug: Self {
        debug { text in print(text) }
    }

    /// This store, sending each action's report (see ``debug``) to `output` instead of standard output.
    ///
    /// ```swift
    /// let store = Store(initialValues: [:], actionHandler: handler, dependency: .live)
    ///     .debug { report in logger.debug("\(report)") }
    /// ```
    ///
    /// - Parameter output: Receives each report, as one string of one or more lines.
    /// - Returns: This store.
    @discardableResult
    public func debug(_ output: @escaping @Sendable (String) -> Void) -> Self {
        engine.queue.performAndWait { [engine] in engine.debugOutput = output }
        return self
    }
}
