import CacheStoreTesting
import Testing

@Suite struct TestStoreNonExhaustiveTests {
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

    @Test func receiveFailsWhenNoQueuedEffectProducesTheAction() async {
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
                        Expected to receive .streamed(9), but no queued effect produced it. Skipped on the way: \
                        the effect .load, without an action, .streamed(1), .streamed(2).
                        Send the action that starts the effect first, or fix the action passed to receive(_:).
                        """,
                    line: receiveLine)
            ])
    }

    @Test func effectsLeftQueuedAreNoFailure() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.exhaustivity = .off
            store.send(.load)
            store.send(.stream(count: 1))
            store.finish()
            #expect(store.runningEffectIDs.isEmpty)
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
        #expect(leftover.map(\.message).first?.hasPrefix("Expected no queued effects") == true)
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
            lines.append(#line + 1)
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.finish()
        }
        #expect(failures.isEmpty)
        let file = "CacheStoreTestingTests/TestStoreNonExhaustiveTests.swift"
        #expect(
            log.values == [
                """
                [TestStore] Skipped assertions after .nextPage at \(file):\(lines[0]):
                  + .page: 1
                """,
                "[TestStore] Skipped the effect .load, which finished without an action, at \(file):\(lines[1]).",
                "[TestStore] Skipped receiving .streamed(1) from the effect .stream at \(file):\(lines[1]).",
                """
                [TestStore] Skipped assertions after .streamed(2) at \(file):\(lines[1]):
                  ~ .items: [1] → [1, 2]
                """,
                """
                [TestStore] Skipped the effect .load, started by .load at \(file):\(lines[2]): still queued \
                when the test store ended.
                """,
            ])
    }
}
