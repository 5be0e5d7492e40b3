import CacheStore
import Foundation
import Observation
import Testing

// The examples of the Threading article (Documentation.docc/Threading.md).

nonisolated enum TallyKey { case count, changes }
enum TallyAction { case increment, recordChange }

typealias TallyHandler = StoreActionHandler<TallyKey, TallyAction, Void>

let tallyHandler = TallyHandler { state, action, _ in
    switch action {
    case .increment:
        state.update(.count, as: Int.self) { count in count = (count ?? 0) + 1 }
    case .recordChange:
        state.update(.changes, as: Int.self) { changes in
            changes = (changes ?? 0) + 1
        }
    }
    return .none
}

@Suite(.timeLimit(.minutes(2))) struct ThreadingExamples {
    @Test func actionsFromManyTasksAreHandledOneAtATime() async {
        let tally = Store(
            initialValues: [.count: 0, .changes: 0], actionHandler: tallyHandler)

        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<1_000 {
                group.addTask { tally.handle(action: .increment) }
            }
        }
        let total = tally.get(.count, as: Int.self)  // 1,000
        #expect(total == 1_000)

        withObservationTracking {
            _ = tally.get(.count, as: Int.self)
        } onChange: {
            tally.handle(action: .recordChange)  // queued, handled after .increment
        }
        tally.handle(action: .increment)
        let changes = tally.get(.changes, as: Int.self)  // 1: handled already
        #expect(changes == 1)
        #expect(tally.get(.count, as: Int.self) == 1_001)
    }
}

nonisolated enum PingKey { case received }
enum PingAction { case start, ping }

final class Peer: Sendable {
    let store: Store<PingKey, PingAction, Void>
    init(other: @escaping @Sendable () -> Peer?) {
        store = Store(
            initialValues: [.received: 0],
            actionHandler: StoreActionHandler { state, action, _ in
                switch action {
                case .start:
                    other()?.store.handle(action: .ping)  // never deadlocks
                case .ping:
                    let received = state.get(.received, as: Int.self) ?? 0
                    state.set(value: received + 1, forKey: .received)
                }
                return .none
            }
        )
    }
}

@Suite(.timeLimit(.minutes(2))) struct StoresThatSendToEachOther {
    /// Both peers start on two threads at once, many times: every ping arrives, none deadlocks.
    @Test func peersThatPingEachOtherFromTwoThreadsNeverDeadlock() async {
        let peers = PeerPair()
        let rounds = 2_000
        // Two threads of their own: sends that wait must not hold the concurrency pool's threads.
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for peer in [peers.first, peers.second] {
                group.enter()
                Thread {
                    for _ in 0..<rounds { peer.store.handle(action: .start) }
                    group.leave()
                }
                .start()
            }
            group.notify(queue: .global()) { finished.resume() }
        }
        #expect(peers.first.store.get(.received, as: Int.self) == rounds)
        #expect(peers.second.store.get(.received, as: Int.self) == rounds)
    }
}

/// Two peers that know each other.
final class PeerPair: Sendable {
    let first: Peer
    let second: Peer

    init() {
        let box = PeerBox()
        first = Peer(other: { box.second })
        second = Peer(other: { box.first })
        box.first = first
        box.second = second
    }
}

/// Holds the peers weakly, so each can name the other before both exist.
nonisolated final class PeerBox: @unchecked Sendable {
    weak var first: Peer?
    weak var second: Peer?
}
