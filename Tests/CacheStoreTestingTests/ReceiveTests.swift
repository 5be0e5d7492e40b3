import CacheStoreTesting
import Testing

@Suite struct TestStoreReceiveTests {
    @Test func receiveRunsTheOldestEffectAndChecksItsAction() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.receive(.loaded(.success([1, 2, 3]))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: [1, 2, 3], forKey: .items)
            }
            #expect(store.runningEffectIDs.isEmpty)
        }
        #expect(failures.isEmpty)
    }

    @Test func errorsInResultsCompareByTheValueTheyHold() async {
        let failing = LoadDependency(fetch: { .failure(LoadError(reason: "offline")) }, pageSize: { 0 })
        let failures = await captureFailures {
            let store = makeLoadStore(failing)
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.receive(.loaded(.failure(LoadError(reason: "offline")))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: #"LoadError(reason: "offline")"#, forKey: .error)
            }
        }
        #expect(failures.isEmpty)
    }

    @Test func theSynchronousFormWorksOffTheMainThread() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            store.receive(.loaded(.success([1, 2, 3]))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: [1, 2, 3], forKey: .items)
            }
        }
        #expect(failures.isEmpty)
    }

    @Test func aMultiActionEffectQueuesEachActionInOrder() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.stream(count: 3))
            await store.receive(.streamed(1)) { $0.set(value: [1], forKey: .items) }
            #expect(store.runningEffectIDs == [AnyHashable(LoadID.stream), AnyHashable(LoadID.stream)])
            await store.receive(.streamed(2)) { $0.set(value: [1, 2], forKey: .items) }
            await store.receive(.streamed(3)) { $0.set(value: [1, 2, 3], forKey: .items) }
        }
        #expect(failures.isEmpty)
    }

    @Test func nothingQueuedIsAFailure() async {
        var receiveLine: UInt = 0
        let failures = await captureFailures {
            let store = makeLoadStore()
            receiveLine = #line + 1
            await store.receive(.nextPage)
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected to receive .nextPage, but no effect is queued.
                        Send the action that starts the effect first, or remove this receive(_:).
                        """,
                    line: receiveLine)
            ])
    }

    @Test func aDifferentActionShowsBothAndStillHandlesTheReceivedOne() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.receive(.loaded(.success([1, 2]))) { _ in }
            #expect(store.store.get(.items, as: [Int].self) == [1, 2, 3])
        }
        #expect(
            failures.map(\.message) == [
                """
                Received an unexpected action from the effect .load (− expected, + received):
                − .loaded(.success([1, 2]))
                + .loaded(.success([1, 2, 3]))
                Fix the action passed to receive(_:), or the effect if it sends the wrong action.
                """
            ])
    }

    @Test func anEffectThatProducesNoActionIsAFailure() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.loadNothing)
            await store.receive(.loaded(.success([])))
        }
        #expect(
            failures.map(\.message) == [
                """
                Expected to receive .loaded(.success([])), but the effect .load finished without producing an action.
                Make the effect return the action, or remove this receive.
                """
            ])
    }

    @Test func anEffectThatDoesNotFinishInTimeIsAFailure() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.effectTimeout = .milliseconds(50)
            store.send(.loadForever)
            await store.receive(.loaded(.success([])))
        }
        #expect(
            failures.map(\.message) == [
                """
                Expected to receive .loaded(.success([])), but the effect .load did not finish within 0.05 seconds.
                Make the effect finish (a mock dependency that returns at once), or raise effectTimeout.
                """
            ])
    }

    @Test func aWrongStateAfterReceiveNamesTheReceivedAction() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.receive(.loaded(.success([1, 2, 3]))) { $0.set(value: false, forKey: .isLoading) }
        }
        #expect(
            failures.map(\.message) == [
                """
                State after .loaded(.success([1, 2, 3])) does not match the expectation (− expected, + actual):
                  .items
                −   nil
                +   [1, 2, 3]
                Fix the expectation closure, or the handler if the state is wrong.
                """
            ])
    }
}
