import CacheStoreTesting
import Testing

@Suite struct TestStoreEndingTests {
    @Test func anEffectLeftWhenTheTestStoreIsReleasedIsReportedAtTheSendThatStartedIt() async {
        var sendLine: UInt = 0
        let failures = await captureFailures {
            let store = makeLoadStore()
            sendLine = #line + 1
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected no queued effects when the test store ended, but the effect .load, started by \
                        .load, is still queued.
                        Receive its action with receive(_:), or cancel it with cancel(id:).
                        """,
                    line: sendLine)
            ])
    }

    @Test func finishReportsEachPendingEffectAtItsOwnSend() async {
        var sendLines: [UInt] = []
        let failures = await captureFailures {
            let store = makeLoadStore()
            sendLines.append(#line + 1)
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            sendLines.append(#line + 1)
            store.send(.stream(count: 1))
            store.finish()
            #expect(store.runningEffectIDs.isEmpty)
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected no queued effects when the test store ended, but the effect .load, started by \
                        .load, is still queued.
                        Receive its action with receive(_:), or cancel it with cancel(id:).
                        """,
                    line: sendLines[0]),
                CapturedFailure(
                    message: """
                        Expected no queued effects when the test store ended, but the effect .stream, started by \
                        .stream(count: 1), is still queued.
                        Receive its action with receive(_:), or cancel it with cancel(id:).
                        """,
                    line: sendLines[1]),
            ])
    }

    @Test func anEffectStartedByAReceivedActionIsReportedAtThatReceiveOnce() async {
        let chained = StoreActionHandler<LoadKey, LoadAction, LoadDependency> { _, action, _ in
            switch action {
            case .load: ActionEffect(id: LoadID.load) { .stream(count: 2) }
            // Three actions: the two left queued after the first are one effect, reported once.
            case .stream: .run(id: LoadID.stream) { send in for value in 1...3 { await send(.streamed(value)) } }
            default: .none
            }
        }
        var receiveLine: UInt = 0
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: chained, dependency: .mock)
            store.send(.load)
            receiveLine = #line + 1
            await store.receive(.stream(count: 2))
            await store.receive(.streamed(1))
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected no queued effects when the test store ended, but the effect .stream, started by \
                        .stream(count: 2), is still queued.
                        Receive its action with receive(_:), or cancel it with cancel(id:).
                        """,
                    line: receiveLine)
            ])
    }

    @Test func assertNoPendingEffectsPassesWhenAllWereReceived() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.receive(.loaded(.success([1, 2, 3]))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: [1, 2, 3], forKey: .items)
            }
            store.assertNoPendingEffects()
        }
        #expect(failures.isEmpty)
    }
}
