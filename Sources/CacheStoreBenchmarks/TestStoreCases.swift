import CacheStoreTesting

/// `TestStore.send` with a one-key expectation: the cost of an exhaustive check on a large store.
enum TestStoreCases {
    static func send(size: Int, operations: Int) -> BenchmarkCase {
        let store = TestStore(
            initialValues: intValues(size), actionHandler: benchHandler, dependency: BenchDependency())
        let hotKeys = min(size, 1_000)  // the same working set as the core cases
        return BenchmarkCase("teststore-send", size: size, operations: operations) { index in
            let key = index % hotKeys
            store.send(.write(key: key, value: index)) { $0.set(value: index, forKey: key) }
        }
    }
}
