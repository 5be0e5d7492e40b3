import CacheStoreTesting
import Testing

@Suite struct TestStoreSendTests {
    @Test func aCorrectExpectationReportsNothing() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1])
            store.send(.nextPage) { $0.set(value: 2, forKey: .page) }
            #expect(store.store.get(.page, as: Int.self) == 2)
        }
        #expect(failures.isEmpty)
    }

    @Test func aWrongValueIsOneFailureWithExpectedAndActual() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.nextPage) { $0.set(value: 5, forKey: .page) }
        }
        #expect(
            failures.map(\.message) == [
                """
                State after .nextPage does not match the expectation (− expected, + actual):
                  .page
                −   5
                +   1
                Fix the expectation closure, or the handler if the state is wrong.
                """
            ])
    }

    @Test func aChangeTheExpectationLeftOutIsReported() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.isLoading: false])
            store.send(.load) { _ in }
            store.cancel(id: LoadID.load)
        }
        #expect(
            failures.map(\.message) == [
                """
                State after .load does not match the expectation (− expected, + actual):
                  .isLoading
                −   false
                +   true
                Fix the expectation closure, or the handler if the state is wrong.
                """
            ])
    }

    @Test func anExpectedChangeThatDidNotHappenIsReported() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1])
            store.send(.nextPage) { state in
                state.set(value: 2, forKey: .page)
                state.set(value: [9], forKey: .items)
            }
        }
        #expect(
            failures.map(\.message) == [
                """
                State after .nextPage does not match the expectation (− expected, + actual):
                  .items
                −   [9]
                +   nil
                Fix the expectation closure, or the handler if the state is wrong.
                """
            ])
    }

    @Test func everyDifferingKeyIsInTheOneFailure() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.loaded(.success([1, 2]))) { state in
                state.set(value: true, forKey: .isLoading)
                state.set(value: [1, 3], forKey: .items)
            }
        }
        #expect(failures.count == 1)
        #expect(failures.first?.message.contains("  .isLoading\n−   true\n+   false") == true)
        #expect(failures.first?.message.contains("  .items\n−   [1, 3]\n+   [1, 2]") == true)
    }

    @Test func longValuesAreDiffedLineByLine() async {
        let long = Array(1000..<1030)
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.loaded(.success(long))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: long.map { $0 == 1010 ? 0 : $0 }, forKey: .items)
            }
        }
        let message = failures.first?.message ?? ""
        #expect(message.contains("−     0,\n+     1010,"))
        #expect(message.contains("      1009,"))
    }

    @Test func aDifferencePastTheElementsShownByDefaultIsShownAmidItsNeighbours() async {
        let long = Array(0..<500)
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.loaded(.success(long))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: long.map { $0 == 400 ? -1 : $0 }, forKey: .items)
            }
        }
        let lines = failures.first?.message.components(separatedBy: "\n") ?? []
        #expect(failures.count == 1)
        #expect(lines.first?.hasPrefix("State after .loaded(.success([0, 1, 2, 3,") == true)
        #expect(lines.first?.count ?? 0 < 300)  // a long action is cut short in the message
        #expect(Array(lines[1...3]) == ["  .items", "    [", "      … 350 before,"])
        #expect(lines.contains("−     -1,") && lines.contains("+     400,"))
        #expect(lines.contains("      … 50 more"))
    }

    @Test func theFailurePointsAtTheSendLine() async {
        var sendLine: UInt = 0
        let failures = await captureFailures {
            let store = makeLoadStore()
            sendLine = #line + 1
            store.send(.nextPage) { _ in }
        }
        #expect(failures.map(\.line) == [sendLine])
    }

    @Test func aThrowingExpectationIsReportedAndTheActionStillHandled() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.nextPage) { _ in throw LoadError(reason: "bad setup") }
            #expect(store.store.get(.page, as: Int.self) == 1)
        }
        #expect(failures.map(\.message) == [#"The expectation for .nextPage threw LoadError(reason: "bad setup")."#])
    }

    @Test func anExpectationThatReplacesTheWholeStateIsComparedKeyByKey() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1, .error: "old"])
            store.send(.nextPage) { state in
                state = CacheStore(initialValues: [.page: 2])
            }
        }
        #expect(
            failures.map(\.message) == [
                """
                State after .nextPage does not match the expectation (− expected, + actual):
                  .error
                −   nil
                +   "old"
                Fix the expectation closure, or the handler if the state is wrong.
                """
            ])
    }

    @Test func theExpectationAfterAReplacingOneStartsFromTheStore() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1, .error: "old"])
            store.send(.nextPage) { state in
                state = CacheStore(initialValues: [.page: 2, .error: "old"])
            }
            store.store.handle(action: .stopLoading)  // a change the replacing cache never saw
            store.send(.nextPage) { $0.set(value: 3, forKey: .page) }
        }
        #expect(failures.isEmpty)
    }

    @Test func theEffectIsQueuedNotRun() async {
        let failures = await captureFailures {
            let store = makeLoadStore(LoadDependency(fetch: { fatalError("must not run") }, pageSize: { 0 }))
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            #expect(store.runningEffectIDs == [AnyHashable(LoadID.load)])
            store.cancel(id: LoadID.load)
            #expect(store.runningEffectIDs.isEmpty)
        }
        #expect(failures.isEmpty)
    }

    @Test func aCancelEffectRemovesTheQueuedEffectWithItsID() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            store.send(.stream(count: 1))
            store.send(.stopLoading) { $0.set(value: false, forKey: .isLoading) }
            #expect(store.runningEffectIDs == [AnyHashable(LoadID.stream)])
            store.cancel(id: LoadID.stream)
        }
        #expect(failures.isEmpty)
    }

    @Test func aNewEffectReplacesAQueuedOneWithTheSameID() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            store.send(.stream(count: 1))
            store.send(.load)
            #expect(store.runningEffectIDs == [AnyHashable(LoadID.stream), AnyHashable(LoadID.load)])
            store.cancel(id: LoadID.stream)
            store.cancel(id: LoadID.load)
        }
        #expect(failures.isEmpty)
    }
}
