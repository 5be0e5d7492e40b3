import CacheStore
import Dispatch
import Foundation
import Observation
import Testing

/// Attacks on the effect engine and effect composition: cancellation at every instant of an
/// effect's life, ids read from effects, stores released while effects run, and timing on a real
/// clock. The attacks that still fail (composed effects whose parts share the composition's id,
/// cancelling a concatenation just after it started or while its step's action is handled, throttle
/// bursts) are on the branch `review/effect-engine-attacks`, for the issue that fixes them.
@Suite struct EffectEngineAttackTests {
    enum Key: Hashable, Sendable { case value, payload }

    enum Action: Sendable {
        case start(Int)
        case got(String)
    }

    /// A class value kept in the state, to see whether the state is released.
    final class Payload: @unchecked Sendable {}

    typealias Attacked = Store<Key, Action, Void>

    /// What a test's handler does: `start(n)` returns `effect(n)`; `got(name)` records `name`, runs
    /// `onGot` and stores the name under `.value`.
    final class Script: @unchecked Sendable {
        let log = Recorder<String>()
        let effect: @Sendable (Int) -> ActionEffect<Action>?
        let onGot: @Sendable (String) -> Void

        init(
            onGot: @escaping @Sendable (String) -> Void = { _ in },
            effect: @escaping @Sendable (Int) -> ActionEffect<Action>?
        ) {
            self.effect = effect
            self.onGot = onGot
        }

        func makeStore(
            isolation: ActionIsolation = .anyThread, initialValues: [Key: Any] = [:]
        ) -> Attacked {
            Store(
                initialValues: initialValues,
                actionHandler: StoreActionHandler { [self] state, action, _ in
                    switch action {
                    case .start(let number):
                        return effect(number)
                    case .got(let name):
                        log.append(name)
                        onGot(name)
                        state.set(value: name, forKey: .value)
                        return .none
                    }
                },
                dependency: (),
                isolation: isolation)
        }
    }

    enum ID: Hashable, Sendable { case search, refresh, save, chain }

    // MARK: - Releasing the store

