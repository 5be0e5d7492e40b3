import CacheStore
import Dispatch
import Foundation
import Testing

enum ReleaseWhileDeliveringAction: Sendable {
    case start
    case tick(Int)
}

/// An effect's life in its store: it starts in the turn of the action that returned it, and gets its task
/// once that turn ends; its store makes its effect runner with its first effect; and the store may be
/// released at any instant of it (while the effect starts, runs or delivers) with nothing delivered
/// afterwards, nothing crashing, and the store freed.
@Suite(.timeLimit(.minutes(2))) struct EffectLifecycleTests {
    // MARK: - The task of an effect started in an idle turn

    // An effect started in an idle turn gets its task only once the turn ends (`StoreEngine.inIdleTurn`):
    // what the rest of that turn does to the effect, before its task exists, must hold as it does for a
    // running effect. Each test has a twin without the interfering action, which delivers: so the test
    // sees the effect start, and fails if the interference is lost.

    /// `.start(0)` starts an effect with id `"x"` that sends `.got("first")`, then handles `.start(1)`
    /// in the same turn (an immediate action is queued behind the current one); `.start(1)` returns
    /// `interference`.
    private func script(interference: ActionEffect<ScriptAction>?) -> EffectScript {
        EffectScript { number in
            guard number == 0 else { return interference }
            return .merge(ActionEffect(id: "x") { .got("first") }, ActionEffect(.start(1)))
        }
    }

    /// Runs `script` from an idle store, waits until no effect runs, then a little longer for a late
    /// delivery; returns what the handler got.
    private func run(_ script: EffectScript) async -> [String] {
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(await eventually { store.runningEffectIDs.isEmpty })
        try? await Task.sleep(for: .milliseconds(50))
        return script.log.values
    }

    @Test func anEffectCancelledInTheTurnThatStartedItDeliversNothing() async {
        #expect(await run(script(interference: nil)) == ["first"])
        #expect(await run(script(interference: .cancel(id: "x"))) == [])
    }

    @Test func anEffectReplacedInTheTurnThatStartedItDeliversOnlyTheNewOne() async {
        let replacement = ActionEffect<ScriptAction>(id: "x") { .got("second") }
        #expect(await run(script(interference: nil)) == ["first"])
        #expect(await run(script(interference: replacement)) == ["second"])
    }

    /// Many in a row, as a chain's effects come: each effect's action starts the next, and the ends
    /// come back on whichever thread ran the task; every action is handled once, in order.
    @Test func aChainOfEffectsDeliversEveryActionOnceInOrder() async {
        let length = 2_000
        let script = EffectScript(
            reaction: { name in
                guard let step = Int(name), step < length else { return nil }
                return ActionEffect { .got("\(step + 1)") }
            },
            effect: { _ in ActionEffect { .got("1") } })
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(await eventually { script.log.values.count == length && store.runningEffectIDs.isEmpty })
        #expect(script.log.values == (1...length).map(String.init))
    }

    // MARK: - The effect runner, made with the first effect

    // A store makes its effect runner with its first effect: one that never starts an effect has none,
    // and releasing it still cancels every effect it starts afterwards.

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

    // MARK: - The store released while its effect delivers

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
