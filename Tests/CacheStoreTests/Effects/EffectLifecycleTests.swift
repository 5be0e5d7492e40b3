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
    /// Every key as itself: a scope that sees its parent's keys.
    static let identity: BiDirectionalTransformation<Key?, Key?> = (from: { $0 }, to: { $0 })

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

    /// Runs `script` from an idle store, waits until no effect runs and the handler got `expected`
    /// actions (an effect's last action is handled just after it stops running), then a little longer
    /// for a late delivery; returns what the handler got.
    private func run(_ script: EffectScript, expecting expected: Int) async -> [String] {
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(await eventually { store.runningEffectIDs.isEmpty && script.log.values.count >= expected })
        try? await Task.sleep(for: .milliseconds(50))
        return script.log.values
    }

    @Test func anEffectCancelledInTheTurnThatStartedItDeliversNothing() async {
        #expect(await run(script(interference: nil), expecting: 1) == ["first"])
        #expect(await run(script(interference: .cancel(id: "x")), expecting: 0) == [])
    }

    @Test func anEffectReplacedInTheTurnThatStartedItDeliversOnlyTheNewOne() async {
        let replacement = ActionEffect<ScriptAction>(id: "x") { .got("second") }
        #expect(await run(script(interference: nil), expecting: 1) == ["first"])
        #expect(await run(script(interference: replacement), expecting: 1) == ["second"])
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

    enum DeferAction: Sendable {
        case start(Int)
        case cancel
        case restart(Int)
        case done(Int)
    }

    final class DeferOwner: @unchecked Sendable {
        var store: Store<Key, DeferAction, DeferOwner>?
        let done = Recorder<Int>()
        var cancelFromHandler = false
        var restartFromHandler = false
        var releaseFromHandler = false
        /// What the effect waits for before it returns, if anything.
        var gate: Gate?
    }

    static let deferHandler = StoreActionHandler<Key, DeferAction, DeferOwner> { _, action, owner in
        switch action {
        case .start(let value):
            // Queued behind this action: handled when this turn ends, while the effect started below
            // is still waiting for its task.
            if owner.cancelFromHandler { owner.store?.handle(action: .cancel) }
            if owner.restartFromHandler { owner.store?.handle(action: .restart(value + 1)) }
            if owner.releaseFromHandler { owner.store = nil }
            let gate = owner.gate
            return ActionEffect(id: "deferred") {
                await gate?.wait()
                return .done(value)
            }
        case .cancel:
            return .cancel(id: "deferred")
        case .restart(let value):
            return ActionEffect(id: "deferred") { .done(value) }
        case .done(let value):
            owner.done.append(value)
            return .none
        }
    }

    /// The effect an idle turn starts is cancelled by an action queued in that turn, before its task
    /// is made: it never delivers.
    @Test func anEffectCancelledBeforeItsDeferredTaskIsMadeNeverDelivers() async {
        let owner = DeferOwner()
        owner.cancelFromHandler = true
        let store = Store(initialValues: [:], actionHandler: Self.deferHandler, dependency: owner)
        owner.store = store
        for round in 0..<200 { store.handle(action: .start(round)) }
        #expect(await eventually(timeout: .seconds(30)) { store.runningEffectIDs.isEmpty })
        try? await Task.sleep(for: .milliseconds(50))
        #expect(owner.done.values.isEmpty)
        owner.store = nil
    }

    /// …replaced by one that an action queued in that turn starts: only the replacement delivers.
    @Test func anEffectReplacedBeforeItsDeferredTaskIsMadeNeverDelivers() async {
        let owner = DeferOwner()
        owner.restartFromHandler = true
        let store = Store(initialValues: [:], actionHandler: Self.deferHandler, dependency: owner)
        owner.store = store
        for round in 0..<100 { store.handle(action: .start(round * 2)) }
        #expect(await eventually(timeout: .seconds(30)) { store.runningEffectIDs.isEmpty })
        try? await Task.sleep(for: .milliseconds(50))
        #expect(owner.done.values.allSatisfy { $0 % 2 == 1 }, "a replaced effect delivered: \(owner.done.values)")
        #expect(!owner.done.values.isEmpty)
        owner.store = nil
    }

    /// …or its store is released inside the handler that starts it: the store is freed once `handle`
    /// returns, and the effect, ending after that, never delivers. (`handle` holds its store until it
    /// returns, so an effect that ended before that could deliver: the gate keeps it from ending.)
    @Test func aStoreReleasedInTheTurnThatDefersItsEffect() async {
        for round in 0..<100 {
            let owner = DeferOwner()
            let gate = Gate()
            owner.gate = gate
            owner.releaseFromHandler = true
            weak var weakStore: Store<Key, DeferAction, DeferOwner>?
            do {
                let store = Store(initialValues: [:], actionHandler: Self.deferHandler, dependency: owner)
                owner.store = store
                weakStore = store
            }
            await offThePool { owner.store?.handle(action: .start(round)) }
            #expect(weakStore == nil)
            gate.open()
            try? await Task.sleep(for: .milliseconds(1))
            #expect(owner.done.values.isEmpty)
        }
    }

    /// Many threads start effects under their own ids, each in an idle turn of a tree of a store and
    /// its scoped store: every effect delivers once.
    @Test func everyDeferredEffectOfAStoreTreeDeliversOnce() async {
        enum Action: Sendable {
            case start(Int)
            case done(Int)
        }
        let delivered = Recorder<Int>()
        let parentHandler = StoreActionHandler<Key, Action, Void> { _, action, _ in
            switch action {
            case .start(let value): return ActionEffect(id: value) { .done(value) }
            case .done(let value): delivered.append(value)
            }
            return .none
        }
        let childHandler = StoreActionHandler<Key, Action, Void> { _, action, _ in
            switch action {
            case .start(let value): return ActionEffect(id: value) { .done(value + 1) }
            case .done: return .none
            }
        }
        let store = Store(initialValues: [:], actionHandler: parentHandler)
        let child = store.scope(
            keyTransformation: Self.identity, actionHandler: childHandler,
            actionTransformation: { action in
                guard case .done(let value) = action else { return nil }
                return .done(value)
            })
        await offThePool {
            onThreads(4) { thread in
                for round in 0..<250 {
                    let value = (thread * 1_000 + round) * 2
                    if round.isMultiple(of: 2) {
                        store.handle(action: .start(value))
                    } else {
                        child.handle(action: .start(value))
                    }
                }
            }
        }
        let expected = (0..<4).flatMap { thread in
            (0..<250).map { round in (thread * 1_000 + round) * 2 + (round.isMultiple(of: 2) ? 0 : 1) }
        }
        #expect(await eventually(timeout: .seconds(60)) { delivered.values.count >= expected.count })
        try? await Task.sleep(for: .milliseconds(50))
        #expect(delivered.values.sorted() == expected.sorted())
    }

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
    /// step is handled once, and no effect is left running. (A turn's deferred effect is taken out of
    /// the turn's state before the turn ends: read after, it may be the effect another thread deferred
    /// in the next turn, whose task would then end the wrong effect, stopping a chain.)
    @Test func concurrentEffectChainsOfOneTreeHandleEveryStepOnce() async {
        let (threads, chainsPerThread, steps) = (4, 30, 8)
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
    /// A thread whose turn has ended must attach its task to its own deferred effect, not to the one
    /// another thread has just deferred in the next turn: an effect left without a task is never
    /// cancelled, by the store's release or by `cancel(id:)`.
    @Test func everyDeferredEffectsTaskIsCancelledWithItsStore() async {
        enum Action: Sendable { case start(Int) }
        let (threads, rounds) = (4, 150)
        let (started, ended) = (Recorder<Int>(), Recorder<Int>())
        let handler = StoreActionHandler<Key, Action, Void> { _, action, _ in
            guard case .start(let number) = action else { return .none }
            return ActionEffect(id: number) {
                started.append(number)
                try? await Task.sleep(for: .seconds(3_600))  // until cancelled
                ended.append(number)
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
        #expect(await eventually(timeout: .seconds(120)) { started.values.count == total })
        #expect(box.value?.runningEffectIDs.count == total)
        box.value = nil
        let isEnded = await eventually(timeout: .seconds(60)) { ended.values.count == total }
        #expect(isEnded, "\(total - ended.values.count) of \(total) effects' tasks were not cancelled with their store")
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

    static let sameKeys: BiDirectionalTransformation<Key?, Key?> = (from: { $0 }, to: { $0 })

    /// `n ≥ 0` starts an effect under id `n` that returns `-n - 1` once the gate opens; a negative
    /// action records its effect's id.
    static func gatedEffects(_ gate: Gate, delivering delivered: Recorder<Int>) -> StoreActionHandler<Key, Int, Void> {
        StoreActionHandler { _, action, _ in
            guard action >= 0 else {
                delivered.append(-action - 1)
                return .none
            }
            return ActionEffect(id: action) {
                await gate.wait()
                return -action - 1
            }
        }
    }

    /// Fresh stores, a root and its scoped store, whose first effects threads start at once (one of
    /// them makes the runner of each, in the tree's turn) while other threads cancel some by id and
    /// read `runningEffectIDs` (which make none). Every effect whose cancel returned `true` never
    /// delivers; every other one delivers once; nothing is left running.
    ///
    /// A main-actor store handles the actions on the main queue, after `handle` returned: a cancel
    /// right after it may come first and return `false`; that effect then delivers. (`StoreEngine.effects`
    /// reads the lazily made runner without a lock in the turn.)
    @Test(arguments: [ActionIsolation.anyThread, .mainActor])
    func firstEffectsOfAFreshStoreTreeStartedFromManyThreadsAtOnce(_ isolation: ActionIsolation) async {
        let (rounds, threads, effectsPerThread) = (10, 4, 10)
        for _ in 0..<rounds {
            let gate = Gate()
            let delivered = Recorder<Int>()
            let cancelled = Recorder<Int>()
            let store = Store(
                initialValues: [:], actionHandler: Self.gatedEffects(gate, delivering: delivered), isolation: isolation)
            let child = store.scope(
                keyTransformation: Self.sameKeys, actionHandler: Self.gatedEffects(gate, delivering: delivered))
            await offThePool {
                onThreads(threads + 1) { thread in
                    guard thread < threads else {
                        // A reader that never starts an effect: it makes no runner, and sees a consistent one.
                        for _ in 0..<200 { _ = (store.runningEffectIDs.count, child.runningEffectIDs.count) }
                        return
                    }
                    let target = thread.isMultiple(of: 2) ? store : child
                    for index in 0..<effectsPerThread {
                        let id = thread * 1_000 + index
                        target.handle(action: id)
                        if index.isMultiple(of: 3), target.cancel(id: id) { cancelled.append(id) }
                    }
                }
            }
            gate.open()
            let total = threads * effectsPerThread
            let isSettled = await eventually {
                delivered.values.count + cancelled.values.count >= total
                    && store.runningEffectIDs.isEmpty && child.runningEffectIDs.isEmpty
            }
            #expect(isSettled, "\(delivered.values.count) delivered, \(cancelled.values.count) cancelled of \(total)")
            let deliveredIDs = delivered.values
            #expect(Set(deliveredIDs).count == deliveredIDs.count, "delivered twice: \(deliveredIDs)")
            #expect(Set(deliveredIDs).isDisjoint(with: cancelled.values), "delivered after cancel(id:) returned true")
            if isolation == .anyThread {
                // `handle` returned once the action was handled: each of these cancels found its effect.
                #expect(cancelled.values.count == threads * ((effectsPerThread + 2) / 3))
            }
        }
    }

    /// A scoped store whose only holder releases it inside its parent's handler, right after sending
    /// it an action (queued: this thread has the tree's turn). The action is handled once the turn
    /// ends, after the release, and starts the scoped store's first effect: its runner is made closed,
    /// so the effect is cancelled at once and never delivers (nothing reads the freed engine). The
    /// store-released-first path of `StoreEngine.makeEffects`, without the main queue of
    /// ``anEffectStartedAfterItsStoreWasReleasedNeverDelivers()``.
    @Test func aScopedStoresFirstEffectStartedAfterItsReleaseInTheSameTurn() async {
        let (delivered, started) = (Recorder<Int>(), Recorder<Int>())
        let gate = Gate()
        gate.open()
        let childHandler = Self.gatedEffects(gate, delivering: delivered)
        for _ in 0..<50 {
            let childBox = AttackBox<Store<Key, Int, Void>?>(nil)
            let parent = Store<Key, Int, Void>(
                initialValues: [:],
                actionHandler: StoreActionHandler { _, _, _ in
                    childBox.value?.handle(action: 7)
                    childBox.value = nil
                    return .none
                })
            childBox.value = parent.scope(
                keyTransformation: Self.sameKeys,
                actionHandler: StoreActionHandler { state, action, dependency in
                    started.append(action)
                    return childHandler.handle(store: &state, action: action, dependency: dependency)
                })
            parent.handle(action: 0)
            #expect(childBox.value == nil)
        }
        #expect(started.values.count == 50, "the scoped stores' actions were handled after their release")
        // The effects' tasks run at once (the gate is open): a delivery would come within moments.
        try? await Task.sleep(for: .milliseconds(100))
        #expect(delivered.values.isEmpty, "\(delivered.values.count) effects of released scoped stores delivered")
    }

    // MARK: - The store released while its effect runs or delivers

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

    enum SendAction: Sendable {
        case start
        case tick(Int)
    }

    /// A handler whose `.start` runs an effect sending up to a million `.tick`s as fast as it can
    /// (yielding every `yieldingEvery`), each counted in `handled` and written under `.count`.
    ///
    /// An effect that does not stop when cancelled stops 1,000 sends after `ended` is set (the test
    /// sets it once its store is gone): running on to a million, twenty of them held both threads of
    /// the concurrency pool for minutes under ThreadSanitizer, and every other test's tasks with them.
    static func ticking(
        counting handled: AttackBox<Int>, yieldingEvery interval: Int, stopsWhenCancelled: Bool,
        ended: AttackBox<Bool> = AttackBox(false)
    ) -> StoreActionHandler<Key, SendAction, Void> {
        StoreActionHandler { state, action, _ in
            switch action {
            case .start:
                return .run(id: "ticks") { send in
                    var sendsLeftAfterEnd = 1_000
                    for tick in 0..<1_000_000 {
                        if stopsWhenCancelled, Task.isCancelled { return }
                        if ended.value {
                            sendsLeftAfterEnd -= 1
                            if sendsLeftAfterEnd == 0 { return }
                        }
                        await send(.tick(tick))
                        if tick.isMultiple(of: interval) { await Task.yield() }
                    }
                }
            case .tick(let tick):
                handled.value += 1
                state.set(value: tick, forKey: .count)
                return .none
            }
        }
    }

    /// A store released from another thread while its `run` effect sends as fast as it can: nothing
    /// crashes, and the store is freed.
    @Test func aStoreReleasedFromAnotherThreadWhileItsEffectSends() async {
        let handled = AttackBox(0)
        for _ in 0..<20 {
            // The store's effect ignores cancellation: it sends on, into the released store, until
            // the round has ended and 1,000 sends more.
            let ended = AttackBox(false)
            defer { ended.value = true }
            let handler = Self.ticking(counting: handled, yieldingEvery: 64, stopsWhenCancelled: false, ended: ended)
            weak var weakStore: Store<Key, SendAction, Void>?
            let box = AttackBox<Store<Key, SendAction, Void>?>(Store(initialValues: [:], actionHandler: handler))
            weakStore = box.value
            box.value?.handle(action: .start)
            let before = handled.value
            #expect(await eventually(timeout: .seconds(30)) { handled.value > before })
            await offThePool { box.value = nil }
            #expect(await eventually(timeout: .seconds(30)) { weakStore == nil })
        }
    }

    enum HoldAction: Sendable {
        case hold, start
        case tick(Int)
    }

    final class StoreHolder: @unchecked Sendable {
        let store: AttackBox<Store<Key, HoldAction, Void>?> = AttackBox(nil)
    }

    /// A store whose only reference is a value in its own state: an action its effect sends removes
    /// the value, so the store is released inside its own handler, on the effect's thread; the effect
    /// keeps sending. The store is freed, and nothing crashes.
    @Test func aStoreReleasedByAValueOfItsOwnStateThatItsEffectsActionRemoves() async {
        for _ in 0..<20 {
            let handled = AttackBox(0)
            let holder = AttackBox<StoreHolder?>(StoreHolder())
            let handler = StoreActionHandler<Key, HoldAction, Void> { state, action, _ in
                switch action {
                case .hold:
                    state.set(value: holder.value!, forKey: .other)
                    holder.value = nil
                case .start:
                    return .run { send in
                        for tick in 0..<100_000 where !Task.isCancelled {
                            await send(.tick(tick))
                            if tick.isMultiple(of: 16) { await Task.yield() }
                        }
                    }
                case .tick(let tick):
                    handled.value += 1
                    if tick == 50 { state.remove(.other) }  // the store's last reference
                }
                return .none
            }
            weak var weakStore: Store<Key, HoldAction, Void>?
            do {
                let store = Store(initialValues: [:], actionHandler: handler)
                holder.value?.store.value = store
                weakStore = store
                store.handle(action: .hold)
                store.handle(action: .start)
            }
            #expect(await eventually(timeout: .seconds(30)) { weakStore == nil })
            #expect(handled.value >= 51)
        }
    }

    /// A store whose only reference is a value of its own state, released by the handler of its effect's action
    /// in the turn that effect's task took (`StoreEngine.endTask`).
    @Suite(.timeLimit(.minutes(2))) struct ReleasedInItsEffectsTurn {
        /// What keeps a store alive: a value of the store's own state.
        final class StoreHolder: @unchecked Sendable {
            var store: Store<Key, ChainAction, Void>?
        }

        /// A store whose only reference is a value in its own state, and a chain of single effects: the
        /// handler of one step's action removes the value, so the store is released inside its handler,
        /// in the turn the step's task took itself (`StoreEngine.endTask`), with the engine that task
        /// retained. The store is freed, the step that handler started is cancelled, and no later step
        /// is handled.
        @Test(arguments: [ActionIsolation.anyThread, .mainActor])
        func aStoreReleasedByItsEffectsActionInTheTurnTheEffectsTaskTook(_ isolation: ActionIsolation) async {
            let (steps, releasingStep) = (30, 10)
            for _ in 0..<10 {
                let handled = Recorder<Int>()
                // Opened once the test holds the store no more: until then, it would keep it alive.
                let gate = Gate()
                let holderBox = AttackBox<StoreHolder?>(StoreHolder())
                let handler = StoreActionHandler<Key, ChainAction, Void> { state, action, _ in
                    switch action {
                    case .begin(let chain, let steps):
                        state.set(value: holderBox.value!, forKey: .other)
                        holderBox.value = nil
                        return ActionEffect {
                            await gate.wait()
                            return .step(chain: chain, left: steps)
                        }
                    case .step(let chain, let left):
                        handled.append(left)
                        if left == releasingStep { state.remove(.other) }  // the store's last reference
                        guard left > 0 else { return .none }
                        return ActionEffect { .step(chain: chain, left: left - 1) }
                    }
                }
                weak var weakStore: Store<Key, ChainAction, Void>?
                do {
                    let store = Store(initialValues: [:], actionHandler: handler, dependency: (), isolation: isolation)
                    holderBox.value?.store = store
                    weakStore = store
                    // Not from a thread of its own: that thread's closure would hold the store until the
                    // thread ends.
                    store.handle(action: .begin(chain: 0, steps: steps))
                }
                gate.open()
                #expect(await eventually(timeout: .seconds(120)) { weakStore == nil })
                try? await Task.sleep(for: .milliseconds(20))
                #expect(handled.values == Array((releasingStep...steps).reversed()))
            }
        }
    }
}
