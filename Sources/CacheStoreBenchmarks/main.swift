import Foundation

guard let options = BenchmarkOptions(Array(CommandLine.arguments.dropFirst())), !options.help else {
    print(BenchmarkOptions.usage)
    exit(CommandLine.arguments.contains("--help") ? 0 : 64)
}
if let single = options.singleCase {
    guard let benchmark = CaseCatalog.named(single.name, size: single.size, operations: single.operations) else {
        FileHandle.standardError.write(Data("unknown case \(single.name)\n\(BenchmarkOptions.usage)\n".utf8))
        exit(64)
    }
    let duration = ContinuousClock().measure(benchmark.run)
    print("case\tsize\toperations\tns_per_op")
    print(
        "\(benchmark.name)\t\(benchmark.size)\t\(benchmark.operations)\t"
            + String(format: "%.1f", duration.nanoseconds / Double(benchmark.operations)))
    PersistenceCases.removeFolders()
    exit(0)
}
let plan: Measurement.Plan = options.quick ? .quick : .full
let tabSeparated = options.tabSeparated

/// Progress goes to standard error, so that standard output is only the table.
func progress(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

var cases: [BenchmarkCase] = []
let effectOperations = plan.operations(scaledBy: 0.05)
let testStoreOperations = plan.operations(scaledBy: 0.1)
for size in [10, 1_000, 10_000, 100_000] {
    let core = CoreCases(size: size, operations: plan.operations)
    cases += core.floors
    if size != 10_000 {
        cases += [
            FloorCases.observedWrite(size: size, operations: plan.operations),
            FloorCases.scopeCreate(size: size, operations: plan.operations),
            UIPathCases.scopeCreate(size: size, operations: plan.operations),
            FloorCases.rowWrite(size: size, operations: plan.operations),
            UIPathCases.rowWrite(size: size, operations: plan.operations),
        ]
    }
    if size != 10_000 {
        cases += core.cache + core.store
    } else {
        cases += core.store.filter { $0.name == "store-handle" }  // the baseline of teststore-send here
    }
    if size >= 1_000 && size != 10_000 { cases += [core.scoped, core.lifted] }
    if size == 10 {
        cases += [
            EffectCases.roundTrip(count: effectOperations), EffectCases.sendBusy(count: effectOperations),
            FloorCases.taskRoundTrip(count: effectOperations),
        ]
    }
    if size == 1_000 { cases.append(EffectCases.startAndCancel(count: 1_000)) }
    if size <= 10_000 { cases.append(TestStoreCases.send(size: size, operations: testStoreOperations)) }
}
cases += [4_000, 100_000].map(ValueComparisonCases.sendReloadedDictionary(size:))
cases += [10, 1_000].map { PersistenceCases.persistedSet(size: $0, operations: plan.operations) }
// A restore of 1,000 keys of about 10 KB each (10 MB) is one operation.
let restoreOperations = plan.operations(scaledBy: 0.00002)
cases += [
    PersistenceCases.floorRestore(keys: 1_000, operations: restoreOperations),
    PersistenceCases.persistedRestore(keys: 1_000, operations: restoreOperations),
]
// An action recorded, against its floor, with 1,000 and 100,000 actions in the journal before it.
cases += [JournalCases.floorAppend(operations: plan.operations)]
cases += [1_000, 100_000].map { JournalCases.handle(recorded: $0, operations: plan.operations) }
cases += [JournalCases.jump(steps: 100_000, operations: plan.operations(scaledBy: 0.001))]
progress("measuring \(cases.count) cases round-robin, \(plan.rounds) rounds")
// Every case of every size is timed in each round, so all figures share the same rounds: a slow
// spell of this shared machine hits a case, its floor and the other sizes alike.
let samples = Measurement.interleaved(cases, rounds: plan.rounds)
var rows = zip(cases, samples).map { benchmark, rounds in
    // The floor of the same size, or the floor's only size (`floor-journal-append` does not depend on one).
    let base = benchmark.baseline.flatMap { baseline in
        zip(cases, samples).first { $0.0.name == baseline && $0.0.size == benchmark.size }?.1
            ?? zip(cases, samples).first { $0.0.name == baseline }?.1
    }
    return Row(
        name: benchmark.name, size: benchmark.size, value: Measurement.median(rounds),
        ratio: base.map { Measurement.pairedRatio(rounds, to: $0) } ?? 1,
        baseline: base == nil ? nil : benchmark.baseline, rounds: rounds)
}

let memoryKeys = 100_000
if let raw = MemoryCases.bytesPerKey(count: memoryKeys, { intValues(memoryKeys) }),
    let store = MemoryCases.bytesPerKey(count: memoryKeys, { makeStore(size: memoryKeys) })
{
    rows.append(Row(name: "memory-floor", size: memoryKeys, value: raw, ratio: 1))
    rows.append(Row(name: "memory", size: memoryKeys, value: store, ratio: store / raw, baseline: "memory-floor"))
}

PersistenceCases.removeFolders()

let machine = MachineDescription.current
if tabSeparated {
    print(ResultTable.render(rows, tabSeparated: true))
} else {
    print("machine: \(machine)\(plan.operations == Measurement.Plan.quick.operations ? " (quick run)" : "")")
    print(
        "ns/op is the median of \(plan.rounds) rounds, each timing every case in turn; a ratio is the median "
            + "of the rounds' ratios to the case's floor (\"against\") of the same size; memory rows are bytes "
            + "per key.\n")
    print(ResultTable.render(rows, tabSeparated: false))
    print("\ntargets (ratios within this run):")
    print(Targets(rows: rows).report().joined(separator: "\n"))
    if let growth = MemoryCases.growthPerAction(actions: plan.operations * 5) {
        print(
            "  heap growth per handled action over \((plan.operations * 5).formatted()) actions: "
                + String(format: "%.3f bytes", growth))
    }
}
