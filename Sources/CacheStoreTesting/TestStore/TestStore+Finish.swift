import CacheStore

extension TestStore {
    /// Lets the effects run until they end or wait for the test (a clock to advance), waiting up to
    /// ``effectTimeout`` for effects that wait on something outside the test; then checks that no
    /// effect is running and no received action is left to assert, and cancels what still runs.
    ///
    /// ```swift
    /// store.send(.start) { $0.set(value: true, forKey: .isRunning) }
    /// await clock.advance(by: .seconds(1))
    /// await store.receive(.tick) { $0.set(value: 1, forKey: .ticks) }
    /// await store.finish()    // fails: the timer still runs; cancels it
    /// ```
    ///
    /// What is left is one failure, reported here, naming each effect still running (what it waits
    /// for, and the `send` or `receive` whose action started it) and each action received and not
    /// asserted. With ``exhaustivity`` off, nothing left is a failure (and it is logged when the test
    /// store shows skipped assertions). The test store does the same, without letting effects run,
    /// when it is released, and reports there at the line that made it.
    ///
    /// - Parameters:
    ///   - fileID: Where a failure is reported (defaults to the caller).
    ///   - file: Where a failure is reported (defaults to the caller).
    ///   - line: Where a failure is reported (defaults to the caller).
    ///   - column: Where a failure is reported (defaults to the caller).
    nonisolated(nonsending) public func finish(
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        registerPump()
        _ = await makeProgress { false }
        reportLeftovers(
            at: FailureLocation(fileID: fileID, filePath: file, line: line, column: column), ending: "finished")
        pump.runUntilIdle()  // the effects it cancelled run on to their end, as in the app
    }

    /// The synchronous form of ``finish(fileID:file:line:column:)-50c58``: it runs what is runnable
    /// now, without waiting for effects that wait on something outside the test.
    ///
    /// - Parameters:
    ///   - fileID: Where a failure is reported (defaults to the caller).
    ///   - file: Where a failure is reported (defaults to the caller).
    ///   - line: Where a failure is reported (defaults to the caller).
    ///   - column: Where a failure is reported (defaults to the caller).
    public func finish(
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        runWhatIsRunnable()
        reportLeftovers(
            at: FailureLocation(fileID: fileID, filePath: file, line: line, column: column), ending: "finished")
        pump.runUntilIdle()  // the effects it cancelled run on to their end, as in the app
    }

    /// Runs the jobs runnable now, and what they hand to the store's turn, until neither is left: a
    /// main-actor store's work waits for the main queue, which a step on the main thread runs itself.
    func runWhatIsRunnable() {
        repeat {
            pump.runUntilIdle()
            store.inTurn {}
        } while pump.state.withLock { $0.hasJobs }
    }

    /// The same as the synchronous ``finish(fileID:file:line:column:)-7b4f3``.
    ///
    /// - Parameters:
    ///   - fileID: Where a failure is reported (defaults to the caller).
    ///   - file: Where a failure is reported (defaults to the caller).
    ///   - line: Where a failure is reported (defaults to the caller).
    ///   - column: Where a failure is reported (defaults to the caller).
    public func assertNoPendingEffects(
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        finish(fileID: fileID, file: file, line: line, column: column)
    }

    /// Runs the effects until the oldest effect running ends, and checks that no action was received
    /// meanwhile: the way to test an effect that only does something outside the store (tracking,
    /// saving), before checking what it did through the dependency.
    ///
    /// ```swift
    /// store.send(.open("Hello"))
    /// await store.runEffectExpectingNoAction()
    /// #expect(tracked.withLock { $0 } == ["open Hello"])
    /// ```
    ///
    /// - Parameters:
    ///   - fileID: Where a failure is reported (defaults to the caller).
    ///   - file: Where a failure is reported (defaults to the caller).
    ///   - line: Where a failure is reported (defaults to the caller).
    ///   - column: Where a failure is reported (defaults to the caller).
    nonisolated(nonsending) public func runEffectExpectingNoAction(
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) async {
        let location = FailureLocation(fileID: fileID, filePath: file, line: line, column: column)
        registerPump()
        guard let oldest = store.runningEffects.first else {
            return expectNoAction(after: .nothingRunning, at: location)
        }
        let progress = await makeProgress { hasEndedOrDelivered(oldest) }
        expectNoAction(after: progress, at: location)
    }

