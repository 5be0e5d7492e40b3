import CacheStore

extension TestStore {
    /// Runs the oldest queued effect to completion, checks that it produced `action`, then handles
    /// that action as ``send(_:fileID:file:line:column:expecting:)`` does.
    ///
    /// ```swift
    /// store.send(.fetchPosts) { $0.set(value: true, forKey: .isLoading) }
    /// await store.receive(.postsResponse(.success(posts))) { state in
    ///     state.set(value: false, forKey: .isLoading)
    ///     state.set(value: posts, forKey: .posts)
    /// }
    /// ```
    ///
    /// Actions compare with `==` when `Action` is `Equatable`, and structurally otherwise: enum cases
    /// and payloads, struct fields, collections, and errors by the value they hold (so
    /// `.failure("no url")` with a `String` error matches). When an effect sends several actions
    /// (``/CacheStore/ActionEffect/run(id:operation:)``), the first is received and the rest stay queued, first,
    /// in order.
    ///
    /// Fails when no effect is queued, when the effect produced no action or did not finish within
    /// ``effectTimeout``, or when it produced a different action — then the action it did produce is
    /// handled, so the state moves on as it would in the app, and the state is not checked.
    ///
    /// With ``exhaustivity`` off, it runs queued effects in order until one produces `action`, handling
    /// the actions before it unchecked, and fails only when the queue runs out first.
    ///
    /// - Parameters:
    ///   - action: The action the effect should produce.
    ///   - fileID: Where a failure is reported (defaults to the caller).
    ///   - file: Where a failure is reported (defaults to the caller).
    ///   - line: Where a failure is reported (defaults to the caller).
    ///   - column: Where a failure is reported (defaults to the caller).
    ///   - expecting: Applies the changes the received action should make to the state.
    ///
    /// It runs on the caller's actor (`nonisolated(nonsending)`), so a `@MainActor` test passes its
    /// `expecting` closure without sending it to another isolation domain.
    nonisolated(nonsending) public func receive(
        _ action: Action,
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        expecting: (inout CacheStore<Key>) throws -> Void = { _ in }
    ) async {
        await receive(
            action, at: FailureLocation(fileID: fileID, filePath: file, line: line, column: column), advancing: nil,
            expecting: expecting)
    }

    /// Runs the oldest queued effect, moves `clock` forward by `duration` once the effect sleeps on it,
    /// then receives `action` as ``receive(_:fileID:file:line:column:expecting:)-709tl`` does.
    ///
    /// The way to test a debounce, a delay or a timeout: give the handler's dependency a
    /// ``TestClock``, and the effect's wait passes at once.
    ///
    /// ```swift
    /// store.send(.queryChanged("tea")) { $0.set(value: "tea", forKey: .query) }
    /// await store.receive(.search("tea"), after: .milliseconds(300), on: clock) { state in
    ///     state.set(value: ["Green tea"], forKey: .results)
    /// }
    /// ```
    ///
    /// It waits, up to ``effectTimeout`` in all, for the effect to fall asleep on `clock` (or to end
    /// without sleeping), then advances the clock as ``TestClock/advance(by:)`` does and waits for the
    /// effect's action. A `duration` shorter than the effect's wait leaves it asleep, and the `receive`
    /// fails when ``effectTimeout`` passes. A debounce's or throttle's wait takes the advance up to its
    /// end; the effect it starts runs with the rest.
    ///
    /// - Parameters:
    ///   - action: The action the effect should produce.
    ///   - duration: How far to move the clock once the effect sleeps on it.
    ///   - clock: The clock the effect sleeps on.
    ///   - fileID: Where a failure is reported (defaults to the caller).
    ///   - file: Where a failure is reported (defaults to the caller).
    ///   - line: Where a failure is reported (defaults to the caller).
    ///   - column: Where a failure is reported (defaults to the caller).
    ///   - expecting: Applies the changes the received action should make to the state.
    nonisolated(nonsending) public func receive(
        _ action: Action,
        after duration: Duration,
        on clock: TestClock,
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        expecting: (inout CacheStore<Key>) throws -> Void = { _ in }
    ) async {
        await receive(
            action, at: FailureLocation(fileID: fileID, filePath: file, line: line, column: column),
            advancing: (clock, duration), expecting: expecting)
    }

