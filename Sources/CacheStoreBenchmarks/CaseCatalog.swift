/// Every timed case by name, built on its own: only the stores of the case's own group are made.
enum CaseCatalog {
    /// Cases built together, by their names; `build` takes the size and the operations per case.
    private static let groups: [(names: [String], build: @Sendable (Int, Int) -> [BenchmarkCase])] = [
        (["floor-write", "floor-read"], { CoreCases(size: $0, operations: $1).floors }),
        (["cache-set", "cache-get", "typed-get"], { CoreCases(size: $0, operations: $1).cache }),
        (
            ["store-handle", "store-handle-two-keys", "store-handle-observed-other", "typed-handle"],
            { CoreCases(size: $0, operations: $1).store }
        ),
        // The table runs these a tenth as often as the other cases of their group (they are slower).
        (["cache-set-read-keys"], { CoreCases(size: $0, operations: $1 * 10).cache }),
        (
            ["store-handle-observed-same", "store-handle-observed-equal"],
            { CoreCases(size: $0, operations: $1 * 10).store }
        ),
        (["scoped-handle"], { [CoreCases(size: $0, operations: $1).scoped] }),
        (["lifted-handle"], { [CoreCases(size: $0, operations: $1).lifted] }),
        (["effect-roundtrip"], { _, operations in [EffectCases.roundTrip(count: operations)] }),
        (["effect-send-busy"], { _, operations in [EffectCases.sendBusy(count: operations)] }),
        (["effect-cancel"], { _, operations in [EffectCases.startAndCancel(count: operations)] }),
        (["teststore-send"], { [TestStoreCases.send(size: $0, operations: $1)] }),
        (["teststore-send-dictionary"], { [ValueComparisonCases.sendReloadedDictionary(size: $0, operations: $1)] }),
        // The paths of a UI and their true floors (see FloorCases).
        (["floor-observed-write"], { [FloorCases.observedWrite(size: $0, operations: $1 * 10)] }),
        (["floor-task-roundtrip"], { _, operations in [FloorCases.taskRoundTrip(count: operations)] }),
        (["floor-scope-create"], { [FloorCases.scopeCreate(size: $0, operations: $1 * 10)] }),
        (["scope-create"], { [UIPathCases.scopeCreate(size: $0, operations: $1 * 10)] }),
        (["floor-row-write"], { [FloorCases.rowWrite(size: $0, operations: $1 * 10)] }),
        (["row-write"], { [UIPathCases.rowWrite(size: $0, operations: $1 * 10)] }),
        (["persisted-set"], { [PersistenceCases.persistedSet(size: $0, operations: $1)] }),
        (["floor-restore"], { [PersistenceCases.floorRestore(keys: $0, operations: $1)] }),
        (["persisted-restore"], { [PersistenceCases.persistedRestore(keys: $0, operations: $1)] }),
        (["floor-journal-append"], { _, operations in [JournalCases.floorAppend(operations: operations)] }),
        (["journal-handle"], { [JournalCases.handle(recorded: $0, operations: $1)] }),
        (["journal-jump"], { [JournalCases.jump(steps: $0, operations: $1)] }),
    ]

    /// The names `--case` accepts: every timed case of the table (the memory rows are not timed).
    static var names: [String] { groups.flatMap(\.names) }

    /// The case `name` at `size`, built to perform `operations` operations, or `nil` for an unknown
    /// name.
    static func named(_ name: String, size: Int, operations: Int) -> BenchmarkCase? {
        guard let group = groups.first(where: { $0.names.contains(name) }) else { return nil }
        return group.build(size, operations).first { $0.name == name }
    }
}
