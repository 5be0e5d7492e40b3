import CacheStore
import Foundation
import Testing

enum TickAction: Sendable {
    /// Start a `.run` effect with id `run` that sends `.tick(run)` until cancelled.
    case startTicking(run: Int)
    case tick(run: Int)
}

/// How many ticks of each run the handler began handling, counted as the handler is entered.
final class TickTally: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [Int: Int] = [:]

    func count(_ run: Int) {
        lock.lock()
        counts[run, default: 0] += 1
        lock.unlock()
    }

    func ticks(of run: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return counts[run] ?? 0
    }
}

let tickHandler = StoreActionHandler<Key, TickAction, TickTally> { state, action, tally in
    switch action {
    case .startTicking(let run):
        return .run(id: run) { send in
            while !Task.isCancelled { await send(.tick(run: run)) }
        }
    case .tick(let run):
        tally.count(run)
        state.set(value: run, forKey: .count)
        return .none
    }
}

/// Once `cancel(id:)` returned `true`, nothing the cancelled `.run` effect sends is handled any
/// more (issue 11, break 6). The window is narrow, so the test cancels many running effects, each
/// at a moment it is sending, for at most a few seconds.
@Suite(.timeLimit(.minutes(2))) struct CancelledRunEffectTests {
    static let maximumRuns = 20_000
    /// Runs stop after this long once `enoughRuns` were cancelled while sending ...
    static let timeBudget = Duration.seconds(3)
    static let enoughRuns = 200
    /// ... or after this long in any case, for a machine so loaded that effects start slowly (under
    /// ThreadSanitizer on 2 cores, the whole run has stalled for 30 s at its start).
    static let timeLimit = Duration.seconds(120)

    @Test func aCancelledRunEffectDeliversNothingAfterCancelReturnedTrue() async {
        let tally = TickTally()
        let store = Store(initialValues: [:], actionHandler: tickHandler, dependency: tally)
        // The handled count of each run when its cancel(id:) returned true.
        let countsAtCancel = await offThePool { () -> [Int: Int] in
            var countsAtCancel: [Int: Int] = [:]
            let start = ContinuousClock.now
            func mayGoOn() -> Bool {
                let elapsed = ContinuousClock.now - start
                return elapsed < Self.timeLimit && (elapsed < Self.timeBudget || countsAtCancel.count < Self.enoughRuns)
            }
            for run in 0..<Self.maximumRuns where mayGoOn() {
                store.handle(action: .startTicking(run: run))
                // Cancel while the effect is sending: after its first tick was handled.
                while tally.ticks(of: run) == 0, mayGoOn() { sched_yield() }
                if store.cancel(id: run), tally.ticks(of: run) > 0 { countsAtCancel[run] = tally.ticks(of: run) }
            }
            return countsAtCancel
        }
        #expect(await eventually { store.runningEffectIDs.isEmpty })
        try? await Task.sleep(for: .milliseconds(100))  // a late delivery lands by now
        let lateRuns = countsAtCancel.filter { run, countAtCancel in tally.ticks(of: run) > countAtCancel }.count
        #expect(
            countsAtCancel.count >= Self.enoughRuns, "enough runs were cancelled while sending to catch a late delivery"
        )
        #expect(
            lateRuns == 0,
            "\(lateRuns) of \(countsAtCancel.count) cancelled runs had a tick handled after cancel(id:) returned true")
    }
}
