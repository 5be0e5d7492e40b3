import CacheStore

extension RecordedJournal {
    /// Replays the journal through `actionHandler` as a test: fails at the first step whose state
    /// differs from the recording, with the usual per-key diff, and on a journal that cannot be
    /// read through to its end.
    ///
    /// ```swift
    /// @Test func yesterdaysSessionStillReplays() throws {
    ///     let recorded = try RecordedJournal(contentsOf: sessionURL, journal: postsJournal)
    ///     recorded.assertReplays(actionHandler: postsHandler, dependency: .unimplemented)
    /// }
    /// ```
    ///
    /// Effects do not run (see `replay(actionHandler:dependency:skipping:)`):
    /// pass `unimplemented` clients, and a call to one fails the test too.
    ///
    /// - Parameters:
    ///   - actionHandler: Today's handler.
    ///   - dependency: Passed to the handler with each action.
    ///   - fileID: Where a failure is reported (defaults to the caller).
    ///   - file: Where a failure is reported (defaults to the caller).
    ///   - line: Where a failure is reported (defaults to the caller).
    ///   - column: Where a failure is reported (defaults to the caller).
    /// - Returns: The replay, or `nil` when the journal could not be replayed (a failure was reported).
    @discardableResult
    public func assertReplays<Dependency>(
        actionHandler: StoreActionHandler<Key, Action, Dependency>,
        dependency: Dependency,
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) -> JournalReplay<Key, Action>? {
        let location = FailureLocation(fileID: fileID, filePath: file, line: line, column: column)
        let replay: JournalReplay<Key, Action>
        do {
            replay = try self.replay(actionHandler: actionHandler, dependency: dependency)
        } catch {
            TestStoreFailure.report("The journal could not be replayed: \(error)", at: location)
            return nil
        }
        if let divergence = replay.divergence {
            TestStoreFailure.report(Self.message(for: divergence), at: location)
        }
        return replay
    }

    /// ``assertReplays(actionHandler:dependency:fileID:file:line:column:)`` for a handler that needs
    /// no dependency.
    ///
    /// - Parameters:
    ///   - actionHandler: Today's handler.
    ///   - fileID: Where a failure is reported (defaults to the caller).
    ///   - file: Where a failure is reported (defaults to the caller).
    ///   - line: Where a failure is reported (defaults to the caller).
    ///   - column: Where a failure is reported (defaults to the caller).
    /// - Returns: The replay, or `nil` when the journal could not be replayed.
    @discardableResult
    public func assertReplays(
        actionHandler: StoreActionHandler<Key, Action, Void>,
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) -> JournalReplay<Key, Action>? {
        assertReplays(
            actionHandler: actionHandler, dependency: (), fileID: fileID, file: file, line: line, column: column)
    }

    /// The failure of a replay that diverged: the step, then each key's diff (− recorded, + replayed).
    static func message(for divergence: JournalDivergence<Key, Action>) -> String {
        let mismatches = divergence.differences.map {
            StateMismatch(key: $0.key, expected: $0.recorded, actual: $0.replayed)
        }
        return
            ([
                "Replaying the journal, \(divergence.stepDescription) leaves a state that differs from the recording (− recorded, + replayed):"
            ]
            + mismatches.flatMap { $0.diffLines(limits: .standard) })
            .joined(separator: "\n") + "\nFix the handler, or record the journal again if the change is meant."
    }
}
