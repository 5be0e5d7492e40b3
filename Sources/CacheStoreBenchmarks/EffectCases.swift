import CacheStore
import Dispatch

/// Effects: the round trip from an action through its effect back to the store, and cancellation.
enum EffectCases {
    /// `handle` → an async effect → its action handled, which starts the next round trip: a chain of
    /// `count` round trips, per round trip. The chain runs on the concurrency pool; the benchmark's
    /// thread waits once per chain, so its wake-up is not counted in every round trip.
    static func roundTrip(count: Int) -> BenchmarkCase {
        let finished = DispatchSemaphore(value: 0)
        let store = makeStore(size: 10, dependency: BenchDependency(roundTripFinished: { finished.signal() }))
        return BenchmarkCase("effect-roundtrip", size: 10, baseline: "floor-task-roundtrip", operations: count) {
            store.handle(action: .roundTrip(remaining: count))
            finished.wait()
        }
    }

    /// Starts `count` effects with distinct ids, then cancels each by id; per start-and-cancel.
    static func startAndCancel(count: Int) -> BenchmarkCase {
        let store = makeStore(size: 10)
        return BenchmarkCase("effect-cancel", size: count, operations: count) {
            for id in 0..<count { store.handle(action: .startLong(id: id)) }
            for id in 0..<count { store.cancel(id: id) }
        }
    }
}
