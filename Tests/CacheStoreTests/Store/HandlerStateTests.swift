import CacheStore
import Foundation
import Observation
import Testing

enum KeepAction: Sendable {
    case keepScope
    case keepState
    case set(Int)
}

/// A handler's state (a `CacheStore`) used outside its action. A scope made over a handler's `inout` state (or
/// the state itself, kept) may be used after the action: it then reads the committed state, and a view
/// observing it is told of later changes, as it is for any other scope of the store's state.
@Suite(.timeLimit(.minutes(2))) struct HandlerStateTests {
    static func makeStore(keeping kept: AttackBox<CacheStore<Key>?>) -> Store<Key, KeepAction, Void> {
        Store(
            initialValues: [.count: 0],
            actionHandler: StoreActionHandler { state, action, _ in
                switch action {
                case .keepScope: kept.value = state.scope(keys: [.count])
                case .keepState: kept.value = state
                case .set(let value): state.set(value: value, forKey: .count)
                }
                return .none
            })
    }

    @Test(arguments: [KeepAction.keepScope, .keepState])
    func observingWhatAHandlerKeptFiresOnLaterActions(keep: KeepAction) {
        let kept = AttackBox<CacheStore<Key>?>(nil)
        let store = Self.makeStore(keeping: kept)
        store.handle(action: keep)
        guard let view = kept.value else {
            Issue.record("the handler kept nothing")
            return
        }
        let fired = AttackBox(0)
        withObservationTracking {
            _ = view.get(.count, as: Int.self)
        } onChange: {
            fired.value += 1
        }
        store.handle(action: .set(1))
        #expect(view.get(.count, as: Int.self) == 1, "the kept \(keep) reads the committed state")
        #expect(fired.value == 1, "an observer of the kept \(keep) was not told that .count changed")
    }
}
