import CacheStore
import Foundation
import Testing

enum ParentAction: Sendable {
    case fromChild(Int)
}

enum ChildAction: Sendable {
    case start
    case tick(Int)
}

/// Once a scoped store's `cancel(id:)` returned `true`, nothing its effect sends is handled any more:
/// also not by the parent store, which handles the scoped store's actions after its handler.
@Suite(.timeLimit(.minutes(2))) struct ScopedEffectCancelTests {
    @Test func theParentDoesNotHandleACancelledChildEffectsActionAfterCancelReturnedTrue() async {
        let cancelReturnedTrue = AttackBox(false)
        let inChildHandler = DispatchSemaphore(value: 0)
        let lateInParent = AttackBox(0)
        let parent = Store<Key, ParentAction, Void>(
            initialValues: [:],
            actionHandler: StoreActionHandler { _, _, _ in
                // Give the canceller time to return, then see whether it already had.
                let deadline = Date().addingTimeInterval(0.5)
                while !cancelReturnedTrue.value, Date() < deadline { usleep(1_000) }
                if cancelReturnedTrue.value { lateInParent.value += 1 }
                return .none
            })
        let child = parent.scope(
            keys: [.count],
            actionHandler: StoreActionHandler<Key, ChildAction, Void> { state, action, _ in
                switch action {
                case .start:
                    return .run(id: "ticks") { send in await send(.tick(1)) }
                case .tick(let value):
                    state.set(value: value, forKey: .count)
                    inChildHandler.signal()
                    usleep(100_000)  // the canceller calls cancel(id:) now, and waits for this handler
                    return .none
                }
            },
            dependencyTransformation: { _ in () },
            actionTransformation: { action in
                if case .tick(let value) = action { return .fromChild(value) }
                return nil
            })
        await offThePool {
            child.handle(action: .start)
            inChildHandler.wait()
            if child.cancel(id: "ticks") { cancelReturnedTrue.value = true }
        }
        #expect(await eventually(timeout: .seconds(30)) { child.runningEffectIDs.isEmpty })
        try? await Task.sleep(for: .milliseconds(600))
        #expect(cancelReturnedTrue.value, "cancel(id:) of an effect whose action was in hand returned true")
        #expect(lateInParent.value == 0, "the parent handled the cancelled effect's action after cancel returned true")
    }
}
