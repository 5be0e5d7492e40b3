import CacheStore

extension TestStore {
    /// Takes the oldest received action, waiting for it when none is there yet, checks that it is
    /// `action`, and checks the change it made as ``send(_:fileID:file:line:column:expecting:)`` does.
    ///
    /// ```swift
    /// store.send(.fetchPosts) { $0.set(value: true, forKey: .isLoading) }
    /// await store.receive(.postsResponse(.success(posts))) { state in
    ///     state.set(value: false, forKey: .isLoading)
    ///     state.set(value: posts, forKey: .posts)
    /// }
    /// ```
    ///
    /// While nothing is received yet, the store's effects make progress, one step at a time, first
    /// started first, until one delivers; an effect asleep on a ``TestClock`` is not woken (the
    /// `receive` fails at once, saying to advance the clock, and naming the effect and its deadline),
    /// and one waiting on something outside the test is waited for up to ``effectTimeout``.
    ///
    /// Actions compare with `==` when `Action` is `Equatable`, and structurally otherwise: enum cases
    /// and payloads, struct fields, collections, and errors by the value they hold (so
    /// `.failure("no url")` with a `String` error matches). The state is checked against the state
    /// before the received action was handled, with `expecting` applied.
    ///
    /// Received actions are first in, first out. With ``exhaustivity`` on, when the oldest is another
    /// action, the failure says which is oldest and where `action` is among those received; an
    /// `action` received later is taken (so the next `receive` of the oldest passes). With exhaustivity
    /// off, the actions received before `action` are skipped.
    ///
    /// - Parameters:
    ///   - action: The action expected.
    ///   - fileID: Where a failure is reported (defaults to the caller).
    ///   - file: Where a failure is reported (defaults to the caller).
    ///   - line: Where a failure is reported (defaults to the caller).
    ///   - column: Where a failure is reported (defaults to the caller).
    ///   - expecting: Applies the changes the received action should make to the state before it.
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
        let location = FailureLocation(fileID: fileID, filePath: file, line: line, column: column)
        registerPump()
        await receive(action, waitingOutsideUntil: nil, at: location, expecting: expecting)
    }

    /// ``receive(_:fileID:file:line:column:expecting:)-709tl``'s work; its wait for work from outside
    /// ends at `outsideDeadline` when an advance of the same step has waited already.
    nonisolated(nonsending) func receive(
        _ action: Action, waitingOutsideUntil outsideDeadline: ContinuousClock.Instant?, at location: FailureLocation,
        expecting: (inout CacheStore<Key>) throws -> Void
    ) async {
        let exhaustivity = self.exhaustivity
        let progress = await makeProgress(
            until: { isReceived(action, exhaustivity) }, waitingOutsideUntil: outsideDeadline)
        take(action, after: progress, exhaustivity: exhaustivity, at: location, expecting: expecting)
    }

    /// Advances `clock` by `duration` (see ``TestClock/advance(by:)``), then receives `action` as
    /// ``receive(_:fileID:file:line:column:expecting:)-709tl`` does.
    ///
    /// The way to test a debounce, a delay, a timer or a timeout: give the handler's dependency a
    /// ``TestClock``.
    ///
    /// ```swift
    /// store.send(.queryChanged("tea")) { $0.set(value: "tea", forKey: .query) }
    /// await store.receive(.search("tea"), after: .milliseconds(300), on: clock) { state in
    ///     state.set(value: ["Green tea"], forKey: .results)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - action: The action expected.
    ///   - duration: How far to move the clock first.
    ///   - clock: The clock the effects sleep on.
    ///   - fileID: Where a failure is reported (defaults to the caller).
    ///   - file: Where a failure is reported (defaults to the caller).
    ///   - line: Where a failure is reported (defaults to the caller).
    ///   - column: Where a failure is reported (defaults to the caller).
    ///   - expecting: Applies the changes the received action should make to the state before it.
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
        registerPump()
        // One wait for work from outside, effectTimeout in all, for the advance and the receive.
        let outsideDeadline = ContinuousClock.now.advanced(by: effectTimeout)
        await clock.advance(by: duration, waitingOutsideUntil: outsideDeadline)
        let location = FailureLocation(fileID: fileID, filePath: file, line: line, column: column)
        await receive(action, waitingOutsideUntil: outsideDeadline, at: location, expecting: expecting)
    }

    /// The synchronous form of ``receive(_:fileID:file:line:column:expecting:)-709tl``, for
    /// synchronous XCTest methods.
    ///
    /// It runs the effects on the calling thread, and blocks it while an effect waits on something
    /// outside the test; on the main thread the main run loop keeps running meanwhile, so that what
    /// an effect sends to the main actor is handled. In async code, prefer the `async` form.
    ///
    /// - Parameters:
    ///   - action: The action expected.
    ///   - fileID: Where a failure is reported (defaults to the caller).
    ///   - file: Where a failure is reported (defaults to the caller).
    ///   - line: Where a failure is reported (defaults to the caller).
    ///   - column: Where a failure is reported (defaults to the caller).
    ///   - expecting: Applies the changes the received action should make to the state before it.
    public func receive(
        _ action: Action,
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        expecting: (inout CacheStore<Key>) throws -> Void = { _ in }
    ) {
        let location = FailureLocation(fileID: fileID, filePath: file, line: line, column: column)
        registerPump()
        let exhaustivity = self.exhaustivity
        let progress = makeProgressBlocking { isReceived(action, exhaustivity) }
        take(action, after: progress, exhaustivity: exhaustivity, at: location, expecting: expecting)
    }

    /// Whether a `receive` of `action` can take one now: with exhaustivity on, any received action
    /// (the oldest is taken, and checked); off, `action` itself.
    func isReceived(_ action: Action, _ exhaustivity: Exhaustivity) -> Bool {
        received.withLock { received in
            guard exhaustivity != .on else { return !received.pending.isEmpty }
            return received.pending.contains { isStructurallyEqual($0.action, action) }
        }
    }

    /// Takes the received action a `receive` of `expected` names, once progress stopped, and checks
    /// it; or reports why there is none.
    func take(
        _ expected: Action, after progress: Progress, exhaustivity: Exhaustivity, at location: FailureLocation,
        expecting: (inout CacheStore<Key>) throws -> Void
    ) {
        let pending = received.withLock { $0.pending }
        guard !pending.isEmpty else {
            return TestStoreFailure.report(
                failure("Expected to receive \(ValueDump.inline(expected))", progress, call: "receive"), at: location)
        }
        let match = pending.firstIndex { isStructurallyEqual($0.action, expected) }
        guard exhaustivity == .on else {
            guard let match else {
                let skipped = pending.map { ValueDump.inline($0.action) }.joined(separator: ", ")
                _ = takeAllReceived()
                return TestStoreFailure.report(
                    """
                    Expected to receive \(ValueDump.inline(expected)), but no effect delivered it \
                    (\(reason(progress))). Skipped on the way: \(skipped).
                    Send the action that starts the effect first, or fix the action passed to receive(_:).
                    """,
                    at: location)
            }
            for skipped in pending[..<match] { logSkippedReceive(of: skipped, at: location) }
            return check(taking: match, expecting: expecting, at: location, skippingBefore: match)
        }
        guard match != 0 else { return check(taking: 0, expecting: expecting, at: location) }
        let oldest = pending[0]
        if let match {
            TestStoreFailure.report(
                """
                Expected to receive \(ValueDump.inline(expected)), but \(ValueDump.inline(oldest.action)) was \
                received first (\(oldest.source)): received actions are first in, first out, and \
                \(ValueDump.inline(expected)) is number \(match + 1) of the \(pending.count) received.
                Receive \(ValueDump.inline(oldest.action)) first, or fix the order the test expects.
                """,
                at: location)
            return check(taking: match, expecting: expecting, at: location)
        }
        reportUnexpected(oldest, insteadOf: expected, at: location)
        note(take(at: 0), at: location)
    }

    /// Takes the received action at `index`, and checks the change it made against `expecting`
    /// applied to the state before it.
    private func check(
        taking index: Int, expecting: (inout CacheStore<Key>) throws -> Void, at location: FailureLocation,
        skippingBefore skipped: Int = 0
    ) {
        let (handled, before, after) = received.withLock { received in
            let handled = received.pending[index]
            let overlays = (received.overlay(before: handled), received.overlay(after: handled))
            for _ in 0..<skipped { _ = received.take(at: 0) }
            defer { pendingCount.store(UInt(received.pending.count)) }
            return (received.take(at: index - skipped), overlays.0, overlays.1)
        }
        note(handled, at: location)
        let exhaustivity = self.exhaustivity
        let check = store.withExpectation(expecting, before: before, recorder: expectationRecorder) { expected in
            StateCheck(
                expected, handled.changes,
                currentValue: { key in
                    after.index(forKey: key).map { after.values[$0] } ?? store.currentValue(key)
                },
                currentKeys: {
                    var keys = Set(store.allValues.keys)
                    for (key, value) in after { if value == nil { keys.remove(key) } else { keys.insert(key) } }
                    return keys
                },
                exhaustivity: exhaustivity)
        }
        if !check.passed { report(check, after: handled.action, at: location) }
    }

    /// Reports that `received` came instead of `expected`: at most 64 KB, like every report,
    /// however large the actions.
    private func reportUnexpected(
        _ received: ObservedAction<Key, Action>, insteadOf expected: Action, at location: FailureLocation
    ) {
        let maxLength = StateChangeReport.defaultMaxLength
        var limits = DumpNode.Limits.standard
        limits.maxCharacters = maxLength / 2
        let fix = "Fix the action passed to receive(_:), or the effect if it sends the wrong action."
        let body = StateChangeReport.cut(
            ["Received an unexpected action \(received.source) (− expected, + received):"]
                + ValueDiff(from: expected, to: received.action, limits: limits).markedLines(),
            toBytes: maxLength - fix.utf8.count - 1)
        TestStoreFailure.report(body + "\n" + fix, at: location)
    }
}
