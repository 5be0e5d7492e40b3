import CacheStoreTesting

/// `TestStore.send` with a one-key expectation: the cost of an exhaustive check on a large store.
struct TestStoreCases {
    let plan: Measurement.Plan

    func send(size: Int) -> Measurement {
        let store = TestStore(
            initialValues: intValues(size), actionHandler: benchHandler, dependency: BenchDependency())
        return Measurement.time(plan.scaled(by: 0.25)) { index in
            let key = index % size
            store.send(.write(key: key, value: index)) { $0.set(value: index, forKey: key) }
        }
    }
}