    /// "Releasing the store cancels every effect it runs: a running effect holds its store weakly,
    /// so it never keeps it alive." A single-action effect whose work does not end when cancelled
    /// (it awaits something that ignores cancellation) must not keep the store's state alive.
    @Test func aReleasedStoresStateIsFreedWhileItsSingleEffectIgnoresCancellation() async {
        let gate = Gate()
        defer { gate.open() }
        let script = Script { _ in
            ActionEffect {
                await gate.wait()
                return .got("late")
            }
        }
        weak var payload: Payload?
        do {
            let value = Payload()
            payload = value
            let store = script.makeStore(initialValues: [.payload: value])
            store.handle(action: .start(0))
            #expect(await eventually(timeout: .seconds(10)) { !store.runningEffectIDs.isEmpty })
        }
        #expect(
            await eventually(timeout: .seconds(5)) { payload == nil },
            "the state of a released store is kept by its running single-action effect")
    }

    /// The same with a `run` effect: its `Send` holds the store weakly.
    @Test func aReleasedStoresStateIsFreedWhileItsRunEffectIgnoresCancellation() async {
        let gate = Gate()
        defer { gate.open() }
        let script = Script { _ in
            .run { send in
                await gate.wait()
                send(.got("late"))
            }
        }
        weak var payload: Payload?
        do {
            let value = Payload()
            payload = value
            let store = script.makeStore(initialValues: [.payload: value])
            store.handle(action: .start(0))
            #expect(await eventually(timeout: .seconds(10)) { !store.runningEffectIDs.isEmpty })
        }
        #expect(await eventually(timeout: .seconds(5)) { payload == nil })
    }

    /// Single, run, concatenated and debounced effects that honour cancellation: once the store is
    /// released, nothing is delivered and the state is freed.
    @Test(arguments: 0..<4)
    func aStoreReleasedWhileItsEffectsRunDeliversNothingAndIsFreed(kind: Int) async {
        let script = Script { _ in
            let single = ActionEffect<Action> {
                try? await Task.sleep(for: .milliseconds(200))
                return .got("single")
            }
            switch kind {
            case 0: return single
            case 1:
                return .run { send in
                    try? await Task.sleep(for: .milliseconds(200))
                    send(.got("run"))
                }
            case 2: return .concatenate(id: ID.chain, single, ActionEffect(.got("after")))
            default: return single.debounce(id: ID.search, for: .milliseconds(100), clock: ContinuousClock())
            }
        }
        weak var payload: Payload?
        do {
            let value = Payload()
            payload = value
            let store = script.makeStore(initialValues: [.payload: value])
            store.handle(action: .start(0))
            #expect(!store.runningEffectIDs.isEmpty)
        }
        #expect(await eventually(timeout: .seconds(30)) { payload == nil }, "the released store's state was freed")
        try? await Task.sleep(for: .milliseconds(400))
        #expect(script.log.values.isEmpty, "nothing was delivered after the store was released")
    }

    // MARK: - Ids and cancellation at each instant

    /// An anonymous effect's id read from `effect.id` is listed in `runningEffectIDs`, and cancelling
    /// it stops the effect.
    @Test func anAnonymousEffectsIDCancelsIt() async {
        let gate = Gate()
        defer { gate.open() }
        let ids = AttackBox<[AnyHashable]>([])
        let script = Script { _ in
            let effect = ActionEffect<Action> {
                await gate.wait()
                return .got("late")
            }
            ids.value.append(effect.id)
            return effect
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        store.handle(action: .start(1))
        let (first, second) = (ids.value[0], ids.value[1])
        #expect(first != second)
        #expect(store.runningEffectIDs == [first, second])
        #expect(store.cancel(id: first))
        #expect(!store.cancel(id: first))
        #expect(store.runningEffectIDs == [second])
        gate.open()
        #expect(await eventually(timeout: .seconds(30)) { script.log.values == ["late"] })
        #expect(await eventually(timeout: .seconds(30)) { store.runningEffectIDs.isEmpty })
    }

    /// A mapped anonymous effect keeps the id `effect.id` gave before mapping.
    @Test func aMappedAnonymousEffectIsCancelledByTheIDReadBeforeMapping() async {
        let gate = Gate()
        defer { gate.open() }
        let id = AttackBox<AnyHashable?>(nil)
        let script = Script { _ in
            let effect = ActionEffect<String> {
                await gate.wait()
                return "late"
            }
            id.value = effect.id
            return effect.map(Action.got)
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(store.runningEffectIDs == [id.value])
        #expect(store.cancel(id: id.value!))
        gate.open()
        try? await Task.sleep(for: .milliseconds(200))
        #expect(script.log.values.isEmpty)
    }

    /// Cancelled in the very handler that starts it, before its task ever ran.
    @Test func anEffectCancelledBeforeItStartsNeverDelivers() async {
        let script = Script { _ in
            .merge(ActionEffect(id: ID.search) { .got("never") }, .cancel(id: ID.search))
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(store.runningEffectIDs.isEmpty)
        try? await Task.sleep(for: .milliseconds(200))
        #expect(script.log.values.isEmpty)
    }

    /// A `run` effect cancelled from the handler of one of its own actions: what it sends next is
    /// dropped, and `cancel(id:)` there returns `true`.
    @Test func aRunEffectCancelledFromItsOwnActionsHandler() async {
        let storeBox = AttackBox<Attacked?>(nil)
        let results = Recorder<Bool>()
        let script = Script(
            onGot: { name in
                if name == "a", let store = storeBox.value { results.append(store.cancel(id: ID.chain)) }
            },
            effect: { _ in
                .run(id: ID.chain) { send in
                    send(.got("a"))
                    send(.got("b"))
                }
            })
        let store = script.makeStore()
        storeBox.value = store
        store.handle(action: .start(0))
        #expect(await eventually(timeout: .seconds(30)) { store.runningEffectIDs.isEmpty })
        try? await Task.sleep(for: .milliseconds(100))
        #expect(script.log.values == ["a"])
        #expect(results.values == [true])
        storeBox.value = nil
    }

    /// From another thread while the effect's last action is being handled: `cancel(id:)` returns
    /// `false` (the effect finished) and does not wait; the action is handled once.
    @Test func cancellingWhileTheLastActionIsBeingHandledReturnsFalse() async {
        let handling = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let script = Script(
            onGot: { _ in
                handling.signal()
                _ = release.wait(timeout: .now() + 30)
            },
            effect: { _ in ActionEffect(id: ID.search) { .got("last") } })
        let store = script.makeStore()
        let result = await offThePool { () -> Bool? in
            store.handle(action: .start(0))
            guard handling.wait(timeout: .now() + 30) == .success else { return nil }
            let cancelled = store.cancel(id: ID.search)
            release.signal()
            return cancelled
        }
        #expect(result == false)
        #expect(await eventually(timeout: .seconds(30)) { script.log.values == ["last"] })
    }

    /// A concatenation cancelled between its steps: the running step is cancelled, no later step
    /// starts, and no id is left running.
    @Test func aConcatenationCancelledMidWayStartsNoOtherStep() async {
        let gate = Gate()
        defer { gate.open() }
        let script = Script { _ in
            .concatenate(
                id: ID.chain,
                ActionEffect { .got("one") },
                ActionEffect(id: ID.save) {
                    await gate.wait()
                    return .got("two")
                },
                ActionEffect(.got("three")))
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(await eventually(timeout: .seconds(30)) { store.runningEffectIDs.contains(ID.save) })
        #expect(store.cancel(id: ID.chain))
        gate.open()
        #expect(await eventually(timeout: .seconds(30)) { store.runningEffectIDs.isEmpty })
        try? await Task.sleep(for: .milliseconds(200))
        #expect(script.log.values == ["one"])
    }

    /// An effect started by an observer's `onChange` runs and delivers.
    @Test func anEffectStartedFromAnObserverDelivers() async {
        let script = Script { number in
            number == 0 ? ActionEffect(.got("changed")) : ActionEffect { .got("from observer") }
        }
        let store = script.makeStore()
        withObservationTracking {
            _ = store.get(.value, as: String.self)
        } onChange: {
            store.handle(action: .start(1))
        }
        store.handle(action: .start(0))
        #expect(await eventually(timeout: .seconds(30)) { script.log.values == ["changed", "from observer"] })
        #expect(await eventually(timeout: .seconds(30)) { store.runningEffectIDs.isEmpty })
    }

    /// `cancel(id:)` from another thread while a `run` effect's action is being handled waits for that
    /// handler; the effect keeps sending (it ignores cancellation) and nothing more is handled.
    @Test func cancellingARunEffectThatIgnoresCancellationWhileItDelivers() async {
        let handling = DispatchSemaphore(value: 0)
        let stop = AttackBox(false)
        defer { stop.value = true }
        let events = Recorder<String>()
        let script = Script(
            onGot: { name in
                guard name == "tick 3" else { return }
                handling.signal()
                Thread.sleep(forTimeInterval: 0.2)
                events.append("tick 3 handler returned")
            },
            effect: { _ in
                .run(id: ID.chain) { send in
                    var tick = 0
                    while !stop.value {
                        tick += 1
                        send(.got("tick \(tick)"))
                        await Task.yield()
                    }
                }
            })
        let store = script.makeStore()
        await offThePool {
            store.handle(action: .start(0))
            guard handling.wait(timeout: .now() + 30) == .success else { return }
            events.append("cancel returned \(store.cancel(id: ID.chain))")
        }
        #expect(events.values == ["tick 3 handler returned", "cancel returned true"])
        let countAtCancel = script.log.values.count
        try? await Task.sleep(for: .milliseconds(200))
        #expect(script.log.values.count == countAtCancel)
        #expect(store.runningEffectIDs.isEmpty)
    }

    /// `cancel(id:)` of a throttled effect forgets its schedule: the next one starts at once.
    @Test func aThrottleCancelledByIDStartsTheNextAtOnce() async {
        let gate = Gate()
        defer { gate.open() }
        let script = Script { number in
            ActionEffect {
                if number == 0 { await gate.wait() }
                return .got("refresh \(number)")
            }
            .throttle(id: ID.refresh, for: .seconds(60), clock: ContinuousClock(), latest: true)
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(store.cancel(id: ID.refresh))
        store.handle(action: .start(1))
        #expect(await eventually(timeout: .seconds(10)) { script.log.values == ["refresh 1"] })
    }

    /// An empty concatenation and a merge of nothing leave no effect running.
    @Test func emptyCompositionsLeaveNothingRunning() async {
        let script = Script { number in
            number == 0 ? .concatenate(id: ID.save, []) : .merge([])
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        store.handle(action: .start(1))
        #expect(await eventually(timeout: .seconds(30)) { store.runningEffectIDs.isEmpty })
    }

    // MARK: - Timing on a real clock

    /// Twenty rapid re-sends of a debounced effect: only the last one runs.
    @Test func rapidDebouncedResendsDeliverOnlyTheLast() async {
        let script = Script { number in
            ActionEffect { .got("query \(number)") }
                .debounce(id: ID.search, for: .milliseconds(150), clock: ContinuousClock())
        }
        let store = script.makeStore()
        await offThePool {
            for number in 0..<20 { store.handle(action: .start(number)) }
        }
        #expect(await eventually(timeout: .seconds(30)) { !script.log.values.isEmpty })
        try? await Task.sleep(for: .milliseconds(400))
        #expect(script.log.values == ["query 19"])
        #expect(store.runningEffectIDs.isEmpty)
    }

    // MARK: - Two stores, main actor

    /// Two stores whose effects send to each other, from many effects at once: no deadlock, no loss.
    @Test func twoStoresWhoseEffectsSendToEachOther() async {
        let rounds = 200
        let peers = AttackBox<(Attacked?, Attacked?)>((nil, nil))
        func script(_ other: @escaping @Sendable () -> Attacked?) -> Script {
            Script { number in
                guard number > 0 else { return nil }
                return .run { send in
                    other()?.handle(action: .start(number - 1))
                    send(.got("\(number)"))
                }
            }
        }
        let left = script { peers.value.1 }
        let right = script { peers.value.0 }
        let (leftStore, rightStore) = (left.makeStore(), right.makeStore())
        peers.value = (leftStore, rightStore)
        await offThePool {
            for _ in 0..<8 {
                leftStore.handle(action: .start(rounds))
                rightStore.handle(action: .start(rounds))
            }
        }
        let total = 16 * rounds
        let done = await eventually(timeout: .seconds(30)) {
            left.log.values.count + right.log.values.count == total
        }
        #expect(done, "\(left.log.values.count + right.log.values.count) of \(total) actions handled")
        peers.value = (nil, nil)
    }

    /// A `.mainActor` store cancelled on the main actor while its effect's actions wait in the main
    /// queue: none of them is handled; then the released store is freed and handles nothing more.
    @Test func aMainActorStoresQueuedEffectActionsAreDroppedByCancelAndRelease() async {
        let sent = DispatchSemaphore(value: 0)
        let script = Script { _ in
            .run(id: ID.chain) { send in
                for tick in 0..<50 { send(.got("tick \(tick)")) }
                sent.signal()
            }
        }
        let holder = AttackBox<Payload?>(Payload())
        weak let payload = holder.value
        let cancelled = await MainActor.run { () -> Bool in
            let store = script.makeStore(isolation: .mainActor, initialValues: [.payload: holder.value as Any])
            holder.value = nil
            store.handle(action: .start(0))
            // Block the main actor until every tick is queued behind it, then cancel.
            _ = sent.wait(timeout: .now() + 30)
            return store.cancel(id: ID.chain)
        }
        #expect(cancelled)
        #expect(await eventually(timeout: .seconds(30)) { payload == nil })
        try? await Task.sleep(for: .milliseconds(200))
        #expect(script.log.values.isEmpty, "\(script.log.values.count) ticks handled after cancel(id:) returned true")
    }

}
