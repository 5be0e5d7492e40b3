import CacheStoreTesting
import Testing

@Suite struct TestStoreEndingTests {
    @Test func effectsLeftWhenTheTestStoreIsReleasedAreOneFailureAtItsCreationLine() async {
        var creationLine: UInt = 0
        let failures = await captureFailures {
            creationLine = #line + 1
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected no queued effects when the test store ended, but 1 is still queued:
                          - .load
                        Receive it with receive(_:), or cancel it with cancel(id:).
                        """,
                    line: creationLine)
            ])
    }

    @Test func finishNamesEveryPendingEffectOnceAtItsOwnLine() async {
        var finishLine: UInt = 0
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            store.send(.stream(count: 1))
            finishLine = #line + 1
            store.finish()
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected no queued effects when the test store ended, but 2 are still queued:
                          - .load
                          - .stream
                        Receive them with receive(_:), or cancel them with cancel(id:).
                        """,
                    line: finishLine)
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