    /// The synchronous form of ``runEffectExpectingNoAction(fileID:file:line:column:)-873mk``, for
    /// synchronous XCTest methods (see ``receive(_:fileID:file:line:column:expecting:)-45zxx``).
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
        registerPump()
        guard let oldest = store.runningEffects.first else {
            return expectNoAction(after: .nothingRunning, at: location)
        }
        let progress = makeProgressBlocking { hasEndedOrDelivered(oldest) }
        expectNoAction(after: progress, at: location)
    }

    /// Whether `effect` no longer runs, or an action was received.
    private func hasEndedOrDelivered(_ effect: RunningEffect) -> Bool {
        !received.withLock({ $0.pending.isEmpty }) || !store.runningEffects.contains { $0.serial == effect.serial }
    }

    private func expectNoAction(after progress: Progress, at location: FailureLocation) {
        if let first = received.withLock({ $0.pending.first }) {
            TestStoreFailure.report(
                """
                Expected an effect to finish without an action, but \(ValueDump.inline(first.action)) was \
                received \(first.source).
                Receive the action with receive(_:) instead.
                """,
                at: location)
            return note(take(at: 0), at: location)
        }
        guard case .done = progress else {
            return TestStoreFailure.report(
                failure(
                    "Expected an effect to finish without an action", progress, call: "runEffectExpectingNoAction()"),
                at: location)
        }
    }

    /// Reports the effects still running and the received actions not asserted, as one failure at
    /// `location` (or logs them, with exhaustivity off); then cancels the effects and forgets the
    /// actions.
    func reportLeftovers(at location: FailureLocation, ending: String) {
        store.inTurn {}  // what the effects handed to the store's turn (a main-actor store's) first
        if store.hasEffectSendsToTheMainActor {
            // Effects whose actions the main actor handled resume as they would in the app: the jobs
            // queued now run, once each, as those of a store that handles on any thread would have.
            let queued = pump.state.withLock { $0.jobs.count - $0.head }
            for _ in 0..<queued {
                guard pump.runNext() else { break }
            }
            store.inTurn {}
        }
        let unreceived = takeAllReceived()
        let steps = received.withLock { $0.steps }
        let running = store.runningEffects
        store.cancelAllEffects()
        guard !unreceived.isEmpty || !running.isEmpty else { return }
        var lines: [String] = running.map { effect in
            let what =
                effect.waitsUntil.map { "waits until \(EffectName.of(instant: $0.instant)) (a debounce or throttle)" }
                ?? "is still running"
            let origin =
                steps[effect.startedBy].map { "started by \(ValueDump.inline($0.action)) at \($0.location.text)" } ?? ""
            return "  \(EffectName.of(effect.id)) \(what)\(origin.isEmpty ? "" : ", \(origin)")"
        }
        lines += unreceived.map { "  \(ValueDump.inline($0.action)) was received \($0.source), and not asserted" }
        let exhaustivity = self.exhaustivity
        guard exhaustivity == .on else {
            if exhaustivity.showsSkippedAssertions {
                logSkipped("Skipped what was left when the test store \(ending):\n" + lines.joined(separator: "\n"))
            }
            return
        }
        TestStoreFailure.report(
            """
            Expected no effect running and no received action left when the test store \(ending), but:
            \(lines.joined(separator: "\n"))
            Receive each action with receive(_:), and let each effect end (or cancel it: send the action \
            that stops it, or cancel(id:)). The effects were cancelled.
            """,
            at: location)
    }
}
