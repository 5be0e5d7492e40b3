import CacheStore
import CacheStoreBenchmarkSupport

/// How one cycle of the effect memory scenarios starts an effect with a new id, and ends it: the
/// scenario named by the raw value runs thousands of them in one store (`CacheStoreMemoryProbe
/// run-cancelled 4000`).
enum EffectCycle: String, CaseIterable {
    case runCancelled = "run-cancelled"
    case concatenationCancelled = "concatenation-cancelled"
    case debounceCancelledWhileWaiting = "debounce-cancelled-while-waiting"
    case throttleCancelledWhileWaiting = "throttle-cancelled-while-waiting"
    case runEnded = "run-ended"
    case throttleEnded = "throttle-ended"
    /// The control: a lone effect waiting in `Task.sleep` for a minute, cancelled. The runtime keeps
    /// each sleep's timer until its deadline, cancelled or not: this one grows, and is why the
    /// composed cycles wait on a ``ParkedClock`` instead.
    case sleepCancelledControl = "sleep-cancelled-control"

    /// The actions of the cycles' store: `start(n)` starts the effect of cycle `n`.
    enum Action: Sendable {
        case start(Int)
        case ended
    }

    /// Whether the cycle cancels its effects by id; the others end on their own.
    var cancels: Bool { self != .runEnded && self != .throttleEnded }

    /// How many of the cycles' effects have begun to wait: to be cancelled, an effect must wait (a
    /// task cancelled before it ran, as under load, would never sleep nor park).
    static let waitsBegun = Counter()

    /// The effect of cycle `number`.
    func effect(_ number: Int) -> ActionEffect<Action> {
        let clock = ParkedClock()
        let long = ActionEffect<Action>.run(id: "r\(number)") { _ in await Self.untilCancelled() }
        switch self {
        case .runCancelled: return long
        case .concatenationCancelled: return .concatenate(id: "c\(number)", long, ActionEffect(.ended))
        case .debounceCancelledWhileWaiting: return long.debounce(id: "c\(number)", for: .seconds(60), clock: clock)
        case .throttleCancelledWhileWaiting:
            // The second waits for the first's interval to end.
            let quick = ActionEffect<Action>(id: "q\(number)") { nil }
            return .merge(
                quick.throttle(id: "c\(number)", for: .seconds(60), clock: clock, latest: true),
                long.throttle(id: "c\(number)", for: .seconds(60), clock: clock, latest: true))
        case .runEnded: return ActionEffect(id: "c\(number)") { nil }
        case .throttleEnded:
            return ActionEffect<Action>(id: "q\(number)") { nil }
                .throttle(id: "c\(number)", for: .microseconds(1), clock: ContinuousClock(), latest: false)
        case .sleepCancelledControl:
            return .run(id: "c\(number)") { _ in
                Self.waitsBegun.add(1)
                try? await Task.sleep(for: .seconds(60))
            }
        }
    }

    /// Suspends until the calling task is cancelled.
    static func untilCancelled() async {
        waitsBegun.add(1)
        while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
    }

    /// What ``measure(count:)`` found.
    struct Report {
        /// The heap's growth per cycle in bytes: the smallest of three runs.
        var growthPerCycle: Int
        /// The sleeps still parked on a ``ParkedClock`` after the runs: effects not cancelled.
        var parked: Int
        /// The effects still running after the runs.
        var running: Int
    }

    /// Runs `count` cycles three times in one store, after a warm-up of 1,000, each run measured
    /// once its effects have ended (waited for, up to 60 s). A cycle that cancels does so once its
    /// effect waits (waited for, up to 10 s).
    func measure(count: Int) async -> Report {
        let store = Store<Int, Action, Void>(
            initialValues: [:],
            actionHandler: StoreActionHandler { _, action, _ in
                guard case .start(let number) = action else { return .none }
                return effect(number)
            })
        var next = 0
        func run(_ cycles: Int) async {
            for number in next..<next + cycles {
                let begun = Self.waitsBegun.value
                store.handle(action: .start(number))
                if cancels {
                    let deadline = ContinuousClock.now + .seconds(10)
                    while Self.waitsBegun.value == begun, ContinuousClock.now < deadline { await Task.yield() }
                    store.cancel(id: "c\(number)")
                    store.cancel(id: "r\(number)")
                }
            }
            next += cycles
            for _ in 0..<1_200 where !store.runningEffectIDs.isEmpty { try? await Task.sleep(for: .milliseconds(50)) }
            try? await Task.sleep(for: .milliseconds(100))  // the cancelled tasks return
        }
        await run(1_000)  // warm-up: arrays and dictionaries reach their size
        var growths: [Int] = []
        for _ in 0..<3 {
            let before = cachestore_allocated_bytes()
            await run(count)
            growths.append(Int(cachestore_allocated_bytes() - before) / count)
        }
        return Report(
            growthPerCycle: growths.min()!, parked: Parking.parked.value,
            running: store.runningEffectIDs.count)
    }
}
