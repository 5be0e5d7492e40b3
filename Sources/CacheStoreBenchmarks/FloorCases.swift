import CacheStore
import Dispatch
import Observation

/// The true floors of the paths a UI app lives on: what Swift itself costs for the same work, with no
/// store in between. Each mirrors one case of ``UIPathCases`` (or an existing case) exactly, so the
/// ratio between them is what the library adds.
///
/// | floor | mirrors | what the floor does |
/// | --- | --- | --- |
/// | `floor-observed-write` | `store-handle-observed-same` | writes an `@Observable` property whose observer fires and registers again |
/// | `floor-task-roundtrip` | `effect-roundtrip` | a `Task` returns a value, handled back under a lock, which starts the next |
/// | `floor-scope-create` | `scope-create` | makes an `@Observable` row object and registers an observer on it |
/// | `floor-row-write` | `row-write` | writes one of `size` observed `@Observable` rows |
enum FloorCases {
    /// One `@Observable` property written `operations / 10` times, observed by an observer that
    /// registers again each time it fires, as a SwiftUI view's would.
    static func observedWrite(size: Int, operations: Int) -> BenchmarkCase {
        let row = ObservableRow(value: 0)
        observe(row, reRegistering: true)
        return BenchmarkCase("floor-observed-write", size: size, baseline: nil, operations: operations / 10) { index in
            row.value = index
        }
    }

    /// A chain of `count` round trips: a `Task` computes the next value, which is handled back under a
    /// lock, and starts the next `Task`; per round trip.
    static func taskRoundTrip(count: Int) -> BenchmarkCase {
        let finished = DispatchSemaphore(value: 0)
        let chain = TaskChain(finished: finished)
        return BenchmarkCase("floor-task-roundtrip", size: 10, baseline: nil, operations: count) {
            chain.step(remaining: count)
            finished.wait()
        }
    }

    /// Makes a row object and registers an observer on it, then lets both go; per row.
    static func scopeCreate(size: Int, operations: Int) -> BenchmarkCase {
        BenchmarkCase("floor-scope-create", size: size, baseline: nil, operations: operations / 10) { index in
            let row = ObservableRow(value: index)
            observe(row, reRegistering: false)
            blackHole(row)
        }
    }

    /// `size` observed rows; each operation writes one of them, in scattered order (as a list's
    /// updates come), and its observer registers again.
    static func rowWrite(size: Int, operations: Int) -> BenchmarkCase {
        let rows = (0..<size).map { ObservableRow(value: $0) }
        for row in rows { observe(row, reRegistering: true) }
        let serial = SerialNumbers()
        return BenchmarkCase("floor-row-write", size: size, baseline: nil, operations: operations / 10) { index in
            rows[scattered(index, size)].value = serial.next()
        }
    }
}

/// A number never returned before: what a row case writes, so that every write changes the row.
/// (An `@Observable` property's setter tells no one when the new value equals the old one, so writing
/// `index` again in the next round would measure writes that notify nobody.)
final class SerialNumbers {
    private var last = 0

    func next() -> Int {
        last += 1
        return last
    }
}

/// Row `index` of `size` rows in an order that visits them all but not in sequence: consecutive
/// operations touch rows far apart in memory, as updates to a long list do. Used by the row cases
/// and their floor alike.
func scattered(_ index: Int, _ size: Int) -> Int {
    (index &* 7_919) % size
}

/// The floor's row: one stored property, observed the Observation framework's way.
@Observable
final class ObservableRow: @unchecked Sendable {
    var value: Int

    init(value: Int) {
        self.value = value
    }
}

/// Registers an observer of `row`'s value; one `reRegistering` registers again each time it fires.
///
/// The observer that does not register again captures nothing: capturing `row` would make a cycle
/// (row, its registrar, the observer, row) that keeps every row `floor-scope-create` makes, where
/// `scope-create`'s row store is freed. The one that does captures only `row`, as the store cases'
/// observers capture only their store.
private func observe(_ row: ObservableRow, reRegistering: Bool) {
    guard reRegistering else { return withObservationTracking({ blackHole(row.value) }, onChange: {}) }
    withObservationTracking({ blackHole(row.value) }, onChange: { observe(row, reRegistering: true) })
}

/// The floor's effect chain: values come back from tasks and are handled under a lock.
private final class TaskChain: @unchecked Sendable {
    private let lock = Lock()
    private var handled = 0
    private let finished: DispatchSemaphore

    init(finished: DispatchSemaphore) {
        self.finished = finished
    }

    /// Handles one value under the lock, then starts the task that computes the next.
    func step(remaining: Int) {
        lock.withLock { handled += 1 }
        guard remaining > 0 else {
            finished.signal()
            return
        }
        Task { self.step(remaining: await Self.next(after: remaining)) }
    }

    private static func next(after remaining: Int) async -> Int {
        remaining - 1
    }
}
