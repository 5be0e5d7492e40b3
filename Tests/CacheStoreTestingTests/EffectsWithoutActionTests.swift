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

@Suite struct TestStoreNoActionTests {
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

    @Test func theSynchronousFormRunsItToo() async {
        let events = LockedList<String>()
        let failures = await captureFailures {
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
                        Expected an effect to finish without an action, but the effect .load produced \
                        .loaded(.success([1, 2, 3])).
                        Receive the action with receive(_:) instead.
                        """,
                    line: runLine)
            ])
    }

    @Test func nothingQueuedIsAFailure() async {
        var runLine: UInt = 0
        let failures = await captureFailures {
            let store = makeLoadStore()
            runLine = #line + 1
            store.runEffectExpectingNoAction()
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected an effect to finish without an action, but no effect is queued.
                        Send the action that starts the effect first, or remove this runEffectExpectingNoAction().
                        """,
                    line: runLine)
            ])
    }

    @Test func anEffectThatDoesNotFinishInTimeIsAFailure() async {
        var runLine: UInt = 0
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.effectTimeout = .milliseconds(30)
            store.send(.loadForever)
            runLine = #line + 1
            await store.runEffectExpectingNoAction()
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected an effect to finish without an action, but the effect .load did not finish within \
                        0.03 seconds.
                        Make the effect finish (a mock dependency that returns at once), or raise effectTimeout.
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
        try? await Task.sleep(for: .milliseconds(30))
        waiting.cancel()
        await waiting.value
        #expect(ContinuousClock.now - started < .seconds(120))  // did not wait out the timeout
        #expect(
            failures.values == [
                CapturedFailure(
                    message: """
                        Expected an effect to finish without an action, but the wait for the effect .load was \
                        cancelled.
                        The task awaiting runEffectExpectingNoAction() was cancelled; the effect was cancelled too.
                        """,
                    line: runLine.values.first ?? 0)
            ])
    }
}
