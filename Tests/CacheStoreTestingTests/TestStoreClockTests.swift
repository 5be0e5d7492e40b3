import CacheStoreTesting
import Testing

@Suite struct TestStoreClockTests {
    @Test func aDebouncedEffectIsReceivedAfterTheClockAdvances() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: searchHandler, dependency: clock as any Clock<Duration>)
            for query in ["t", "te", "tea"] { store.send(.queryChanged(query)) }  // each replaces the last
            await store.receive(.search("tea"), after: .milliseconds(300), on: clock) { state in
                state.set(value: ["tea"], forKey: .searched)
            }
        }
        #expect(failures.isEmpty)
        #expect(clock.now.offset == .milliseconds(300))  // no real time: see TestClockTests
    }

    @Test func tooShortAnAdvanceLeavesTheEffectAsleep() async {
        let clock = TestClock()
        var receiveLine: UInt = 0
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: searchHandler, dependency: clock as any Clock<Duration>)
            store.effectTimeout = .milliseconds(200)
            store.send(.queryChanged("tea"))
            receiveLine = #line + 1
            await store.receive(.search("tea"), after: .milliseconds(299), on: clock)
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected to receive .search("tea"), but the effect .debounce did not finish within 0.2 seconds.
                        Make the effect finish (a mock dependency that returns at once), or raise effectTimeout.
                        """,
                    line: receiveLine)
            ])
        #expect(clock.sleeperCount == 0)  // the test store cancelled the effect
    }
}
