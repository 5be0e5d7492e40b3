import CacheStore
import Foundation
import Testing

/// Review 6's attacks on the newest code: an anonymous effect's id as a name (`ActionEffect.id`,
/// `EffectLifecycle.anonymousTicket`), the effect runner made by a store's first effect, a key's one
/// list of observation subjects, and the user values released outside the `changes` stream's lock.
@Suite struct Review6AttackTests {
    // MARK: An anonymous effect returned more than once

    /// One effect value, made once without an id and returned by every `.start`: its runs share its
    /// anonymous id. Each run sends `.got(run)` once the gate opens, then records that its `send`
    /// returned (a store not on the main actor handles, or drops, a sent action before `send` returns).
    final class SharedEffect: Sendable {
        let gate = Gate()
        let handled = Recorder<String>()
        let sendsReturned = Recorder<String>()
        let effect: ActionEffect<ScriptAction>

        init() {
            let (gate, sendsReturned) = (gate, sendsReturned)
            effect = .run { send in
                await gate.wait()
                send(.got("anonymous"))
                sendsReturned.append("anonymous")
            }
        }

        /// `.start(0)` returns the shared effect; `.start(1)` a new effect given its id.
        func makeStore() -> Store<ScriptKey, ScriptAction, Void> {
            Store(
                initialValues: [:],
                actionHandler: StoreActionHandler { [self] _, action, _ in
                    switch action {
                    case .start(0):
                        return effect
                    case .start:
                        return .run(id: effect.id) { [self] send in
                            await gate.wait()
                            send(.got("given"))
                            sendsReturned.append("given")
                        }
                    case .got(let name):
                        handled.append(name)
                        return .none
                    }
                })
        }

        /// Opens the gate and waits until `runs` sends have returned.
        func finish(runs: Int) async -> Bool {
            gate.open()
            return await eventually { sendsReturned.values.count >= runs }
        }
    }

    /// An effect made once without an id and returned by two actions runs twice under one id (the
    /// docs: "an effect made once and returned later"). `cancel(id:)` with that id returns `true`,
    /// so nothing either run sends may be handled, and nothing may run under the id any more.
    ///
    /// Fails on 1f7936a, every run: the second run keeps running (`runningEffectIDs` still holds the
    /// id) and its action is handled. `EffectLifecycle.cancel` finds an anonymous id's effect by
    /// `anonymousTicket(id)`, which returns the first slot holding the id, and cancels that one only;
    /// and anonymous starts never replace each other (`start` names no anonymous effect), so two
    /// runs of one anonymous id coexist. (A `TestStore` queues the same effect once: its second
    /// `append` replaces the first, as the id is equal.)
    @Test func anAnonymousEffectReturnedTwiceIsCancelledWhole() async {
        let shared = SharedEffect()
        let store = shared.makeStore()
        store.handle(action: .start(0))
        store.handle(action: .start(0))
        let cancelled = store.cancel(id: shared.effect.id)
        #expect(cancelled)
        #expect(store.runningEffectIDs.isEmpty, "still running after cancel(id:) returned true")
        #expect(await shared.finish(runs: 2))
        #expect(shared.handled.values.isEmpty, "delivered after cancel(id:) returned \(cancelled)")
    }

    /// The same two runs, then an effect given their id: it replaces what runs under the id, so only
    /// the new effect's action is handled.
    ///
    /// Fails on 1f7936a, every run: `EffectLifecycle.name` replaces `anonymousTicket(id)`, the first
    /// run only; the second delivers beside the new effect.
    @Test func anEffectGivenAnAnonymousIDReplacesEveryRunOfIt() async {
        let shared = SharedEffect()
        let store = shared.makeStore()
        store.handle(action: .start(0))
        store.handle(action: .start(0))
        store.handle(action: .start(1))
        #expect(store.runningEffectIDs == [shared.effect.id])
        #expect(await shared.finish(runs: 3))
        #expect(shared.handled.values == ["given"])
    }
}