    /// The async `receive`, with a clock to advance once the first effect it runs sleeps on it.
    nonisolated(nonsending) private func receive(
        _ action: Action,
        at location: FailureLocation,
        advancing clock: (TestClock, Duration)?,
        expecting: (inout CacheStore<Key>) throws -> Void
    ) async {
        let expectation = EffectExpectation.receiving(action, advancing: clock?.1)
        var skipped: [String] = []
        var clock = clock
        // One effect when exhaustive; a non-exhaustive receive goes on until an effect produces `action`.
        while let effect = takeOldestEffect(
            for: expectation, blocking: false, advancing: clock.map { (clock: $0.0, by: $0.1) }, at: location,
            skipped: skipped),
            let produced = actions(
                of: effect, await run(effect, advancing: Self.spend(&clock, on: effect)), for: expectation,
                at: location),
            !finishReceiving(
                action, from: effect, produced: produced, at: location, expecting: expecting, skipped: &skipped)
        {}
    }

    /// The part of the advance `clock` that `effect` takes: a wait (a debounce's, a throttle's) moves
    /// the clock to its end only, and leaves the rest for what it starts, which may sleep on the clock
    /// too; any other effect takes all of it.
    private static func spend(
        _ clock: inout (TestClock, Duration)?, on effect: QueuedEffect<Action>
    ) -> (TestClock, Duration)? {
        guard let (testClock, duration) = clock else { return nil }
        guard let left = effect.wait?.until.timeLeft(on: testClock), left < duration else {
            clock = nil
            return (testClock, duration)
        }
        let taken = max(left, .zero)
        clock = (testClock, duration - taken)
        return (testClock, taken)
    }

    /// Runs `effect` and waits for its actions, `effectTimeout` at most in all; with a clock, moves the
    /// clock forward by the duration once the effect sleeps on it.
    nonisolated(nonsending) private func run(
        _ effect: QueuedEffect<Action>, advancing clock: (TestClock, Duration)?
    ) async -> EffectRunOutcome<Action> {
        let deadline = ContinuousClock.now + effectTimeout
        let sleepsBefore = clock?.0.sleepsBegun ?? 0
        let running = effect.start()
        if let (clock, duration) = clock {
            await clock.waitForSleep(
                after: sleepsBefore, unless: { running.completion.hasEnded }, timeout: effectTimeout)
            await clock.advance(by: duration)
        }
        return await running.actions(timeout: max(ContinuousClock.now.duration(to: deadline), .zero))
    }

    /// The synchronous form of ``receive(_:fileID:file:line:column:expecting:)-709tl``, for
    /// synchronous XCTest methods.
    ///
    /// It blocks the calling thread until the effect finishes. The effect runs on a new thread of its
    /// own, so it never waits for a free thread of the concurrency pool the caller may be blocking,
    /// and an effect stuck in another test store does not hold it up; on the main thread the main run
    /// loop keeps running meanwhile, so an effect that hops to the main actor does not deadlock. In
    /// async code, prefer the `async` form.
    ///
    /// A thread of its own for an effect needs task executors (macOS 15, iOS 18, tvOS 18, watchOS 11).
    /// Before those, the effect runs on the concurrency pool, which a caller inside a task may be
    /// blocking: there this form fails at once, leaving the effect queued, rather than risk a deadlock.
    ///
    /// - Parameters:
    ///   - action: The action the effect should produce.
    ///   - fileID: Where a failure is reported (defaults to the caller).
    ///   - file: Where a failure is reported (defaults to the caller).
    ///   - line: Where a failure is reported (defaults to the caller).
    ///   - column: Where a failure is reported (defaults to the caller).
    ///   - expecting: Applies the changes the received action should make to the state.
    public func receive(
        _ action: Action,
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        expecting: (inout CacheStore<Key>) throws -> Void = { _ in }
    ) {
        let location = FailureLocation(fileID: fileID, filePath: file, line: line, column: column)
        let expectation = EffectExpectation.receiving(action)
        var skipped: [String] = []
        // One effect when exhaustive; a non-exhaustive receive goes on until an effect produces `action`.
        while let effect = takeOldestEffect(for: expectation, blocking: true, at: location, skipped: skipped),
            let produced = actions(
                of: effect, effect.start(onOwnThread: true).actionsBlocking(timeout: effectTimeout),
                for: expectation, at: location),
            !finishReceiving(
                action, from: effect, produced: produced, at: location, expecting: expecting, skipped: &skipped)
        {}
    }

