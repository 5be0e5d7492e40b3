import CacheStore

extension TestStore {
    /// Runs the oldest queued effect to completion and checks that it finished without producing an
    /// action: the way to test an effect that only does something outside the store (analytics,
    /// saving, logging).
    ///
    /// ```swift
    /// store.send(.postOpened(id: 1))
    /// await store.runEffectExpectingNoAction()
    /// #expect(analytics.events == ["opened 1"])
    /// ```
    ///
    /// After it returns, the effect has done all it will do, so the test can check a mock dependency
    /// for what the effect did. Fails when no effect is queued, when the effect did not finish within
    /// ``effectTimeout`` (it is then cancelled), or when the awaiting task is cancelled (the effect too),
    /// or when it produced an action — then that action is handled unchecked, as
    /// ``receive(_:fileID:file:line:column:expecting:)-709tl`` handles an unexpected one, and any
    /// further actions stay queued, first.
    ///
    /// - Parameters:
    ///   - fileID: Where a failure is reported (defaults to the caller).
    ///   - file: Where a failure is reported (defaults to the caller).
    ///   - line: Where a failure is reported (defaults to the caller).
    ///   - column: Where a failure is reported (defaults to the caller).
    public func runEffectExpectingNoAction(
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        let location = FailureLocation(fileID: fileID, filePath: file, line: line, column: column)
        while let effect = takeOldestEffect(for: .noAction, blocking: false, at: location),
            let produced = actions(
                of: effect, await effect.start().actions(timeout: effectTimeout), for: .noAction, at: location),
            !expectNoAction(in: produced, from: effect, at: location)
        {}
    }

    /// The synchronous form of ``runEffectExpectingNoAction(fileID:file:line:column:)-873mk``, for
    /// synchronous XCTest methods.
    ///
    /// It blocks the calling thread until the effect finishes, as the synchronous
    /// ``receive(_:fileID:file:line:column:expecting:)-45zxx`` does, with the same limits.
    ///
    /// - Parameters:
    ///   - fileID: Where a failure is reported (defaults to the caller).
    ///   - file: Where a failure is reported (defaults to the caller).
    ///   - line: Where a failure is reported (defaults to the caller).
    ///   - column: Where a failure is reported (defaults to the caller).
    public func runEffectExpectingNoAction(
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let location = FailureLocation(fileID: fileID, filePath: file, line: line, column: column)
        while let effect = takeOldestEffect(for: .noAction, blocking: true, at: location),
            let produced = actions(
                of: effect, effect.start(onOwnThread: true).actionsBlocking(timeout: effectTimeout),
                for: .noAction, at: location),
            !expectNoAction(in: produced, from: effect, at: location)
        {}
    }

    private func expectNoAction(
        in produced: [Action], from effect: QueuedEffect<Action>, at location: FailureLocation
    ) -> Bool {
        // A wait (a debounce's, a throttle's) is not the effect: once it is over, the effect it waited
        // for is queued first, and runs next, unless it has ended already (a debounced `.cancel(id:)`).
        guard effect.wait == nil else { return !endEffect(effect, .waitIsOver) }
        defer { endEffect(effect) }
        guard let first = produced.first else { return true }
        TestStoreFailure.report(
            """
            \(EffectExpectation.noAction.summary), but \(effect.name) produced \
            \(ValueDump.inline(first)).
            Receive the action with receive(_:) instead.
            """,
            at: location)
        requeueRest(of: produced, from: effect)
        handleUnchecked(first, at: location)
        return true
    }
}
