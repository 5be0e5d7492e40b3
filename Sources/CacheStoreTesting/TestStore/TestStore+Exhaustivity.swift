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
        get { settings.withLock { $0.skippedAssertionsOutput } }
        set {
            let replaced = settings.withLock { settings in
                defer { settings.skippedAssertionsOutput = newValue }
                return settings.skippedAssertionsOutput
            }
            withExtendedLifetime(replaced) {}  // a user's closure, released with the lock left
        }
    }

    /// Logs the changes `action` made that its expectation did not check.
    func logSkippedChanges(_ skipped: [StateChange<Key>], after action: Action, at location: FailureLocation) {
        let report = StateChangeReport.debugText(action: action, changes: skipped)
        let changeLines = report.split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
        logSkipped(
            (["Skipped assertions after \(ValueDump.inline(action)) at \(location.text):"] + changeLines)
                .joined(separator: "\n"))
    }

    /// Logs a received action a non-exhaustive `receive` skipped.
    func logSkippedReceive(of skipped: ObservedAction<Key, Action>, at location: FailureLocation) {
        guard exhaustivity.showsSkippedAssertions else { return }
        logSkipped("Skipped receiving \(ValueDump.inline(skipped.action)) (\(skipped.source)) at \(location.text).")
    }

    /// Hands `message` to ``skippedAssertionsOutput``.
    func logSkipped(_ message: String) {
        settings.withLock { $0.skippedAssertionsOutput }("[TestStore] " + message)
    }
}

extension FailureLocation {
    /// `File.swift:12`, for messages.
    var text: String {
        "\(fileID):\(line)"
    }
}
