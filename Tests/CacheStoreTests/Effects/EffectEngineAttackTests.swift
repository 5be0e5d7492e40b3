import CacheStore
import Dispatch
import Foundation
import Observation
import Testing

/// Attacks on the effect engine and effect composition: cancellation at every instant of an
/// effect's life, ids read from effects, stores released while effects run, composed effects whose
/// parts share ids, and timing on a real clock.
///
/// Waits are long (120 s) because they are only reached when something is wrong, or when the
/// concurrency pool is starved: in the full soak on 2 cores, CPU-heavy tests of other suites have
/// held both pool threads for over 30 s, so effects here did not run. For the same reason the
/// suite runs one test at a time, and its loops are long only in the full soak (`Soak.isFull`).
@Suite(.serialized, .timeLimit(.minutes(2))) struct EffectEngineAttackTests {
    typealias Key = ScriptKey
    typealias Action = ScriptAction
    typealias Payload = ScriptPayload
    typealias Script = EffectScript
    typealias Attacked = Store<Key, Action, Void>

    enum ID: Hashable, Sendable { case search, refresh, save, chain }

    // MARK: - Composed effects whose parts share the composition's id

    /// The common spelling `ActionEffect(id: X) { … }.debounce(id: X, …)`: once the wait is over, the
    /// effect must run and deliver its action.
    @Test func aDebouncedEffectWithTheSameIDAsItsDebounceDelivers() async {
        let script = Script { _ in
            ActionEffect(id: ID.search) { .got("results") }
                .debounce(id: ID.search, for: .milliseconds(20), clock: ContinuousClock())
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(await eventually(timeout: .seconds(120)) { script.log.values == ["results"] })
    }

    /// `ActionEffect(id: X) { … }.throttle(id: X, …)`: the first throttled effect starts at once.
    @Test func aThrottledEffectWithTheSameIDAsItsThrottleDelivers() async {
        let script = Script { _ in
            ActionEffect(id: ID.refresh) { .got("refreshed") }
                .throttle(id: ID.refresh, for: .seconds(1), clock: ContinuousClock(), latest: true)
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(await eventually(timeout: .seconds(120)) { script.log.values == ["refreshed"] })
    }

    /// A concatenation whose first part has the concatenation's own id.
    @Test func aConcatenationWhosePartHasTheConcatenationsIDRunsItsParts() async {
        let script = Script { _ in
            .concatenate(
                id: ID.save,
                ActionEffect(id: ID.save) { .got("saved") },
                ActionEffect { .got("synced") })
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(await eventually(timeout: .seconds(120)) { script.log.values == ["saved", "synced"] })
    }

    // MARK: - Cancelling a concatenation while one of its steps is being handled

    /// `cancel(id:)` of a concatenation while one of its steps' actions is being handled on another
    /// thread must wait for that handler (Threading.md, Cancellation), as it does for every kind of
    /// effect: when it returns `true`, nothing the effect sends is handled afterwards. `"first"` is
    /// the last action of the first step (a single-action effect), `"step"` an immediate-action step.
    @Test(arguments: ["first", "step"])
    func cancellingAConcatenationWaitsForItsStepsActionBeingHandled(slowAction: String) async {
        let events = await Self.cancelWhileHandling(slowAction, id: ID.chain) { _ in
            .concatenate(id: ID.chain, ActionEffect { .got("first") }, ActionEffect(.got("step")))
        }
        #expect(
            events != ["cancel returned true", "\(slowAction) handler returned"],
            "cancel(id:) returned true while the concatenation's action was still being handled")
    }

    /// The same for a debounced effect, once its wait is over: a single-action effect's action, or an
    /// immediate action.
    @Test(arguments: [false, true])
    func cancellingADebounceWaitsForItsActionBeingHandled(immediate: Bool) async {
        let events = await Self.cancelWhileHandling("debounced", id: ID.search) { _ in
            (immediate ? ActionEffect(.got("debounced")) : ActionEffect { .got("debounced") })
                .debounce(id: ID.search, for: .milliseconds(10), clock: ContinuousClock())
        }
        #expect(
            events != ["cancel returned true", "debounced handler returned"],
            "cancel(id:) returned true while the debounced effect's action was still being handled")
    }

    /// Starts `effect`, and calls `cancel(id:)` from another thread while the handler of `slowAction`
    /// runs (it takes 300 ms); returns, in order, when that handler returned and what cancel returned.
    static func cancelWhileHandling(
        _ slowAction: String, id: ID, effect: @escaping @Sendable (Int) -> ActionEffect<Action>?
    ) async -> [String] {
        let handling = DispatchSemaphore(value: 0)
        let events = Recorder<String>()
        let script = Script(
            onGot: { name in
                guard name == slowAction else { return }
                handling.signal()
                Thread.sleep(forTimeInterval: 0.3)
                events.append("\(name) handler returned")
            }, effect: effect)
        let store = script.makeStore()
        await offThePool {
            store.handle(action: .start(0))
            guard handling.wait(timeout: .now() + 120) == .success else { return }
            events.append("cancel returned \(store.cancel(id: id))")
        }
        #expect(await eventually(timeout: .seconds(120)) { events.values.count == 2 })
        return events.values
    }

    // MARK: - Releasing the store

    /// "Releasing the store cancels every effect it runs: a running effect does not hold its store,
    /// so it never keeps it alive." A single-action effect whose work does not end when cancelled
    /// (it awaits something that ignores cancellation) must not keep the store's state alive.
    /// The same for a `run` effect and its `Send`.
    @Test(arguments: ["single", "run"])
    func aReleasedStoresStateIsFreedWhileItsEffectIgnoresCancellation(kind: String) async {
        let gate = Gate()
        defer { gate.open() }
        let script = Script { _ in
            kind == "single"
                ? ActionEffect {
                    await gate.wait()  // a continuation: cancelling the task does not end it
                    return .got("late")
                }
                : .run { send in
                    await gate.wait()
                    await send(.got("late"))
                }
        }
        weak var payload: Payload?
        do {
            let value = Payload()
            payload = value
            let store = script.makeStore(initialValues: [.payload: value])
            store.handle(action: .start(0))
            #expect(await eventually(timeout: .seconds(120)) { !store.runningEffectIDs.isEmpty })
        }
        #expect(
            await eventually(timeout: .seconds(60)) { payload == nil },
            "the state of a released store is kept by its running \(kind) effect")
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
                    await send(.got("run"))
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
        #expect(await eventually(timeout: .seconds(120)) { payload == nil }, "the released store's state was freed")
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
        #expect(await eventually(timeout: .seconds(120)) { script.log.values == ["late"] })
        #expect(await eventually(timeout: .seconds(120)) { store.runningEffectIDs.isEmpty })
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
                    await send(.got("a"))
                    await send(.got("b"))
                }
            })
        let store = script.makeStore()
        storeBox.value = store
        store.handle(action: .start(0))
        #expect(await eventually(timeout: .seconds(120)) { store.runningEffectIDs.isEmpty })
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
        // The effect ends once `.start` was handled: ending during it, its action would be handled by
        // the thread handling `.start`, the one that cancels below.
        let started = Gate()
        let script = Script(
            onGot: { _ in
                handling.signal()
                _ = release.wait(timeout: .now() + 120)
            },
            effect: { _ in
                ActionEffect(id: ID.search) {
                    await started.wait()
                    return .got("last")
                }
            })
        let store = script.makeStore()
        let result = await offThePool { () -> Bool? in
            store.handle(action: .start(0))
            started.open()
            guard handling.wait(timeout: .now() + 120) == .success else { return nil }
            let cancelled = store.cancel(id: ID.search)
            release.signal()
            return cancelled
        }
        #expect(result == false)
        #expect(await eventually(timeout: .seconds(120)) { script.log.values == ["last"] })
    }

    /// A concatenation (or a throttled effect, which runs as one) cancelled right after the handler
    /// that returned it: its first step was started at once, but its task, which cancels the steps,
    /// may not have run yet. Once `cancel(id:)` returned `true`, the first step's action must never
    /// be handled afterwards.
    @Test(arguments: [false, true])
    func aComposedEffectCancelledAtOnceNeverDeliversItsFirstStep(throttled: Bool) async {
        let script = Script { number in
            let first = ActionEffect<Action> { .got("first \(number)") }
            return throttled
                ? first.throttle(id: ID.chain, for: .zero, clock: ContinuousClock(), latest: false)
                : .concatenate(id: ID.chain, first, ActionEffect(.got("second \(number)")))
        }
        let store = script.makeStore()
        let runs = Soak.isFull ? 300 : 100
        // The test's power: enough runs where the cancel came while the effect ran. Its first step
        // returns at once and often ends before the cancel, the more so on a loaded machine: it runs
        // on, up to ten times as long, until a tenth of its runs were cancelled in time.
        let cancelledRuns = await offThePool { () -> [Int] in
            var cancelledRuns: [Int] = []
            for run in 0..<(runs * 10) {
                if run >= runs, cancelledRuns.count >= runs / 10 { break }
                store.handle(action: .start(run))
                if store.cancel(id: ID.chain) {
                    cancelledRuns.append(run)
                    script.log.append("cancelled \(run)")
                }
                let deadline = Date().addingTimeInterval(120)
                while !store.runningEffectIDs.isEmpty, Date() < deadline { usleep(100) }
            }
            return cancelledRuns
        }
        try? await Task.sleep(for: .milliseconds(200))
        // The first step may well be handled before the cancel (on an idle second core it often
        // is); after it, never.
        let log = script.log.values
        let late = cancelledRuns.filter { run in
            guard let cancelled = log.firstIndex(of: "cancelled \(run)") else { return false }
            return log[cancelled...].contains("first \(run)")
        }
        #expect(cancelledRuns.count >= runs / 10, "only \(cancelledRuns.count) of \(runs) cancels came in time")
        #expect(late.isEmpty, "\(late.count) of \(cancelledRuns.count) cancelled runs delivered their first step")
    }

    /// "A new effect with `id` replaces the whole concatenation (cancel in flight)": once the handler
    /// that returned the replacing one has run, the replaced concatenation's first step never
    /// delivers.
    @Test func aReplacedConcatenationNeverDeliversItsFirstStepAfterTheReplacement() async {
        let turns = Recorder<String>()
        let script = Script(
            onGot: { name in turns.append(name) },
            effect: { number in
                turns.append("start \(number)")
                return .concatenate(id: ID.chain, ActionEffect { .got("first \(number)") })
            })
        let store = script.makeStore()
        await offThePool {
            for pair in 0..<(Soak.isFull ? 3_000 : 500) {
                store.handle(action: .start(2 * pair))
                store.handle(action: .start(2 * pair + 1))
                let deadline = Date().addingTimeInterval(120)
                while !store.runningEffectIDs.isEmpty, Date() < deadline { usleep(100) }
            }
        }
        #expect(await eventually(timeout: .seconds(120)) { store.runningEffectIDs.isEmpty })
        var replaced = Set<String>()
        var late: [String] = []
        for entry in turns.values {
            if entry.hasPrefix("start "), let number = Int(entry.dropFirst(6)), number % 2 == 1 {
                replaced.insert("first \(number - 1)")
            } else if replaced.contains(entry) {
                late.append(entry)
            }
        }
        #expect(
            late.isEmpty,
            "\(late.count) replaced concatenations delivered after their replacement: \(late.prefix(3))")
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
        #expect(await eventually(timeout: .seconds(120)) { store.runningEffectIDs.contains(ID.save) })
        #expect(store.cancel(id: ID.chain))
        gate.open()
        #expect(await eventually(timeout: .seconds(120)) { store.runningEffectIDs.isEmpty })
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
        #expect(await eventually(timeout: .seconds(120)) { script.log.values == ["changed", "from observer"] })
        #expect(await eventually(timeout: .seconds(120)) { store.runningEffectIDs.isEmpty })
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
                        await send(.got("tick \(tick)"))
                        await Task.yield()
                    }
                }
            })
        let store = script.makeStore()
        await offThePool {
            store.handle(action: .start(0))
            guard handling.wait(timeout: .now() + 120) == .success else { return }
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
        #expect(await eventually(timeout: .seconds(120)) { script.log.values == ["refresh 1"] })
    }

    /// An empty concatenation and a merge of nothing leave no effect running.
    @Test func emptyCompositionsLeaveNothingRunning() async {
        let script = Script { number in
            number == 0 ? .concatenate(id: ID.save, []) : .merge([])
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        store.handle(action: .start(1))
        #expect(await eventually(timeout: .seconds(120)) { store.runningEffectIDs.isEmpty })
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
        #expect(await eventually(timeout: .seconds(120)) { !script.log.values.isEmpty })
        try? await Task.sleep(for: .milliseconds(400))
        #expect(script.log.values == ["query 19"])
        #expect(store.runningEffectIDs.isEmpty)
    }

    /// Twenty rapid re-sends of a throttled effect within one interval: the first runs at once, and
    /// once the interval ends, the last one with `latest`, the second one (the first that waited)
    /// without. The one running at once is never cancelled by those that wait.
    @Test(arguments: [true, false])
    func rapidThrottledResends(latest: Bool) async {
        let script = Script { number in
            ActionEffect { .got("refresh \(number)") }
                .throttle(id: ID.refresh, for: .seconds(1), clock: ContinuousClock(), latest: latest)
        }
        let store = script.makeStore()
        await offThePool {
            for number in 0..<20 { store.handle(action: .start(number)) }
        }
        // The second runs a second after the first; a loaded machine may take longer to get to it.
        #expect(await eventually(timeout: .seconds(120)) { script.log.values.count >= 2 })
        try? await Task.sleep(for: .milliseconds(300))
        #expect(script.log.values == (latest ? ["refresh 0", "refresh 19"] : ["refresh 0", "refresh 1"]))
    }

    // MARK: - Two stores, main actor

    /// Two stores whose effects send to each other, from many effects at once: no deadlock, no loss.
    @Test func twoStoresWhoseEffectsSendToEachOther() async {
        let rounds = Soak.isFull ? 200 : 50
        let peers = AttackBox<(Attacked?, Attacked?)>((nil, nil))
        let (left, right) = (Script.peer { peers.value.1 }, Script.peer { peers.value.0 })
        let (leftStore, rightStore) = (left.makeStore(), right.makeStore())
        peers.value = (leftStore, rightStore)
        await offThePool {
            for _ in 0..<8 {
                leftStore.handle(action: .start(rounds))
                rightStore.handle(action: .start(rounds))
            }
        }
        let total = 16 * rounds
        let done = await eventually(timeout: .seconds(120)) {
            left.log.values.count + right.log.values.count == total
        }
        #expect(done, "\(left.log.values.count + right.log.values.count) of \(total) actions handled")
        peers.value = (nil, nil)
    }

    /// A `.mainActor` store cancelled on the main actor while its effect's actions wait in the main
    /// queue: none of them is handled; then the released store is freed and handles nothing more.
    @Test func aMainActorStoresQueuedEffectActionsAreDroppedByCancelAndRelease() async {
        let (running, go, sending) = (AttackBox(false), AttackBox(false), AttackBox(false))
        let script = Script { _ in
            .run(id: ID.chain) { send in
                running.value = true
                while !go.value { await Task.yield() }
                sending.value = true
                for tick in 0..<50 { await send(.got("tick \(tick)")) }
            }
        }
        let holder = AttackBox<Payload?>(Payload())
        weak let payload = holder.value
        var store: Attacked? = script.makeStore(isolation: .mainActor, initialValues: [.payload: holder.value as Any])
        holder.value = nil
        store?.handle(action: .start(0))
        #expect(await eventually(timeout: .seconds(120)) { running.value })
        // Keep the main actor busy while the first tick is queued behind it, then cancel. (The main
        // actor must not wait for the effect itself: that is the one wait the store cannot see.)
        let (cancelled, queuedFirst) = await MainActor.run { [store] () -> (Bool?, Bool) in
            go.value = true
            // The effect needs no main actor to get to its first send: a bounded wait for it (under
            // ThreadSanitizer, with the pool busy, 10 s was once not enough).
            let deadline = Date().addingTimeInterval(30)
            while !sending.value, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            Thread.sleep(forTimeInterval: 0.1)
            return (store?.cancel(id: ID.chain), sending.value)
        }
        #expect(queuedFirst, "the first tick was not queued behind the busy main actor: nothing was tested")
        #expect(cancelled == true)
        store = nil
        #expect(await eventually(timeout: .seconds(120)) { payload == nil })
        try? await Task.sleep(for: .milliseconds(200))
        #expect(script.log.values.isEmpty, "\(script.log.values.count) ticks handled after cancel(id:) returned true")
    }

    /// A `.mainActor` store handles what an effect sends from its own thread on the main queue, in
    /// the order sent.
    @Test func aMainActorStoresSentActionsAreHandledOnTheMainQueueInOrder() async {
        let threads = Recorder<Bool>()
        let script = Script(
            onGot: { _ in threads.append(MainQueueMark.isCurrent) },
            effect: { _ in
                .run { send in
                    for tick in 0..<20 { await send(.got("tick \(tick)")) }
                }
            })
        let store = script.makeStore(isolation: .mainActor)
        await MainActor.run { store.handle(action: .start(0)) }
        #expect(await eventually(timeout: .seconds(120)) { script.log.values.count == 20 })
        #expect(script.log.values == (0..<20).map { "tick \($0)" })
        #expect(!threads.values.contains(false), "an action was handled off the main queue")
    }

    /// An effect that sends in a loop to a `.mainActor` store while the main actor is busy: its sends
    /// wait, so it does not queue actions on the main queue without bound.
    @Test func aFastEffectOfAMainActorStoreWaitsForTheMainActor() async {
        let sends = AttackBox(0)
        let script = Script { _ in
            .run(id: ID.chain) { send in
                while !Task.isCancelled {
                    sends.value += 1
                    await send(.got("tick"))
                }
            }
        }
        let store = script.makeStore(isolation: .mainActor)
        store.handle(action: .start(0))
        #expect(await eventually(timeout: .seconds(120)) { sends.value > 0 })
        let sentWhileBusy = await MainActor.run { () -> Int in
            let before = sends.value
            Thread.sleep(forTimeInterval: 0.3)  // the main actor is busy
            return sends.value - before
        }
        #expect(sentWhileBusy <= 1, "the effect sent \(sentWhileBusy) actions while the main actor was busy")
        #expect(store.cancel(id: ID.chain))
    }

    /// "Each action sent is handled before `send` returns" (EffectsAndCancellation.md, ``Send``):
    /// also for a `.mainActor` store.
    @Test func aMainActorStoresSendReturnsAfterItsActionWasHandled() async {
        let seen = AttackBox<String?>("unset")
        let storeBox = AttackBox<Attacked?>(nil)
        let script = Script(
            onGot: { _ in Thread.sleep(forTimeInterval: 0.1) },
            effect: { _ in
                .run { send in
                    await send(.got("sent"))
                    seen.value = storeBox.value?.get(.value, as: String.self)
                }
            })
        let store = script.makeStore(isolation: .mainActor)
        storeBox.value = store
        await MainActor.run { store.handle(action: .start(0)) }
        #expect(await eventually(timeout: .seconds(120)) { seen.value != "unset" })
        #expect(seen.value == "sent", "send returned before its action was handled on the main actor")
        storeBox.value = nil
    }
}
