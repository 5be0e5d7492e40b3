import CacheStoreTesting
import Testing

/// A test store, its store and its effects are let go of once the test is done with them.
@Suite(.timeLimit(.minutes(1))) struct LeakTests {
    @Test func aTestStoreAndItsStoreAreReleasedAfterUse() async {
        weak var weakTestStore: TestStore<LoadKey, LoadAction, LoadDependency>?
        weak var weakStore: Store<LoadKey, LoadAction, LoadDependency>?
        let failures = await captureFailures {
            let testStore = makeLoadStore()
            testStore.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await testStore.receive(.loaded(.success([1, 2, 3]))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: [1, 2, 3], forKey: .items)
            }
            weakTestStore = testStore
            weakStore = testStore.store
        }
        #expect(failures.isEmpty)
        #expect(weakTestStore == nil)
        #expect(weakStore == nil)
    }

    @Test func aTestStoreWithEffectsLeftIsReleasedAfterReportingThem() async {
        weak var weakTestStore: TestStore<LoadKey, LoadAction, LoadDependency>?
        let failures = await captureFailures {
            let testStore = makeLoadStore()
            testStore.send(.loadForever)
            weakTestStore = testStore
        }
        #expect(failures.count == 1)
        #expect(weakTestStore == nil)
    }

    /// An effect left running when the test store is released is cancelled and ends, as a cancelled
    /// effect does in the app: its code after the wait runs, and what it holds is released, whether
    /// it waited outside the test store or on a test clock.
    @Test(arguments: [false, true])
    func anEffectLeftWhenTheTestStoreIsReleasedEndsAndReleasesWhatItHolds(onATestClock: Bool) async {
        let events = LockedList<String>()
        let clock = TestClock()
        let failures = await captureFailures {
            let held = ReleaseTests.Probe { events.append("released") }
            let handler = StoreActionHandler<LoadKey, LoadAction, Void> { _, _, _ in
                ActionEffect(id: LoadID.load) {
                    withExtendedLifetime(held) {}
                    if onATestClock {
                        try? await clock.sleep(for: .seconds(60))
                    } else {
                        try? await Task.sleep(for: .seconds(60))
                    }
                    events.append("ended")
                    return nil
                }
            }
            let store = TestStore(initialValues: [:], actionHandler: handler, dependency: ())
            store.effectTimeout = .milliseconds(30)
            store.send(.load)
            await store.runEffectExpectingNoAction()  // runs it until it waits
        }
        #expect(failures.count == 2, "the wait (when outside), and the leftover: \(failures.map(\.message))")
        #expect(await eventually { events.values.count == 2 }, "the effect never ended: \(events.values)")
        #expect(events.values == ["ended", "released"])
    }
}
