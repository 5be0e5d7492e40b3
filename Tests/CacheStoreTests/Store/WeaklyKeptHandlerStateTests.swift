import CacheStore
import Foundation
import Testing

enum WeakKeepAction: Sendable {
    case keepWeakly
    case captureWeaklyInEffect
    case writeUncommitted
}

/// A handler may keep its state weakly (a `weak var`, or an effect's `[weak state]` capture). The
/// engine recycles a handler's state for the next action when nothing holds it strongly; a weak
/// holder must then not see the next action's writes before they are committed (another thread
/// reading it while that action runs would read half an action, and race on the transaction).
@Suite(.timeLimit(.minutes(2))) struct WeaklyKeptHandlerStateTests {
    final class WeakHolder: @unchecked Sendable {
        weak var state: CacheStore<Key>?
        let readDuringAction = AttackBox<Int?>(nil)
        let actionRuns = DispatchSemaphore(value: 0)
        let effectRead = DispatchSemaphore(value: 0)
    }

    static let handler = StoreActionHandler<Key, WeakKeepAction, WeakHolder> { state, action, holder in
        switch action {
        case .keepWeakly:
            holder.state = state
        case .captureWeaklyInEffect:
            return .run { [weak state] _ in
                holder.actionRuns.wait()
                holder.readDuringAction.value = state?.get(.count, as: Int.self) ?? -1
                holder.effectRead.signal()
            }
        case .writeUncommitted:
            state.set(value: 99, forKey: .count)
            // Another thread reads what the first action's handler kept, while this action runs.
            if holder.state != nil {
                onAnotherThread { holder.readDuringAction.value = holder.state?.get(.count, as: Int.self) ?? -1 }
            } else {
                holder.actionRuns.signal()
                _ = holder.effectRead.wait(timeout: .now() + 10)
            }
        }
        return .none
    }

    @Test(arguments: [WeakKeepAction.keepWeakly, .captureWeaklyInEffect])
    func aWeaklyKeptStateDoesNotSeeTheNextActionsUncommittedWrites(keep: WeakKeepAction) async {
        let holder = WeakHolder()
        let store = Store(initialValues: [.count: 0], actionHandler: Self.handler, dependency: holder)
        await offThePool {
            store.handle(action: keep)
            store.handle(action: .writeUncommitted)
        }
        let read = holder.readDuringAction.value
        #expect(
            read == nil || read == -1 || read == 0,
            "a state kept by an earlier action read \(read.map(String.init) ?? "nil"): the running action's uncommitted write"
        )
    }
}
