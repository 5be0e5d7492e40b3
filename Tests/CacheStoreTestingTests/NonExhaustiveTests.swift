import CacheStoreTesting
import Testing

/// Exhaustivity off: `send` and `receive` check only what the test asserts; every action is handled
/// all the same, and what was skipped is listed on request.
@Suite(.timeLimit(.minutes(1))) struct NonExhaustiveTests {
    @Test func exhaustiveIsTheDefault() {
        #expect(makeLoadStore().exhaustivity == .on)
        #expect(Exhaustivity.off == .off(showSkippedAssertions: false))
    }

    @Test func sendChecksOnlyTheKeysTheExpectationWrites() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1, .isLoading: false])
            store.exhaustivity = .off
            store.send(.load)  // sets .isLoading, unasserted
            store.send(.nextPage) { $0.set(value: 2, forKey: .page) }
        }
        #expect(failures.isEmpty)
    }

    @Test func aWrongAssertedKeyStillFailsAndNamesOnlyThatKey() async {
        var sendLine: UInt = 0
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1])
            store.exhaustivity = .off
            sendLine = #line + 1
            store.send(.load) { $0.set(value: 7, forKey: .page) }
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        State after .load does not match the expectation (− expected, + actual):
                          .page
                        −   7
                        +   1
                        Fix the expectation closure, or the handler if the state is wrong.
                        """,
                    line: sendLine)
            ])
    }

    @Test func receiveSkipsActionsUntilOneMatches() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.exhaustivity = .off
            store.send(.stream(count: 3))
            await store.receive(.streamed(3)) { $0.set(value: [1, 2, 3], forKey: .items) }
            #expect(store.runningEffectIDs.isEmpty)
        }
        #expect(failures.isEmpty)
    }

    @Test func theSynchronousReceiveSkipsToo() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.exhaustivity = .off
            store.send(.load)
            store.send(.stream(count: 2))
            // Skips .loaded([1, 2, 3]) and .streamed(1), handling them.
            store.receive(.streamed(2)) { $0.set(value: [1, 2, 3, 1, 2], forKey: .items) }
        }
        #expect(failures.isEmpty)
    }

    @Test func receiveFailsWhenNoEffectDeliversTheAction() async {
        var receiveLine: UInt = 0
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.exhaustivity = .off
            store.send(.loadNothing)
            store.send(.stream(count: 2))
            receiveLine = #line + 1
            await store.receive(.streamed(9))
            #expect(store.store.get(.items, as: [Int].self) == [1, 2])
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected to receive .streamed(9), but no effect delivered it (no effect is running). Skipped \
                        on the way: .streamed(1), .streamed(2).
                        Send the action that starts the effect first, or fix the action passed to receive(_:).
                        """,
                    line: receiveLine)
            ])
    }

    @Test func effectsAndActionsLeftAreNoFailure() {
        let failures = captureFailuresSynchronously {
            let store = makeLoadStore()
            store.exhaustivity = .off
            store.send(.loadForever)
            store.send(.stream(count: 1))
            store.finish()
            #expect(store.runningEffectIDs.isEmpty)
        }
        #expect(failures.isEmpty)
    }

    /// Every action is handled whether or not the test asserts it (the engine handled it): an
    /// immediate action before `send` returns, effects' actions as the effects run, so the state
    /// ends as in the app.
    @Test func everyActionIsHandledWhetherOrNotTheTestAssertsIt() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1])
            store.exhaustivity = .off
            store.send(.loadAndPage)
            #expect(store.store.get(.page, as: Int.self) == 2, "the immediate action was not handled at once")
            store.send(.stream(count: 2))
            await store.receive(.streamed(2)) { $0.set(value: [1, 2, 3, 1, 2], forKey: .items) }
            await store.finish()
            #expect(store.store.get(.isLoading, as: Bool.self) == false)
            #expect(store.runningEffectIDs.isEmpty)
            #expect(store.receivedActions.isEmpty)
        }
        #expect(failures.isEmpty)
    }

    @Test func turningItBackOnChecksEverythingAgain() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.isLoading: false])
            store.exhaustivity = .off
            store.send(.load)
            store.exhaustivity = .on
            store.send(.stopLoading) { $0.set(value: false, forKey: .isLoading) }
        }
        #expect(failures.isEmpty)
        let leftover = await captureFailures {
            let store = makeLoadStore()
            store.exhaustivity = .off
            store.send(.load)
            store.exhaustivity = .on
        }
        #expect(
            leftover.map(\.message).first?.hasPrefix("Expected no effect running and no received action left") == true)
    }

    @Test func showSkippedAssertionsLogsWhatWasNotChecked() async {
        let log = LockedList<String>()
        var lines: [UInt] = []
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.isLoading: false])
            store.exhaustivity = .off(showSkippedAssertions: true)
            store.skippedAssertionsOutput = { log.append($0) }
            lines.append(#line + 1)
            store.send(.nextPage)
            store.send(.loadNothing)
            store.send(.stream(count: 2))
            lines.append(#line + 1)
            await store.receive(.streamed(2))
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.finish()
        }
        #expect(failures.isEmpty)
        let file = "CacheStoreTestingTests/NonExhaustiveTests.swift"
        #expect(
            log.values == [
                """
                [TestStore] Skipped assertions after .nextPage at \(file):\(lines[0]):
                  + .page: 1
                """,
                "[TestStore] Skipped receiving .streamed(1) (from the effect .stream) at \(file):\(lines[1]).",
                """
                [TestStore] Skipped assertions after .streamed(2) at \(file):\(lines[1]):
                  ~ .items: [1] → [1, 2]
                """,
                """
                [TestStore] Skipped what was left when the test store finished:
                  .loaded(.success([1, 2, 3])) was received from the effect .load, and not asserted
                """,
            ])
    }
}
