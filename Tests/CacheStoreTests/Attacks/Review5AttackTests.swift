import CacheStore
import Foundation
import Testing

/// Review 5's attacks on the newest effect engine: an ending effect's task that takes its tree's
/// idle turn itself, the deferred task of an idle turn's first single effect (its operation and
/// ticket in two variables), and anonymous effects no longer matched by id.
@Suite struct Review5AttackTests {
    static let identity: BiDirectionalTransformation<Key?, Key?> = (from: { $0 }, to: { $0 })

    // MARK: The deferred first task of an idle turn

    enum ChainAction: Sendable {
        case begin(chain: Int, steps: Int)
        case step(chain: Int, left: Int)
    }

    /// A handler whose effects form chains: each step's action starts the chain's next step, under
    /// the chain's id, until none is left. Every step handled is recorded.
    static func chaining(into handled: Recorder<Int>) -> StoreActionHandler<Key, ChainAction, Void> {
        StoreActionHandler { _, action, _ in
            switch action {
            case .begin(let chain, let steps):
                return ActionEffect(id: chain) { .step(chain: chain, left: steps) }
            case .step(let chain, let left):
                handled.append(chain)
                guard left > 0 else { return .none }
                return ActionEffect(id: chain) { .step(chain: chain, left: left - 1) }
            }
        }
    }

    /// Many chains of effects run at once in one store tree (a store and its scoped store): each
    /// step ends in its task's own idle turn (`StoreEngine.endTask`), whose handler starts the next
    /// step, deferred until that turn ends (`inIdleTurn`); threads begin new chains meanwhile. Every
    /// step is handled once, and no effect is left running.
    ///
    /// Fails on 2696b27: `inIdleTurn` reads `deferredTicket` after `queue.endTurn()`, when another
    /// thread may have taken the turn and deferred an effect of its own in the same engine. The
    /// first task is then made with, or attached to, the other effect's ticket: one of the two
    /// effects' actions is dropped as its ticket's second end (a chain stops), the other effect's
    /// ticket is never ended (its id stays in `runningEffectIDs`), and a task is left that no cancel
    /// or release reaches. (At cf616bc both were taken out of the turn's state before it ended.)
    @Test func concurrentEffectChainsOfOneTreeHandleEveryStepOnce() async {
        let (threads, chainsPerThread, steps) = (4, 40, 12)
        let handled = Recorder<Int>()
        let store = Store(initialValues: [:], actionHandler: Self.chaining(into: handled))
        let child = store.scope(keyTransformation: Self.identity, actionHandler: Self.chaining(into: handled))
        await offThePool {
            onThreads(threads) { thread in
                for round in 0..<chainsPerThread {
                    let chain = thread * 1_000 + round
                    if thread.isMultiple(of: 2) {
                        store.handle(action: .begin(chain: chain, steps: steps))
                    } else {
                        child.handle(action: .begin(chain: chain, steps: steps))
                    }
                }
            }
        }
        let expected = threads * chainsPerThread * (steps + 1)
        let isDone = await eventually(timeout: .seconds(120)) {
            handled.values.count >= expected && store.runningEffectIDs.isEmpty && child.runningEffectIDs.isEmpty
        }
        #expect(isDone, "\(handled.values.count) of \(expected) steps handled")
        var counts: [Int: Int] = [:]
        for chain in handled.values { counts[chain, default: 0] += 1 }
        let wrong = counts.filter { $0.value != steps + 1 }
        let chains = threads * chainsPerThread
        #expect(counts.count == chains, "chains that never began: \(chains - counts.count)")
        #expect(wrong.isEmpty, "chains whose steps were not each handled once: \(wrong)")
        #expect(store.runningEffectIDs.isEmpty, "left running: \(store.runningEffectIDs)")
        #expect(child.runningEffectIDs.isEmpty, "left running: \(child.runningEffectIDs)")
    }

    /// Threads each start effects in idle turns of one store, each effect's task made once its turn
    /// has ended: when the store is released, every effect's task is cancelled (each waits for that).
    ///
    /// Fails on 2696b27 (under ThreadSanitizer it reports the race in most runs): `inIdleTurn` reads
    /// `deferredTicket` after `queue.endTurn()`, so a thread whose turn has ended attaches its task
    /// to the effect another thread has just deferred in the next turn; its own effect is left
    /// without a task, which the store's release (or `cancel(id:)`) never cancels.
    @Test func everyDeferredEffectsTaskIsCancelledWithItsStore() async {
        enum Action: Sendable { case start(Int) }
        let (threads, rounds) = (4, 150)
        let (started, ended) = (AttackBox(0), AttackBox(0))
        let handler = StoreActionHandler<Key, Action, Void> { _, action, _ in
            guard case .start(let number) = action else { return .none }
            return ActionEffect(id: number) {
                started.value += 1
                try? await Task.sleep(for: .seconds(3_600))  // until cancelled
                ended.value += 1
                return nil
            }
        }
        let box = AttackBox<Store<Key, Action, Void>?>(Store(initialValues: [:], actionHandler: handler))
        await offThePool {
            onThreads(threads) { thread in
                for round in 0..<rounds { box.value?.handle(action: .start(thread * 1_000 + round)) }
            }
        }
        let total = threads * rounds
        #expect(await eventually(timeout: .seconds(120)) { started.value == total })
        #expect(box.value?.runningEffectIDs.count == total)
        box.value = nil
        let isEnded = await eventually(timeout: .seconds(60)) { ended.value == total }
        #expect(isEnded, "\(total - ended.value) of \(total) effects' tasks were not cancelled with their store")
    }
}

extension Review5AttackTests {
    // MARK: Anonymous effects' ids

    /// An effect given the id read from a running anonymous effect (`effect.id`, the id that cancels
    /// it): that id is running, so the new effect replaces the anonymous one, and `cancel(id:)`
    /// returning `true` means neither delivers.
    ///
    /// Fails on 2696b27 and on cf616bc: an anonymous effect is never entered under its id, so the
    /// given one replaces nothing; `cancel(id:)` finds the given one in `tickets` and stops there
    /// (`tickets[id] ?? anonymousTicket(id)`), returns `true`, and the anonymous effect delivers.
    @Test func anEffectGivenARunningAnonymousEffectsIDReplacesIt() async {
        let gate = Gate()
        defer { gate.open() }
        let anonymousID = AttackBox<AnyHashable?>(nil)
        let script = EffectScript { round in
            guard round == 0 else {
                return ActionEffect(id: anonymousID.value) {
                    await gate.wait()
                    return .got("given")
                }
            }
            let effect = ActionEffect<ScriptAction> {
                await gate.wait()
                return .got("anonymous")
            }
            anonymousID.value = effect.id
            return effect
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        store.handle(action: .start(1))
        let cancelled = store.cancel(id: anonymousID.value!)
        #expect(cancelled)
        gate.open()
        #expect(await eventually(timeout: .seconds(120)) { store.runningEffectIDs.isEmpty })
        try? await Task.sleep(for: .milliseconds(100))
        #expect(script.log.values.isEmpty, "delivered after cancel(id:) returned \(cancelled): \(script.log.values)")
    }
}
