import CacheStore

extension TestStore {
    /// How much the test store checks: ``Exhaustivity/on`` (the default) checks every key and every
    /// effect; ``Exhaustivity/off`` only what the test asserts.
    ///
    /// ```swift
    /// store.exhaustivity = .off(showSkippedAssertions: true)
    /// store.send(.login(password: "secret")) { state in
    ///     state.set(value: true, forKey: .isLoggingIn)
    /// }
    /// // [TestStore] Skipped assertions after .login(password: "secret") at AppTests/LoginTests.swift:14:
    /// //   + .attempts: 1
    /// ```
    ///
    /// Change it at any point of a test: a test can check a feature's first steps exhaustively and the
    /// rest of the app's reaction only in part.
    public var exhaustivity: Exhaustivity {
        get { Exhaustivity(word: exhaustivityWord.load()) }
        set { exhaustivityWord.store(newValue.word) }
    }

    /// Where ``Exhaustivity/off(showSkippedAssertions:)`` with `true` logs what it did not check, one
    /// message of one or more lines at a time: standard output by default.
    ///
    /// ```swift
    /// store.skippedAssertionsOutput = { message in logger.info("\(message)") }
    /// ```
    public var skippedAssertionsOutput: @Sendable (String) -> Void {
        get { settings.withValue { $0.skippedAssertionsOutput } }
        set { settings.replace(\.skippedAssertionsOutput, with: newValue) }
    }

    /// Logs the changes `action` made that its expectation did not check.
    func logSkippedChanges(_ skipped: [StateChange<Key>], after action: Action, at location: FailureLocation) {
        let report = StateChangeReport.debugText(action: action, changes: skipped)
        let changeLines = report.split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
        logSkipped(
            (["Skipped assertions after \(ValueDump.inline(action)) at \(location.text):"] + changeLines)
                .joined(separator: "\n"))
    }

    /// Logs an action that a non-exhaustive `receive` handled without checking it.
    func logSkippedReceive(of action: Action, from effect: QueuedEffect<Action>, at location: FailureLocation) {
        logSkipped(
            """
            Skipped receiving \(ValueDump.inline(action)) from \(effect.name) at \
            \(location.text).
            """)
    }

    /// Logs an effect a non-exhaustive `receive` ran that produced no action.
    func logSkippedEffectWithoutAction(_ effect: QueuedEffect<Action>, at location: FailureLocation) {
        logSkipped(
            """
            Skipped \(effect.name), which finished without an action, at \
            \(location.text).
            """)
    }

    /// Logs an effect still queued when a non-exhaustive test store ended.
    func logSkippedLeftover(_ effect: QueuedEffect<Action>) {
        logSkipped(
            """
            Skipped \(effect.name), started by \
            \(ValueDump.inline(effect.origin.action)) at \(effect.origin.location.text): still queued when \
            the test store ended.
            """)
    }

    private func logSkipped(_ message: String) {
        skippedAssertionsOutput("[TestStore] " + message)
    }
}

extension FailureLocation {
    /// `Module/File.swift:12`.
    var text: String {
        "\(fileID):\(line)"
    }
}
