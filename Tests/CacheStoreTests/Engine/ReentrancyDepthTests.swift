import CacheStore
import Observation
import Testing

extension CPUHeavySuites {
    /// Long chains of actions sent from inside the store: no stack overflow, no deadlock, all in order.
    @Suite(.timeLimit(.minutes(10))) struct ReentrancyDepthTests {
        static let depth = 10_000

        @Test func anEffectChainOfTenThousandActions() async {
            let store = Store(initialValues: [:], actionHandler: chainHandler)
            store.handle(action: .asyncChain(remaining: Self.depth))
            #expect(await eventually(timeout: .seconds(120)) { store.get(.count, as: Int.self) == Self.depth })
            #expect(store.get(.other, as: Int.self) == 1)  // the last link
            #expect(!store.contains(.flag))  // no link out of order
        }

        @Test func anImmediateEffectChainIsHandledBeforeHandleReturns() {
            let store = Store(initialValues: [:], actionHandler: chainHandler)
            store.handle(action: .immediateChain(remaining: Self.depth))
            #expect(store.get(.count, as: Int.self) == Self.depth)
            #expect(store.get(.other, as: Int.self) == 1)
            #expect(!store.contains(.flag))
        }

        @Test func anObserverSendingTenThousandActionsToItsOwnStore() {
            let store = Store(initialValues: [.count: 0], actionHandler: chainHandler)
            let observer = ChainObserver(store: store, until: Self.depth)
            store.handle(action: .step(1))
            #expect(store.get(.count, as: Int.self) == Self.depth)
            #expect(observer.sent == Self.depth - 1)
        }
    }
}

enum ChainAction: Sendable {
    case asyncChain(remaining: Int)
    case immediateChain(remaining: Int)
    case step(Int)
}

let chainHandler = StoreActionHandler<Key, ChainAction, Void> { state, action, _ in
    switch action {
    case .asyncChain(let remaining), .immediateChain(let remaining):
        guard remaining > 0 else { return .none }
        state.update(.count, as: Int.self) { $0 = ($0 ?? 0) + 1 }
        // Links must arrive in order: each follows the one numbered one higher.
        if let previous = state.get(.other, as: Int.self), previous != remaining + 1 {
            state.set(value: true, forKey: .flag)
        }
        state.set(value: remaining, forKey: .other)
        if case .asyncChain = action { return ActionEffect { .asyncChain(remaining: remaining - 1) } }
        return ActionEffect(.immediateChain(remaining: remaining - 1))
    case .step(let value):
        state.update(.count, as: Int.self) { count in
            // Steps must arrive in order: each is the count after it.
            count = count.map { $0 + 1 == value ? value : -1 }
        }
    }
    return .none
}

/// Observes `.count`; each time it changes, sends the next step from inside the observer callback.
final class ChainObserver: @unchecked Sendable {
    private let store: Store<Key, ChainAction, Void>
    private let limit: Int
    private(set) var sent = 0

    init(store: Store<Key, ChainAction, Void>, until limit: Int) {
        self.store = store
        self.limit = limit
        observe()
    }

    private func observe() {
        withObservationTracking {
            _ = store.get(.count, as: Int.self)
        } onChange: { [self] in
            // onChange runs during the write; the action it sends is queued, handled after it.
            let next = (store.get(.count, as: Int.self) ?? 0) + 1
            guard next <= limit else { return }
            sent += 1
            store.handle(action: .step(next))
            observe()
        }
    }
}
