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
    /// Each report is at most about 64 KB, however large the values: see
    /// ``debug(maxReportLength:_:)`` to raise the cap.
    ///
    /// - Parameter output: Receives each report, as one string of one or more lines.
    /// - Returns: This store.
    @discardableResult
    public func debug(_ output: @escaping @Sendable (String) -> Void) -> Self {
        debug(maxReportLength: StateChangeReport.defaultMaxLength, output)
    }

    /// This store, sending each action's report (see ``debug``) to `output`, cut at about
    /// `maxReportLength` bytes, with a last line that says how much was left out.
    ///
    /// ```swift
    /// let store = Store(initialValues: [:], actionHandler: handler, dependency: .live)
    ///     .debug(maxReportLength: 1_000_000) { report in logger.debug("\(report)") }
    /// ```
    ///
    /// - Parameters:
    ///   - maxReportLength: About the most bytes of one action's report (at least 1,024).
    ///   - output: Receives each report, as one string of one or more lines.
    /// - Returns: This store.
    @discardableResult
    public func debug(maxReportLength: Int, _ output: @escaping @Sendable (String) -> Void) -> Self {
        let debugOutput = DebugOutput(write: output, maxLength: max(maxReportLength, 1_024))
        // In the store's turn, as every action: it applies from the next action handled (called from
        // a handler of this store, or where waiting for the turn could deadlock, after the current one).
        engine.queue.perform { [engine] in engine.debugOutput = debugOutput }
        return self
    }
}
