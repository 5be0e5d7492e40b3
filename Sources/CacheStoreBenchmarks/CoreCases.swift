import CacheStore
import Observation

/// The floor, cache and store cases at one store size.
struct CoreCases {
    let size: Int
    let plan: Measurement.Plan

    func floorWrite() -> Measurement {
        let floor = LockedDictionary(intValues(size))
        return Measurement.time(plan) { index in
            floor.lock.withLock { floor.values[index % size] = index }
        }
    }

    func floorRead() -> Measurement {
        let floor = LockedDictionary(intValues(size))
        return Measurement.time(plan) { index in
            blackHole(floor.lock.withLock { floor.values[index % size] } as? Int)
        }
    }

    func cacheSet() -> Measurement {
        let cache = CacheStore<Int>(initialValues: intValues(size))
        return Measurement.time(plan) { index in cache.set(value: index, forKey: index % size) }
    }

    func cacheGet() -> Measurement {
        let cache = CacheStore<Int>(initialValues: intValues(size))
        return Measurement.time(plan) { index in blackHole(cache.get(index % size, as: Int.self)) }
    }

    func storeHandle() -> Measurement {
        let store = makeStore(size: size)
        return Measurement.time(plan) { index in store.handle(action: .write(key: index % size, value: index)) }
    }

    /// `store-handle` while a `withObservationTracking` observation watches a key no action writes.
    func storeHandleObservingAnotherKey() -> Measurement {
        let store = makeStore(size: size)
        withObservationTracking({ blackHole(store.get(-1, as: Int.self)) }, onChange: {})
        return Measurement.time(plan) { index in store.handle(action: .write(key: index % size, value: index)) }
    }

    /// `store-handle` while an observation watches the written key: it fires on every action and is
    /// registered again each time, as a SwiftUI view would be.
    func storeHandleObservingTheWrittenKey() -> Measurement {
        let store = makeStore(size: size)
        observeKeyZero(of: store)
        return Measurement.time(plan) { index in store.handle(action: .write(key: 0, value: index)) }
    }

    /// A scoped store's action writing one scoped key, over a parent of `size` keys.
    func scopedHandle() -> Measurement {
        let parent = makeStore(size: size)
        let scoped = parent.scope(
            keyTransformation: scopedKeys, actionHandler: scopedHandler, dependencyTransformation: { $0 })
        return Measurement.time(plan) { index in scoped.handle(action: .write(key: index % size, value: index)) }
    }
}

private func observeKeyZero(of store: Store<Int, BenchAction, BenchDependency>) {
    withObservationTracking({ blackHole(store.get(0, as: Int.self)) }, onChange: { observeKeyZero(of: store) })
}
