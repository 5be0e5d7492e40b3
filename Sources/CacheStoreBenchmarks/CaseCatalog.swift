/// Every timed case by name, built on its own: only the stores of the case's own group are made.
enum CaseCatalog {
    /// The names `--case` accepts: every timed case of the table (the memory rows are not timed).
    static let names = [
        "floor-write", "floor-read", "cache-set", "cache-set-read-keys", "cache-get", "store-handle",
        "store-handle-observed-other", "store-handle-observed-same", "scoped-handle", "effect-roundtrip",
        "effect-cancel", "teststore-send",
    ]

    /// The case `name` at `size`, built for `operations` operations, or `nil` for an unknown name.
    static func named(_ name: String, size: Int, operations: Int) -> BenchmarkCase? {
        let core = CoreCases(size: size, operations: operations)
        let group: [BenchmarkCase]
        switch name {
        case "floor-write", "floor-read": group = core.floors
        case "cache-set", "cache-get": group = core.cache
        // The table runs these a tenth as often as its other cases (they are slower).
        case "cache-set-read-keys": group = CoreCases(size: size, operations: operations * 10).cache
        case "store-handle-observed-same": group = CoreCases(size: size, operations: operations * 10).store
        case "store-handle", "store-handle-observed-other": group = core.store
        case "scoped-handle": group = [core.scoped]
        case "effect-roundtrip": group = [EffectCases.roundTrip(count: operations)]
        case "effect-cancel": group = [EffectCases.startAndCancel(count: operations)]
        case "teststore-send": group = [TestStoreCases.send(size: size, operations: operations)]
        default: return nil
        }
        return group.first { $0.name == name }
    }
}
