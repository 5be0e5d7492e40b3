import Foundation

let arguments = Set(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || !arguments.isSubset(of: ["--quick", "--tsv"]) {
    print(
        """
        usage: swift run -c release CacheStoreBenchmarks [--quick] [--tsv]
          --quick  fewer iterations: checks that every case runs, not how fast
          --tsv    tab-separated rows (case, size, ns_per_op, ratio) for scripts
        """)
    exit(arguments.contains("--help") ? 0 : 64)
}
let plan: Measurement.Plan = arguments.contains("--quick") ? .quick : .full
let tabSeparated = arguments.contains("--tsv")

/// Progress goes to standard error, so that standard output is only the table.
func progress(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

var rows: [Row] = []
/// Adds a row for `name` at `size`, with its ratio to `baseline` (a row already measured).
@MainActor func record(_ name: String, _ size: Int, _ measurement: Measurement, baseline: String? = nil) {
    progress("measured \(name) at \(size)")
    let base = baseline.flatMap { baseline in rows.first { $0.name == baseline && $0.size == size }?.value }
    let value = measurement.nanosecondsPerOperation
    rows.append(Row(name: name, size: size, value: value, ratio: base.map { value / $0 } ?? 1))
}

for size in [10, 1_000, 10_000, 100_000] {
    let core = CoreCases(size: size, plan: plan)
    record("floor-write", size, core.floorWrite())
    record("floor-read", size, core.floorRead())
    guard size != 10_000 else { continue }  // 10,000 keys: only the TestStore case's baseline
    record("cache-set", size, core.cacheSet(), baseline: "floor-write")
    record("cache-get", size, core.cacheGet(), baseline: "floor-read")
    record("store-handle", size, core.storeHandle(), baseline: "floor-write")
    record("store-handle-observed-other", size, core.storeHandleObservingAnotherKey(), baseline: "floor-write")
    record("store-handle-observed-same", size, core.storeHandleObservingTheWrittenKey(), baseline: "floor-write")
    if size >= 1_000 { record("scoped-handle", size, core.scopedHandle(), baseline: "floor-write") }
}

let effects = EffectCases(plan: plan)
record("effect-roundtrip", 10, effects.roundTrip(count: plan.operations / 20), baseline: "floor-write")
record("effect-cancel", 1_000, effects.startAndCancel(count: 1_000), baseline: "floor-write")

let testStores = TestStoreCases(plan: plan)
for size in [10, 1_000, 10_000] {
    record("teststore-send", size, testStores.send(size: size), baseline: "floor-write")
}

let memoryKeys = 100_000
if let raw = MemoryCases.bytesPerKey(count: memoryKeys, { intValues(memoryKeys) }),
    let store = MemoryCases.bytesPerKey(count: memoryKeys, { makeStore(size: memoryKeys) })
{
    rows.append(Row(name: "memory-floor", size: memoryKeys, value: raw, ratio: 1))
    rows.append(Row(name: "memory", size: memoryKeys, value: store, ratio: store / raw))
}

let machine = MachineDescription.current
if tabSeparated {
    print(ResultTable.render(rows, tabSeparated: true))
} else {
    print("machine: \(machine)\(plan.operations == Measurement.Plan.quick.operations ? " (quick run)" : "")")
    print("ns/op is the median of \(plan.repetitions) repetitions; memory rows are bytes per key.\n")
    print(ResultTable.render(rows, tabSeparated: false))
    print("\ntargets (ratios within this run):")
    print(Targets(rows: rows).report().joined(separator: "\n"))
    if let growth = MemoryCases.growthPerAction(actions: plan.operations * 5) {
        print(
            "  heap growth per handled action over \((plan.operations * 5).formatted()) actions: "
                + String(format: "%.3f bytes", growth))
    }
}
