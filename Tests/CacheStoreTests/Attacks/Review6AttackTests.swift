import CacheStore
import Foundation
import Observation
import Testing

/// Review 6's attacks on the newest code: an anonymous effect's id as a name (`ActionEffect.id`,
/// `EffectLifecycle.anonymousTicket`), the effect runner made by a store's first effect, a key's one
/// list of observation subjects, keys released outside the storage's and the `changes` stream's
/// locks, and the `changes` iterator's copies.
@Suite(.timeLimit(.minutes(2))) struct Review6AttackTests {
    // MARK: An anonymous effect returned more than once

    /// One effect value, made once without an id and returned by every `.start`: its runs share its
    /// anonymous id. Each run sends `.got("anonymous")` (an effect given its id, `.got("given")`) once
    /// the gate opens, then records that its `send` returned (a store not on the main actor handles,
    /// or drops, a sent action before `send` returns).
    final class SharedEffect: Sendable {
        let gate = Gate()
        let handled = Recorder<String>()
        let sendsReturned = Recorder<String>()
        let effect: ActionEffect<ScriptAction>

        init() {
            let (gate, sendsReturned) = (gate, sendsReturned)
            effect = .run { send in
                await gate.wait()
                await send(.got("anonymous"))
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
                            await send(.got("given"))
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

    /// Two effects start under one anonymous id, then `cancel(id:)` with it returns `true`: nothing
    /// either sends may be handled, and nothing may run under the id any more. `[0, 0]`: an effect
    /// made once without an id, returned by two actions (the docs: "an effect made once and returned
    /// later"); `[1, 0]`: an effect given its id runs, then the anonymous effect is returned.
    ///
    /// Both fail on 1f7936a and on 7423c35, every run: the second effect keeps running
    /// (`runningEffectIDs` still holds the id) and its action is handled. Anonymous starts replaced
    /// nothing, and `EffectLifecycle.cancel` looked in `tickets` first, then for the first slot
    /// holding the anonymous id (`tickets[id] ?? anonymousTicket(id)`), and cancelled that one only.
    /// (A `TestStore` queues the same effect once: its second `append` replaces the first, as the id
    /// is equal.)
    @Test(arguments: [[0, 0], [1, 0]])
    func cancellingAnAnonymousIDStopsEverythingStartedUnderIt(starts: [Int]) async {
        let shared = SharedEffect()
        let store = shared.makeStore()
        for start in starts { store.handle(action: .start(start)) }
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
    /// run only; the second delivers beside the new effect. (On 7423c35 both runs delivered.)
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

extension Review6AttackTests {
    // MARK: The effect runner made by a store's first effect

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
    /// right after it may come first and return `false`; that effect then delivers.
    ///
    /// Passes on 1f7936a, plain and under ThreadSanitizer (kept as a regression test of the lazily
    /// made runner: `StoreEngine.effects` reads `madeEffects` without a lock in the turn).
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
    /// so the effect is cancelled at once and never delivers (nothing reads the freed engine).
    ///
    /// Passes on 1f7936a (the store-released-first path of `StoreEngine.makeEffects`, without the main
    /// queue of `LazyEffectRunnerTests`).
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
}

extension Review6AttackTests {
    // MARK: A key's one list of subjects

    /// One key, churned at once by: a writer that also removes it; a direct observed reader (the
    /// key's own subject, listed first); scopes whose observer releases its scope from `onChange`
    /// (unlinked during the publication that told it); and scopes of scopes, made and released. Then
    /// an observer of each kind is told of the next write once, and a scope released from the middle
    /// of the list leaves the others told.
    ///
    /// Passes on 1f7936a, plain and under ThreadSanitizer (regression test of `KeyObservation.next`
    /// and `previous`, and of `RootCore.remove(_:from:)`).
    @Test func aKeysSubjectsUnderWritesReadsAndScopesMadeAndReleasedOnManyThreads() async {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        await offThePool {
            onThreads(4) { thread in
                switch thread {
                case 0:
                    for value in 1...400 {
                        if value.isMultiple(of: 10) {
                            parent.remove(.count)
                        } else {
                            parent.set(value: value, forKey: .count)
                        }
                    }
                case 1:
                    for _ in 0..<200 {
                        withObservationTracking({ _ = parent.get(.count, as: Int.self) }, onChange: {})
                    }
                case 2:
                    for _ in 0..<200 {
                        let box = AttackBox<CacheStore<FeatureKey>?>(parent.scope(keyTransformation: featureKeys))
                        let scope = box.value!
                        withObservationTracking(
                            { _ = scope.get(.counter, as: Int.self) }, onChange: { box.value = nil })
                    }
                default:
                    for _ in 0..<200 {
                        let inner = parent.scope(keyTransformation: featureKeys).scope(keys: [.counter])
                        withObservationTracking({ _ = inner.contains(.counter) }, onChange: {})
                    }
                }
            }
        }
        var scopes = (0..<3).map { _ in parent.scope(keyTransformation: featureKeys) }
        let inner = parent.scope(keyTransformation: featureKeys).scope(keys: [.counter])
        for round in 0..<2 {
            if round == 1 { scopes.remove(at: 1) }  // its subject is unlinked from the middle of the list
            let direct = fireCount { _ = parent.get(.count, as: Int.self) }
            let throughScopes = scopes.map { scope in fireCount { _ = scope.get(.counter, as: Int.self) } }
            let throughInner = fireCount { _ = inner.get(.counter, as: Int.self) }
            parent.set(value: -1 - round, forKey: .count)
            #expect(direct.values.count == 1)
            #expect(throughScopes.allSatisfy { $0.values.count == 1 })
            #expect(throughInner.values.count == 1)
        }
    }
}

extension Review6AttackTests {
    // MARK: Keys whose deinit writes to their cache

    typealias Token = KeyReleaseTests.Token
    typealias TokenKey = KeyReleaseTests.TokenKey

    static let sameTokenKeys: BiDirectionalTransformation<TokenKey?, TokenKey?> = (from: { $0 }, to: { $0 })

    /// Keys whose `deinit` writes to their cache, on every path that takes a key in and lets it go,
    /// at once on six threads: writes and removals (of more keys than a `changes` iterator that is
    /// not consumed keeps: they merge into "every key"); observed reads of present and absent keys
    /// (the empty slots they leave are purged); scopes' reads (a scope's subject keeps its key until
    /// the scope is released); `update`s of one key on two threads (the conflict watch keeps the
    /// first updater's key instance); and `changes` iterators cancelled at once or left to take the
    /// next change. A key released inside a lock that its `deinit`'s write takes deadlocks.
    ///
    /// Passes on 1f7936a; deadlocked on 7423c35 in 3 of 3 runs, before the keys that the `changes`
    /// stream and `update` let go of were released outside their locks (4f7fed9, a32a5da).
    @Test func keysWhoseDeinitWritesTheirCacheTakenInAndLetGoOnEveryPathAtOnce() async {
        let cache = CacheStore<TokenKey>(initialValues: [:])
        let token: @Sendable (Int) -> TokenKey = { id in
            .token(Token(id: id) { [weak cache] in cache?.set(value: true, forKey: .other) })
        }
        let taken = Recorder<Void>()
        // Never consumed while the keys change: past its limit, its keys merge into "every key".
        var unconsumed = cache.changes.makeAsyncIterator()
        let finished = await expectFinishes("keys whose deinit writes their cache, churned", within: 60) {
            onThreads(6) { thread in
                for round in 0..<300 {
                    let id = round % 11
                    switch thread {
                    case 0:
                        cache.set(value: round, forKey: token(id))
                        cache.remove(token(id + 5))
                        for fresh in 10_000 + round * 4..<10_000 + round * 4 + 4 {
                            cache.set(value: round, forKey: token(fresh))
                            cache.remove(token(fresh))
                        }
                    case 1:
                        withObservationTracking(
                            {
                                _ = cache.get(token(id), as: Int.self)
                                for absent in 0..<4 { _ = cache.contains(token(1_000 + round * 4 + absent)) }
                            }, onChange: {})
                    case 2:
                        let scope = cache.scope(keyTransformation: Self.sameTokenKeys)
                        withObservationTracking({ _ = scope.get(token(id), as: Int.self) }, onChange: {})
                    case 3, 4:
                        cache.update(token(id), as: Int.self) { value in value = (value ?? 0) + 1 }
                    default:
                        let iterator = cache.changes.makeAsyncIterator()
                        let task = Task {
                            var iterator = iterator
                            _ = await iterator.next()
                            taken.append(())
                        }
                        if round.isMultiple(of: 2) { task.cancel() }
                    }
                }
            }
        }
        guard finished else { return }
        cache.set(value: true, forKey: .other)  // the iterators left waiting take this change
        #expect(await eventually { taken.values.count == 300 }, "\(taken.values.count) of 300 iterators returned")
        #expect(cache.get(.other, as: Bool.self) == true)
        #expect(await unconsumed.next()?.isEveryKey == true)
    }
}

extension Review6AttackTests {
    // MARK: The changes stream's iterator, shared

    /// The `changes` iterator is `Sendable`, and its copies share one buffer: two tasks may each wait
    /// in `next()` on a copy at once. Two changes come, one after the other: each waiting task gets
    /// one, and neither waits forever.
    ///
    /// Fails on 1f7936a when both tasks wait before the first change (almost every run: they are
    /// given 200 ms): `ChangeBuffer.next` sets `waiter = continuation` over the waiting one, which is
    /// never resumed (the runtime reports a leaked continuation) and its task never returns. Not new
    /// code (7423c35 has the same `next`).
    @Test func twoTasksWaitingOnCopiesOfOneChangesIteratorAreBothAnswered() async {
        let cache = CacheStore<Key>(initialValues: [:])
        let iterator = cache.changes.makeAsyncIterator()
        let answered = Recorder<Void>()
        let tasks = (0..<2).map { _ in
            Task {
                var copy = iterator
                _ = await copy.next()
                answered.append(())
            }
        }
        try? await Task.sleep(for: .milliseconds(200))  // both wait by then, almost always
        cache.set(value: 1, forKey: .count)
        #expect(await eventually(timeout: .seconds(10)) { !answered.values.isEmpty })
        cache.set(value: 2, forKey: .count)
        let isAnswered = await eventually(timeout: .seconds(20)) { answered.values.count == 2 }
        #expect(isAnswered, "a task waiting in next() on a copy of the iterator was never answered")
        for task in tasks { task.cancel() }
    }
}
