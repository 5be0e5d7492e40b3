// Measures how much the heap grows while a cache goes through one scenario, in a process of its own:
// the engine's memory tests (Tests/CacheStoreTests/Memory) run it, so that other tests running at the
// same time cannot disturb the figure (they move the heap by tens of megabytes during a measurement).
//
//   CacheStoreMemoryProbe SCENARIO COUNT
//
// prints the bytes the heap grew by over COUNT keys (or effects), after a warm-up of 1,000 others; the
// `changes-unconsumed` scenario prints on a second line whether the iterator still received a change
// made afterwards. The effect cycles (`EffectCycle`, e.g. `run-cancelled`) print the growth per cycle,
// then `parked N` and `running N`: the sleeps still parked and the effects still running at the end.
import CacheStore
import CacheStoreBenchmarkSupport
import Foundation
import Observation

/// A key whose name lives on the heap (longer than a small string), so that keeping keys shows.
struct NamedKey: Hashable, Sendable {
    let name: String

    init(_ index: Int) {
        name = "memory-probe-key-with-a-heap-allocated-name-\(index)"
    }
}

/// The heap's growth in bytes while `step` runs for `count` indexes, after a warm-up of `warmUp`
/// (a scenario whose steady state keeps a bounded amount warms up past it).
func heapGrowth(count: Int, warmUp: Int = 1_000, _ step: (Int) -> Void) -> Int {
    for index in -warmUp..<0 { step(index) }
    let before = cachestore_allocated_bytes()
    for index in 0..<count { step(index) }
    return Int(cachestore_allocated_bytes() - before)
}

/// A journal of the ten keys `tenKeyStore()` writes, in `file`.
func tenKeyJournal(_ file: URL, window: JournalWindow) -> Journal<Int, Int> {
    (0..<10).reduce(Journal<Int, Int>(file: file, window: window)) { $0.recording(TypedKey<Int, Int>($1, default: 0)) }
}

