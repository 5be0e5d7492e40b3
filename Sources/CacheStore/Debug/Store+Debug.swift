extension Store {
    /// This store, printing each action of it and of its scoped stores, and the state change each
    /// made, to standard output.
    ///
    /// ```swift
    /// let store = Store(initialValues: [:], actionHandler: handler, dependency: .live).debug
    /// store.handle(action: .fetchPosts)
    /// // [CacheStore] Action: .fetchPosts
    /// //   + .isLoading: true
    /// ```
    ///
    /// Each report names the store and the action, then one entry per key written: `+` added (with
    /// its value), `-` removed (with the value it had), `~` changed (before and after, as a line diff
    /// when a value spans several lines); or `(no state change)`. Only the keys written are rendered,
    /// so debugging a large store stays cheap.
    ///
    /// The log shows the actions of every store scoped from this one too, in the order they are
    /// handled, each under the path of the store that handled it, with its writes named by this
    /// store's keys:
    ///
    /// ```
    /// [CacheStore/filter] Action: .select(2)
    ///   + .selectedUser: 2
    /// [CacheStore] Action: .refresh (forwarded from CacheStore/filter)
    ///   ~ .isLoading: false → true
    /// ```
    ///
    /// A store made with a ``Persistence`` also writes its ``persistenceErrors``, those so far and
    /// then each when it happens, one line each:
    ///
    /// ```
    /// [CacheStore] Persistence error: the key .theme: /…/theme.json is empty; moved to …
    /// ```
    ///
    /// See <doc:DebugOutputAndValueComparison> for the format, and ``debug(label:maxReportLength:_:)``
    /// to name this store in it.
    public var debug: Self {
        debug { text in print(text) }
    }

    /// This store, sending each report (see ``debug``) to `output` instead of standard output.
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
        startDebugLog(label: nil, maxReportLength: StateChangeReport.defaultMaxLength, output)
    }

    /// This store, sending each report (see ``debug``) to `output`, cut at about `maxReportLength`
    /// bytes, with a last line that says how much was left out.
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
        startDebugLog(label: nil, maxReportLength: maxReportLength, output)
    }

    /// This store, logging its actions and those of its scoped stores (see ``debug``) under `label`.
    ///
    /// ```swift
    /// let app = Store(initialValues: [:], actionHandler: appHandler, dependency: .live)
    ///     .debug(label: "App")
    /// let filter = app.scope(
    ///     label: "filter", keys: [.selectedUser], actionHandler: filterHandler,
    ///     dependencyTransformation: { _ in () })
    /// filter.handle(action: .select(2))
    /// // [App/filter] Action: .select(2)
    /// //   + .selectedUser: 2
    /// ```
    ///
    /// `label` names this store at the start of each report's path. Without it, a root store's log
    /// is labelled `CacheStore`, a scoped store's by the store's label (see
    /// ``scope(label:keyTransformation:actionHandler:dependencyTransformation:defaultCache:actionTransformation:)``).
    ///
    /// A scoped store's log shows its own actions and those of the stores scoped from it, whether or
    /// not its parent logs; the parent's actions are not in it. When both log, each report goes to
    /// both, each log naming keys by its own store's keys.
    ///
    /// - Parameters:
    ///   - label: The name of this store in its log.
    ///   - maxReportLength: About the most bytes of one action's report (at least 1,024).
    ///   - output: Receives each report, as one string of one or more lines; standard output by
    ///     default.
    /// - Returns: This store.
    @discardableResult
    public func debug(
        label: String,
        maxReportLength: Int = 65_536,
        _ output: @escaping @Sendable (String) -> Void = { text in print(text) }
    ) -> Self {
        startDebugLog(label: label, maxReportLength: maxReportLength, output)
    }

    private func startDebugLog(label: String?, maxReportLength: Int, _ output: @escaping @Sendable (String) -> Void)
        -> Self
    {
        // In the store's turn, as every action: it applies from the next action handled (called from
        // a handler of this store, or where waiting for the turn could deadlock, after the current one;
        // for a store on the main actor called off it, after the actions queued for the main queue).
        engine.performWhereActionsAreHandled { [engine, persister] in
            engine.queue.hasDebugLog = true
            let label = label ?? engine.debugLabel
            engine.debugLogState.output = DebugOutput(
                label: label, write: output, maxLength: max(maxReportLength, 1_024))
            // The persisted keys' errors so far, then each new one when it happens (on the saving queue).
            let write: @Sendable (PersistenceError) -> Void = { error in
                output("[\(label)] Persistence error: \(error)")
            }
            for error in persister?.writeErrors(to: write) ?? [] { write(error) }
        }
        return self
    }
}
