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

    /// An effect's send into a store whose turn another thread holds: the effect suspends, the
    /// handling thread handles its action and resumes it; per send. The benchmark's thread handles
    /// `.hold`, whose handler waits until the effect's send is queued behind it; the effect sends only
    /// once that handler runs, so every send finds the turn held.
    static func sendBusy(count: Int) -> BenchmarkCase {
        let holding = AtomicFlag()
        let finished = DispatchSemaphore(value: 0)
        let box = StoreBox()
        let store = Store<Int, BusyAction, Void>(
            initialValues: [:],
            actionHandler: StoreActionHandler { _, action, _ in
                switch action {
                case .start:
                    return .run { send in
                        for _ in 0..<count {
                            while !holding.isSet {}
                            await send(.step)
                        }
                        finished.signal()
                    }
                case .hold:
                    holding.set(true)
                    while box.store?.hasQueuedWork != true {}
                    holding.set(false)
                    return .none
                case .step:
                    return .none
                }
            })
        box.store = store
        return BenchmarkCase("effect-send-busy", size: 10, baseline: "floor-task-roundtrip", operations: count) {
            store.handle(action: .start)
            for _ in 0..<count { store.handle(action: .hold) }
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

enum BusyAction: Sendable {
    case start, hold, step
}

/// The store of ``EffectCases/sendBusy(count:)``, for its own handler to look at.
final class StoreBox: @unchecked Sendable {
    var store: Store<Int, BusyAction, Void>?
}

/// A flag set and read from two threads.
final class AtomicFlag: Sendable {
    private let word = AtomicWord(0)

    var isSet: Bool { word.load() != 0 }

    func set(_ value: Bool) {
        word.store(value ? 1 : 0)
    }
}