/// A store whose action `value` writes `value` to the key `value % 10`.
func tenKeyStore() -> Store<Int, Int, Void> {
    Store(
        initialValues: [:],
        actionHandler: StoreActionHandler { state, value, _ in
            state.set(value: value, forKey: value % 10)
            return .none
        })
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2, let count = Int(arguments[1]), count > 0, cachestore_allocated_bytes() >= 0 else {
    FileHandle.standardError.write(
        Data(
            """
            usage: CacheStoreMemoryProbe SCENARIO COUNT (on a platform whose heap can be measured)
            scenarios: keys-set-read-removed, contains-absent, changes-unconsumed, effects-started-cancelled,
            observed-scopes-released, scope-observes-new-keys, store-scope-observes-new-keys,
            journal-window, journal-jump, retain-each, \(EffectCycle.allCases.map(\.rawValue).joined(separator: ", "))

            """.utf8))
    exit(64)
}

let cache = CacheStore<NamedKey>(initialValues: [:])
switch arguments[0] {
case "keys-set-read-removed":
    print(
        heapGrowth(count: count) { index in
            let key = NamedKey(index)
            cache.set(value: index, forKey: key)
            _ = cache.get(key, as: Int.self)
            _ = cache.contains(key)
            cache.remove(key)
        })
case "contains-absent":
    print(heapGrowth(count: count) { index in _ = cache.contains(NamedKey(index)) })
case "changes-unconsumed":
    var iterator = cache.changes.makeAsyncIterator()
    print(
        heapGrowth(count: count) { index in
            let key = NamedKey(index)
            cache.set(value: index, forKey: key)
            cache.remove(key)
        })
    cache.set(value: 1, forKey: NamedKey(-1_001))
    print(await iterator.next()?.contains(NamedKey(-1_001)) == true)
case "effects-started-cancelled":
    // COUNT effects with distinct ids running at once, then each cancelled, after a warm-up of 1,000:
    // the heap's growth once their tasks have ended on the pool (waited for until it is within the
    // test's bound, 16 bytes an effect, up to two minutes: a loaded machine needed more than 30 s once).
    let store = Store<Int, Int, Void>(
        initialValues: [:],
        actionHandler: StoreActionHandler { _, id, _ in
            ActionEffect(id: id) {
                // Waits until cancelled. (Not `Task.sleep`: on Linux, a cancelled sleep's timer stays
                // with Dispatch until it was due, about 750 bytes each.)
                let (stream, continuation) = AsyncStream.makeStream(of: Never.self)
                for await _ in stream {}
                withExtendedLifetime(continuation) {}
                return nil
            }
        },
        dependency: ())
    func startAndCancel(_ ids: Range<Int>) {
        for id in ids { store.handle(action: id) }
        for id in ids { store.cancel(id: id) }
    }
    startAndCancel(-1_000..<0)
    try? await Task.sleep(for: .milliseconds(200))
    let before = cachestore_allocated_bytes()
    startAndCancel(0..<count)
    for _ in 0..<2_400 where cachestore_allocated_bytes() - before > count * 16 {
        try? await Task.sleep(for: .milliseconds(50))
    }
    print(Int(cachestore_allocated_bytes() - before))
case "observed-scopes-released":
    // A row's scoped store over one key that never changes, read by an observer, then released: as a
    // list view makes and drops rows.
    let key = NamedKey(0)
    let store = Store<NamedKey, Void, Void>(initialValues: [key: 0], actionHandler: .none)
    print(
        heapGrowth(count: count) { _ in
            let row = store.actionlessScope(
                keyTransformation: (from: { $0 == key ? 0 : nil }, to: { $0 == 0 ? key : nil }))
            withObservationTracking({ _ = row.get(0, as: Int.self) }, onChange: {})
        })
case "scope-observes-new-keys":
    // A scope that lives throughout, over a cache whose keys come and go: each key is set in the
    // parent, read through the scope inside `withObservationTracking`, then removed from the parent.
    // The warm-up goes past the steady state: the empty slots a core keeps before it drops them (1,024),
    // and the subjects the scope keeps before it forgets those dropped.
    let scope = cache.scope(keyTransformation: (from: { $0 }, to: { $0 }))
    print(
        heapGrowth(count: count, warmUp: 10_000) { index in
            let key = NamedKey(index)
            cache.set(value: index, forKey: key)
            withObservationTracking({ _ = scope.get(key, as: Int.self) }, onChange: {})
            cache.remove(key)
        })
case "store-scope-observes-new-keys":
    // The same with a store: a scoped store that lives throughout, its parent store setting and
    // removing each key through actions.
    let store = Store<NamedKey, (NamedKey, Int?), Void>(
        initialValues: [:],
        actionHandler: StoreActionHandler { state, action, _ in
            let (key, value) = action
            if let value { state.set(value: value, forKey: key) } else { state.remove(key) }
            return .none
        })
    let scope = store.actionlessScope(keyTransformation: (from: { $0 }, to: { $0 }))
    print(
        heapGrowth(count: count, warmUp: 10_000) { index in
            let key = NamedKey(index)
            store.handle(action: (key, index))
            withObservationTracking({ _ = scope.get(key, as: Int.self) }, onChange: {})
            store.handle(action: (key, nil))
        })
case "journal-window":
    // A store recording a journal with a window of 10,000 actions: the heap in use after 10,000
    // actions, then its growth over COUNT more; then the journal's bytes (its records, without the
    // zeros reserved past them) at both points.
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("CacheStoreMemoryProbe-\(getpid())")
    defer { try? FileManager.default.removeItem(at: file) }
    let journal = tenKeyJournal(file, window: .actions(10_000))
    let store = tenKeyStore()
    let recorder = try! store.startRecording(journal)
    func recordedBytes() -> Int {
        let recorded = try! RecordedJournal(contentsOf: file, journal: journal)
        return recorded.recordedBytes
    }
    // Values of seven digits throughout, so that every record has the same size.
    for index in 0..<10_000 { store.handle(action: 1_000_000 + index) }
    let inUse = cachestore_allocated_bytes()
    let bytesAfterWindow = recordedBytes()
    print(
        heapGrowth(count: count, warmUp: 0) { index in store.handle(action: 1_000_000 + (10_000 + index) % 1_000_000) })
    print("in use \(inUse)")
    print("journal \(bytesAfterWindow) \(recordedBytes())")
    withExtendedLifetime(recorder) {}
case "journal-jump":
    // A journal of COUNT actions over 10 keys, a checkpoint every 1,000: the heap a reader of it holds
    // after 100 jumps to steps all over it, while it holds one of the states it jumped to; then the
    // number of checkpoints.
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("CacheStoreMemoryProbe-\(getpid())")
    defer { try? FileManager.default.removeItem(at: file) }
    let journal = tenKeyJournal(file, window: .unbounded)
    do {
        let store = tenKeyStore()
        let recorder = try! store.startRecording(journal)
        for index in 0..<count { store.handle(action: index) }
        recorder.stop()
    }
    let before = cachestore_allocated_bytes()
    let recorded = try! RecordedJournal(contentsOf: file, journal: journal)
    var state: [Int: Any] = [:]
    for jump in 0..<100 { state = try! recorded.state(at: (jump &* 7_919) % (count + 1)) }
    print(Int(cachestore_allocated_bytes() - before))
    print("checkpoints \(count / 1_000 + 1)")
    withExtendedLifetime((recorded, state)) {}
case "retain-each":
    // The probe's own check: 100 bytes kept per key must show as at least that.
    var kept: [[UInt8]] = []
    print(heapGrowth(count: count) { _ in kept.append([UInt8](repeating: 1, count: 100)) })
default:
    guard let cycle = EffectCycle(rawValue: arguments[0]) else {
        FileHandle.standardError.write(Data("unknown scenario \(arguments[0])\n".utf8))
        exit(64)
    }
    let report = await cycle.measure(count: count)
    print(report.growthPerCycle)
    print("parked \(report.parked)")
    print("running \(report.running)")
}
