import CacheStore
import Observation

/// The paths a list-shaped UI lives on, each beside its true floor in ``FloorCases``: creating a
/// row's scoped store with an observer, and one action writing one row of many observed rows.
enum UIPathCases {
    /// Makes a scoped store of one key of a `size`-key store, registers an observer on it, then lets
    /// both go; per row.
    static func scopeCreate(size: Int, operations: Int) -> BenchmarkCase {
        let parent = makeStore(size: size)
        let hotKeys = min(size, 1_000)
        return BenchmarkCase("scope-create", size: size, baseline: "floor-scope-create", operations: operations / 10) {
            index in
            let row = rowStore(of: parent, key: index % hotKeys)
            withObservationTracking({ blackHole(row.get(.value, as: Int.self)) }, onChange: {})
        }
    }

    /// A store of `size` keys with a scoped row store over each key, each observed by an observer that
    /// registers again when it fires; each operation is one action of the parent writing one row's
    /// key, in the scattered order of the floor.
    static func rowWrite(size: Int, operations: Int) -> BenchmarkCase {
        let parent = makeStore(size: size)
        let rows = (0..<size).map { rowStore(of: parent, key: $0) }
        for row in rows { observe(row) }
        let serial = SerialNumbers()
        return BenchmarkCase("row-write", size: size, baseline: "floor-row-write", operations: operations / 10) {
            index in
            parent.handle(action: .write(key: scattered(index, size), value: serial.next()))
        }
    }
}

/// A row's one key.
enum RowKey: Hashable, Sendable {
    case value
}

/// A row store's handler: rows here are only read.
let rowHandler = StoreActionHandler<RowKey, Never, Void>.none

/// The scoped store of row `key` of `parent`.
private func rowStore(of parent: Store<Int, BenchAction, BenchDependency>, key: Int) -> Store<RowKey, Never, Void> {
    parent.scope(
        keyTransformation: (
            from: { parentKey in parentKey == key ? .value : nil },
            to: { rowKey in rowKey == .value ? key : nil }
        ),
        actionHandler: rowHandler,
        dependencyTransformation: { _ in }
    )
}

private func observe(_ row: Store<RowKey, Never, Void>) {
    withObservationTracking({ blackHole(row.get(.value, as: Int.self)) }, onChange: { observe(row) })
}
