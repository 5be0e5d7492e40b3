import CacheStore
import Foundation
import Testing

enum RingAction: Sendable {
    case passOn
    case received
}

/// Three stores whose handlers send to the next store in a ring, from three threads at once, many
/// times: no deadlock (the wait graph finds cycles of three), and every sent action is handled.
@Suite(.timeLimit(.minutes(2))) struct StoreRingTests {
    final class Ring: @unchecked Sendable {
        var stores: [Store<Key, RingAction, Int>] = []
    }

    @Test func threeStoresSendingAroundARingFromThreeThreads() async {
        let rounds = 2_000
        let ring = Ring()
        let handler = StoreActionHandler<Key, RingAction, Int> { state, action, position in
            switch action {
            case .passOn: ring.stores[(position + 1) % 3].handle(action: .received)
            case .received: state.update(.count, as: Int.self) { count in count = (count ?? 0) + 1 }
            }
            return .none
        }
        ring.stores = (0..<3).map { position in
            Store(initialValues: [.count: 0], actionHandler: handler, dependency: position)
        }
        let finished = await expectFinishes("three stores sending around a ring", within: 30) {
            onThreads(3) { position in
                for _ in 0..<rounds { ring.stores[position].handle(action: .passOn) }
            }
        }
        guard finished else { return }
        #expect(await eventually(timeout: .seconds(30)) { ring.stores.allSatisfy { $0.get(.count) == rounds } })
        #expect(ring.stores.map { $0.get(.count, as: Int.self) } == [rounds, rounds, rounds])
    }
}