    /// Checks what the effect produced against `expected`, then handles it.
    ///
    /// - Parameters:
    ///   - produced: The effect's actions in order.
    ///   - skipped: What a non-exhaustive `receive` skipped so far; this adds what it skips.
    /// - Returns: Whether the `receive` is done: `false` when a non-exhaustive one skipped this effect's
    ///   action (or lack of one) and goes on to the next.
    private func finishReceiving(
        _ expected: Action,
        from effect: QueuedEffect<Action>,
        produced: [Action],
        at location: FailureLocation,
        expecting: (inout CacheStore<Key>) throws -> Void,
        skipped: inout [String]
    ) -> Bool {
        // A wait (a debounce's, a throttle's) delivers nothing: once it is over, what it waited for is
        // queued first, and the receive goes on with it, unless it has ended already without an action
        // (a debounced `.cancel(id:)`).
        guard effect.wait == nil else {
            guard !endEffect(effect, .waitIsOver) else { return false }
            return finishReceivingNoAction(expected, from: effect, at: location, skipped: &skipped)
        }
        // Its part ends after its action was handled, as in a store: then its concatenation's next
        // step starts.
        defer { endEffect(effect) }
        guard let received = produced.first else {
            return finishReceivingNoAction(expected, from: effect, at: location, skipped: &skipped)
        }
        let exhaustivity = self.exhaustivity
        let id = effect.name
        requeueRest(of: produced, from: effect)
        guard isStructurallyEqual(received, expected) else {
            if exhaustivity == .on {
                reportUnexpected(received, insteadOf: expected, fromEffect: id, at: location)
            } else {
                skipped.append(ValueDump.inline(received))
                if exhaustivity.showsSkippedAssertions { logSkippedReceive(of: received, from: effect, at: location) }
            }
            handleUnchecked(received, at: location)
            return exhaustivity == .on
        }
        handle(received, at: location, expecting: expecting)
        return true
    }

    /// Reports that `effect` ended without an action when `expected` was to be received, or, with
    /// exhaustivity off, skips it; returns whether the `receive` is done.
    private func finishReceivingNoAction(
        _ expected: Action, from effect: QueuedEffect<Action>, at location: FailureLocation, skipped: inout [String]
    ) -> Bool {
        let exhaustivity = self.exhaustivity
        guard exhaustivity == .on else {
            skipped.append("\(effect.name), without an action")
            if exhaustivity.showsSkippedAssertions { logSkippedEffectWithoutAction(effect, at: location) }
            return false
        }
        TestStoreFailure.report(
            """
            Expected to receive \(ValueDump.inline(expected)), but \(effect.name) finished without \
            producing an action.
            Make the effect return the action, or remove this receive.
            """,
            at: location)
        return true
    }

    /// Reports that an effect produced `received` instead of `expected`: at most 64 KB, like every
    /// report, however large the actions.
    private func reportUnexpected(
        _ received: Action, insteadOf expected: Action, fromEffect id: String, at location: FailureLocation
    ) {
        let maxLength = StateChangeReport.defaultMaxLength
        var limits = DumpNode.Limits.standard
        limits.maxCharacters = maxLength / 2
        let fix = "Fix the action passed to receive(_:), or the effect if it sends the wrong action."
        let body = StateChangeReport.cut(
            ["Received an unexpected action from \(id) (− expected, + received):"]
                + ValueDiff(from: expected, to: received, limits: limits).markedLines(),
            toBytes: maxLength - fix.utf8.count - 1)
        TestStoreFailure.report(body + "\n" + fix, at: location)
    }
}
