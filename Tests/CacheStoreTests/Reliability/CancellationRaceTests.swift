import CacheStore
import Foundation
import Testing

extension CPUHeavySuites {
    /// Start-then-cancel races across threads: a cancelled effect never delivers, and an effect that
    /// reuses an id never gets cancelled by the cleanup of the one it replaced.
    @Suite(.timeLimit(.minutes(10))) struct CancellationRaceTests {
        static let threads = 4
        static let cyclesPerThread = 2_500

        @Test func aCancelledEffectNeverDelivers() async {
            let deliveries = LockedSet()
            let store = Store(initialValues: [:], actionHandler: raceHandler, dependency: deliveries)
            let cancelled = LockedSet()
            await offThePool {
                onThreads(Self.threads) { thread in
                    for cycle in 0..<Self.cyclesPerThread {
                        let id = RaceID(thread: thread, cycle: cycle, token: 0)
                        store.handle(action: .start(id, gate: nil))
                        if store.cancel(id: id.effectID) { cancelled.insert(id) }
                    }
                }
            }
            #expect(await eventually(timeout: .seconds(30)) { store.runningEffectIDs.isEmpty })
            try? await Task.sleep(for: .milliseconds(50))  // any late delivery would land by now
            #expect(cancelled.count + deliveries.count == Self.threads * Self.cyclesPerThread)
            #expect(cancelled.values.isDisjoint(with: deliveries.values))
        }

        @Test func reusingAnIDNeverCancelsTheNewerEffect() async {
            let deliveries = LockedSet()
            let store = Store(initialValues: [:], actionHandler: raceHandler, dependency: deliveries)
            await offThePool {
                onThreads(Self.threads) { thread in
                    for cycle in 0..<Self.cyclesPerThread {
                        let gate = Gate()
                        // The older effect waits for the gate, which opens only once the newer one
                        // started: it always finishes after being replaced, so its clean-up comes after.
                        store.handle(action: .start(RaceID(thread: thread, cycle: cycle, token: 1), gate: gate))
                        store.handle(action: .start(RaceID(thread: thread, cycle: cycle, token: 2), gate: nil))
                        gate.open()
                    }
                }
            }
            #expect(await eventually(timeout: .seconds(30)) { deliveries.count == Self.threads * Self.cyclesPerThread })
            #expect(await eventually(timeout: .seconds(30)) { store.runningEffectIDs.isEmpty })
            #expect(deliveries.values.allSatisfy { $0.token == 2 })
        }
    }
}

/// One effect start: its cycle, and which start under the same id it is.
struct RaceID: Hashable, Sendable {
    var thread: Int
    var cycle: Int
    var token: Int

    /// The effect id: the same for every token of a cycle.
    var effectID: AnyHashable { AnyHashable([thread, cycle]) }
}

enum RaceAction: Sendable {
    case start(RaceID, gate: Gate?)
    case delivered(RaceID)
}

let raceHandler = StoreActionHandler<Int, RaceAction, LockedSet> { _, action, deliveries in
    switch action {
    case .start(let id, let gate):
        return ActionEffect(id: id.effectID) {
            if let gate { await gate.wait() } else { await Task.yield() }
            return .delivered(id)
        }
    case .delivered(let id):
        deliveries.insert(id)
        return .none
    }
}

final class LockedSet: @unchecked Sendable {
    private let lock = NSLock()
    private var set: Set<RaceID> = []

    func insert(_ id: RaceID) { _ = lock.withLock { set.insert(id) } }
    var values: Set<RaceID> { lock.withLock { set } }
    var count: Int { lock.withLock { set.count } }
}
