import CacheStoreTesting
import Testing

@Suite struct TestStoreLeakTests {
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

    @Test func aTestStoreWithQueuedEffectsIsReleasedAfterReportingThem() async {
        weak var weakTestStore: TestStore<LoadKey, LoadAction, LoadDependency>?
        let failures = await captureFailures {
            let testStore = makeLoadStore()
            testStore.send(.loadForever)
            weakTestStore = testStore
        }
        #expect(failures.count == 1)
        #expect(weakTestStore == nil)
    }
}
