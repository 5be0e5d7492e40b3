import CacheStoreTesting
import Testing

enum TrackAction: Sendable {
    case open(Int)
    case opened
}

let trackHandler = StoreActionHandler<LoadKey, TrackAction, LockedList<String>> { _, action, events in
    switch action {
    case .open(let id):
        return ActionEffect(id: LoadID.load) {
            events.append("opened \(id)")
            return id == 0 ? .opened : nil
        }
    case .opened:
        return .none
    }
}

/// `runEffectExpectingNoAction()`: an effect that only does something outside the store (tracking,
/// saving) runs to its end, and no action is received meanwhile.
@Suite(.timeLimit(.minutes(1))) struct EffectsWithoutActionTests {
    @Test func anEffectWithoutAnActionRunsToCompletion() async {
        let events = LockedList<String>()
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: trackHandler, dependency: events)
            store.send(.open(1))
            await store.runEffectExpectingNoAction()
            #expect(events.values == ["opened 1"])
            #expect(store.runningEffectIDs.isEmpty)
        }
        #expect(failures.isEmpty)
    }

    @Test func theSynchronousFormRunsItToo() {
        let events = LockedList<String>()
        let failures = captureFailuresSynchronously {
            let store = TestStore(initialValues: [:], actionHandler: trackHandler, dependency: events)
            store.send(.open(2))
            store.runEffectExpectingNoAction()
            #expect(events.values == ["opened 2"])
        }
        #expect(failures.isEmpty)
    }

    @Test func anActionIsAFailureAndIsHandled() async {
        var runLine: UInt = 0
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            runLine = #line + 1
            await store.runEffectExpectingNoAction()
            #expect(store.store.get(.items, as: [Int].self) == [1, 2, 3])
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected an effect to finish without an action, but .loaded(.success([1, 2, 3])) was \
                        received from the effect .load.
                        Receive the action with receive(_:) instead.
                        """,
                    line: runLine)
            ])
    }

    /// A concatenation's immediate step, handled once the effect before it has ended, is an action
    /// received meanwhile, named by where it came from.
    @Test func anImmediateActionReceivedMeanwhileIsAFailure() async {
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:],
                actionHandler: StoreActionHandler<LoadKey, TrackAction, Void> { _, action, _ in
                    guard case .open = action else { return .none }
                    return .concatenate(ActionEffect { nil }, ActionEffect(.opened))
                },
                dependency: ())
            store.send(.open(1))
            await store.runEffectExpectingNoAction()
        }
        #expect(
            failures.map(\.message) == [
                """
                Expected an effect to finish without an action, but .opened was received from a handler that \
                returned it at once (ActionEffect(action)).
                Receive the action with receive(_:) instead.
                """
            ])
    }

    @Test func nothingRunningIsAFailure() {
        var runLine: UInt = 0
        let failures = captureFailuresSynchronously {
            let store = makeLoadStore()
            runLine = #line + 1
            store.runEffectExpectingNoAction()
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected an effect to finish without an action, but no effect is running and no action was \
                        received.
                        Send the action that starts the effect first, or remove this runEffectExpectingNoAction().
                        """,
                    line: runLine)
            ])
    }

    @Test func anEffectWaitingOutsideTheTestStoreIsWaitedForUpToTheTimeout() async {
        var runLine: UInt = 0
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.effectTimeout = .milliseconds(30)
            store.send(.loadForever)
            runLine = #line + 1
            await store.runEffectExpectingNoAction()
            store.cancel(id: LoadID.load)
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected an effect to finish without an action, but the effect .load waited for 0.03 seconds \
                        on something outside the test store (real I/O, another thread, a clock that is not a \
                        TestClock).
                        Give the effect a dependency that answers at once or sleeps on a TestClock, or raise \
                        effectTimeout.
                        """,
                    line: runLine)
            ])
    }

    @Test func cancellingTheWaitIsAFailureAtOnce() async {
        let failures = LockedList<CapturedFailure>()
        let runLine = LockedList<UInt>()
        let started = ContinuousClock.now
        let waiting = Task {
            let captured = await captureFailures {
                let store = makeLoadStore()
                store.effectTimeout = .seconds(600)
                store.send(.loadForever)
                runLine.append(#line + 1)
                await store.runEffectExpectingNoAction()
            }
            for failure in captured { failures.append(failure) }
        }
        defer { waiting.cancel() }
        try? await Task.sleep(for: .milliseconds(30))
        waiting.cancel()
        #expect(await eventually { failures.values.count == 1 })
        #expect(ContinuousClock.now - started < .seconds(60), "did not wait out the timeout")
        #expect(
            failures.values == [
                CapturedFailure(
                    message: """
                        Expected an effect to finish without an action, but the task awaiting it was cancelled.
                        The effects still running were cancelled with it.
                        """,
                    line: runLine.values.first ?? 0)
            ])
    }

    /// A debounced effect without an action run unadvanced: the failure says to advance the clock, not to receive.
    /// (From review 10.)
    @Test func aWaitOnATestClockSaysToAdvanceTheClock() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: quietHandler, dependency: clock)
            store.send(.open(1))
            await store.runEffectExpectingNoAction()
            store.cancel(id: LoadID.load)
        }
        #expect(
            failures.map(\.message) == [
                """
                Expected an effect to finish without an action, but every effect waits on a TestClock: the wait \
                of .load (a debounce or throttle) sleeps until 0.3 seconds (the clock is at 0.0 seconds).
                Advance the clock: await clock.advance(by:).
                """
            ])
    }

    /// Advancing past the wait runs a debounced effect without an action to its end: nothing received, nothing left.
    /// (From review 10.)
    @Test func advancingTheClockRunsADebouncedEffectWithoutAnAction() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: quietHandler, dependency: clock)
            store.send(.open(1))
            await clock.advance(by: .milliseconds(300))
            #expect(store.runningEffectIDs.isEmpty)
            #expect(store.receivedActions.isEmpty)
            await store.finish()
        }
        #expect(failures.map(\.message) == [])
    }
}

/// `.open` returns an effect without an action, debounced by 300 ms under `LoadID.load`.
let quietHandler = StoreActionHandler<LoadKey, TrackAction, TestClock> { _, action, clock in
    switch action {
    case .open:
        return ActionEffect { nil }.debounce(id: LoadID.load, for: .milliseconds(300), clock: clock)
    case .opened:
        return .none
    }
}
