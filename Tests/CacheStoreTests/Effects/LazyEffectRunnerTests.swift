import CacheStore
import Dispatch
import Foundation
import Testing

/// A store makes its effect runner with its first effect: one that never starts an effect has none,
/// and releasing it still cancels every effect it starts afterwards.
@Suite(.timeLimit(.minutes(2))) struct LazyEffectRunnerTests {
    enum Action: Sendable {
        case start
        case done
    }

    static func handler(recording delivered: Recorder<Action>) -> StoreActionHandler<Key, Action, Void> {
        StoreActionHandler { _, action, _ in
            switch action {
            case .start: return ActionEffect(id: "effect") { .done }
            case .done: delivered.append(.done)
            }
            return .none
        }
    }

    /// A main-actor store's action sent from another thread is handled later, on the main queue: the
    /// store is released before that action starts its first effect, so the runner is made after the
    /// release, and must be closed as it is made.
    @Test func anEffectStartedAfterItsStoreWasReleasedNeverDelivers() async {
        let delivered = Recorder<Action>()
        let handler = Self.handler(recording: delivered)
        for _ in 0..<20 {
            let released = WeakStore()
            await offThePool {
                let mainIsBusy = DispatchSemaphore(value: 0)
                let mainMayGoOn = DispatchSemaphore(value: 0)
                DispatchQueue.main.async {
                    mainIsBusy.signal()
                    mainMayGoOn.wait()
                }
                mainIsBusy.wait()
                do {
                    let store = Store(initialValues: [:], actionHandler: handler, isolation: .mainActor)
                    released.store = store
                    store.handle(action: .start)  // queued for the main queue, which is busy
                }
                mainMayGoOn.signal()
            }
            await MainActor.run {}  // the queued start has been handled
            #expect(await eventually(timeout: .seconds(30)) { released.store == nil })
        }
        try? await Task.sleep(for: .milliseconds(50))
        #expect(delivered.values.isEmpty, "\(delivered.values.count) effects of released stores delivered")
    }

    final class WeakStore: @unchecked Sendable {
        weak var store: Store<Key, Action, Void>?
    }

    @Test func aStoreThatNeverStartedAnEffectHasNoneToCancel() {
        let store = Store(initialValues: [:], actionHandler: Self.handler(recording: Recorder()))
        #expect(store.runningEffectIDs.isEmpty)
        #expect(store.cancel(id: "effect") == false)
    }

    @Test func aStoresFirstEffectRunsAndCanBeCancelled() async {
        let gate = Gate()
        let delivered = Recorder<Action>()
        let handler = StoreActionHandler<Key, Action, Void> { _, action, _ in
            switch action {
            case .start:
                return ActionEffect(id: "effect") {
                    await gate.wait()
                    return .done
                }
            case .done: delivered.append(.done)
            }
            return .none
        }
        let store = Store(initialValues: [:], actionHandler: handler)
        store.handle(action: .start)
        #expect(store.runningEffectIDs == ["effect"])
        #expect(store.cancel(id: "effect"))
        gate.open()
        try? await Task.sleep(for: .milliseconds(50))
        #expect(delivered.values.isEmpty)
        #expect(store.runningEffectIDs.isEmpty)
    }
}
