import CacheStore
import Observation

/// The floor, cache and store cases at one store size.
///
/// Every case touches the same working set at every size: key `index % hotKeys`, the first
/// `min(size, 1,000)` keys. So a larger store shows what its size costs, not CPU cache misses from
/// touching 100,000 different keys (which slow the floor as much: a raw dictionary's write takes
/// about 3.5× longer spread over 100,000 keys than over 10 on this machine).
struct CoreCases {
    let size: Int
    let operations: Int

    /// How many distinct keys the operations touch.
    var hotKeys: Int { min(size, 1_000) }

    /// The baselines: a raw dictionary under the same lock the library uses.
    var floors: [BenchmarkCase] {
        let floor = LockedDictionary(intValues(size))
        let hotKeys = hotKeys
        return [
            BenchmarkCase("floor-write", size: size, baseline: nil, operations: operations) { index in
                floor.lock.withLock { floor.values[index % hotKeys] = index }
            },
            BenchmarkCase("floor-read", size: size, baseline: nil, operations: operations) { index in
                blackHole(floor.lock.withLock { floor.values[index % hotKeys] } as? Int)
            },
        ]
    }

    var cache: [BenchmarkCase] {
        let hotKeys = hotKeys
        let written = CacheStore<Int>(initialValues: intValues(size))
        let read = CacheStore<Int>(initialValues: intValues(size))
        // Keys that have been read may be observed: writing them tells the observation registrar.
        let readThenWritten = CacheStore<Int>(initialValues: intValues(size))
        for key in 0..<hotKeys { blackHole(readThenWritten.get(key, as: Int.self)) }
        return [
            BenchmarkCase("cache-set", size: size, operations: operations) { index in
                written.set(value: index, forKey: index % hotKeys)
            },
            BenchmarkCase("cache-set-read-keys", size: size, operations: operations / 10) { index in
                readThenWritten.set(value: index, forKey: index % hotKeys)
            },
            BenchmarkCase("cache-get", size: size, baseline: "floor-read", operations: operations) { index in
                blackHole(read.get(index % hotKeys, as: Int.self))
            },
            BenchmarkCase("typed-get", size: size, baseline: "cache-get", operations: operations) { index in
                blackHole(read[TypedKey(index % hotKeys, default: 0)])
            },
        ]
    }

    var store: [BenchmarkCase] {
        let hotKeys = hotKeys
        let plain = makeStore(size: size)
        // An observation of a key no action writes: it never fires.
        let observingOther = makeStore(size: size)
        withObservationTracking({ blackHole(observingOther.get(-1, as: Int.self)) }, onChange: {})
        // An observation of the written key: it fires on every action and is registered again each
        // time, as a SwiftUI view's would be.
        let observingSame = makeStore(size: size)
        observeKeyZero(of: observingSame)
        // The same observation, and every action writes the value the key holds: no change to tell.
        let observingEqual = makeStore(size: size)
        observeKeyZero(of: observingEqual)
        return [
            BenchmarkCase("store-handle", size: size, operations: operations) { index in
                plain.handle(action: .write(key: index % hotKeys, value: index))
            },
            BenchmarkCase("typed-handle", size: size, baseline: "store-handle", operations: operations) { index in
                plain.handle(action: .typedWrite(key: index % hotKeys, value: index))
            },
            BenchmarkCase("store-handle-two-keys", size: size, baseline: "store-handle", operations: operations) {
                index in
                plain.handle(action: .writeTwo(key: index % Swift.max(hotKeys - 1, 1), value: index))
            },
            BenchmarkCase("store-handle-observed-other", size: size, operations: operations) { index in
                observingOther.handle(action: .write(key: index % hotKeys, value: index))
            },
            BenchmarkCase(
                "store-handle-observed-same", size: size, baseline: "floor-observed-write", operations: operations / 10
            ) { index in
                observingSame.handle(action: .write(key: 0, value: index))
            },
            BenchmarkCase(
                "store-handle-observed-equal", size: size, baseline: "floor-observed-write", operations: operations / 10
            ) { _ in
                observingEqual.handle(action: .write(key: 0, value: 0))
            },
        ]
    }

    /// A scoped store's action writing one scoped key, over a parent of `size` keys.
    var scoped: BenchmarkCase {
        let hotKeys = hotKeys
        let parent = makeStore(size: size)
        let scoped = parent.scope(
            keyTransformation: scopedKeys, actionHandler: scopedHandler, dependencyTransformation: { $0 })
        return BenchmarkCase("scoped-handle", size: size, operations: operations) { index in
            withExtendedLifetime(parent) { scoped.handle(action: .write(key: index % hotKeys, value: index)) }
        }
    }

    /// The scoped handler's action lifted into the parent's handler: one store, the same write as
    /// `store-handle` through the scoped handler's key mapping.
    var lifted: BenchmarkCase {
        let hotKeys = hotKeys
        let store = Store(
            initialValues: intValues(size),
            actionHandler: .scope(
                keyTransformation: scopedKeys, actionHandler: scopedHandler, extractAction: { $0 },
                embedAction: { $0 }, dependencyTransformation: { $0 }),
            dependency: BenchDependency())
        return BenchmarkCase("lifted-handle", size: size, operations: operations) { index in
            store.handle(action: .write(key: index % hotKeys, value: index))
        }
    }
}

private func observeKeyZero(of store: Store<Int, BenchAction, BenchDependency>) {
    withObservationTracking({ blackHole(store.get(0, as: Int.self)) }, onChange: { observeKeyZero(of: store) })
}
