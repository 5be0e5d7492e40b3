import CacheStore
import Foundation
import Testing

enum ReleaseWhileDeliveringAction: Sendable {
    case start
    case tick(Int)
}

/// The last reference to a store is dropped inside its own handler, while its effect delivers: the
/// store's `deinit` (which cancels its effects) runs inside that handler. No crash, no deadlock,
/// and no tick is handled after the release.
@Suite(.timeLimit(.minutes(2))) struct StoreReleasedWhileDeliveringTests {
    final class Owner: @unchecked Sendable {
        var store: Store<Key, ReleaseWhileDeliveringAction, Owner>?
        let released = AttackBox(false)
        let ticksAfterRelease = AttackBox(0)
        let handled = AttackBox(0)
    }

    static let handler = StoreActionHandler<Key, ReleaseWhileDeliveringAction, Owner> { state, action, owner in
        switch action {
        case .start:
            return .run(id: "ticks") { send in
                for tick in 0..<10_000 where !Task.isCancelled { await send(.tick(tick)) }
            }
        case .tick(let tick):
            if owner.released.value { owner.ticksAfterRelease.value += 1 }
            owner.handled.value += 1
            state.set(value: tick, forKey: .count)
            if tick == 100 {
                owner.store = nil  // the last reference: the store's deinit runs here
                owner.released.value = true
            }
        }
        return .none
    }

    @Test func aStoreReleasedInsideItsOwnHandlerWhileItsEffectDelivers() async {
        let owner = Owner()
        weak var weakStore: Store<Key, ReleaseWhileDeliveringAction, Owner>?
        do {
            let store = Store(initialValues: [:], actionHandler: Self.handler, dependency: owner)
            owner.store = store
            weakStore = store
            store.handle(action: .start)
        }
        #expect(await eventually(timeout: .seconds(30)) { owner.released.value })
        try? await Task.sleep(for: .milliseconds(200))
        #expect(weakStore == nil)
        #expect(owner.ticksAfterRelease.value == 0, "ticks were handled after the store was released")
    }
}
