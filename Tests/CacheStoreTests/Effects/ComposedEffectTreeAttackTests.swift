import CacheStore
import Dispatch
import Foundation
import Testing

/// Attacks on composed effects as trees: concatenations nested in concatenations, debounces of
/// throttles, throttles inside concatenations, parts sharing ids, cancellation by an inner or an outer
/// id, a composition replaced from its own step, released stores, many ids, and main-actor stores
/// whose effects send while the main actor waits.
///
/// One test at a time, with long loops only in the full soak (`Soak.isFull`), and generous waits:
/// run beside everything else on 2 cores (under ThreadSanitizer above all), its thousands of effect
/// tasks starved other suites' effects for 50 s.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ComposedEffectTreeAttackTests {
    typealias Key = ScriptKey
    typealias Action = ScriptAction
    typealias Payload = ScriptPayload
    typealias Script = EffectScript
    typealias Attacked = Store<Key, Action, Void>

    enum ID: Hashable, Sendable { case outer, inner, part, debounce, throttle }

    /// A single-action effect that sleeps `milliseconds`, then returns `.got(name)` even when it was
    /// cancelled: only the store may drop that action.
    static func after(_ milliseconds: Int, _ name: String, id: AnyHashable? = nil) -> ActionEffect<Action> {
        ActionEffect(id: id) {
            try? await Task.sleep(for: .milliseconds(milliseconds))
            return .got(name)
        }
    }

    /// Waits until no effect runs in `store`; false after 30 s (a leak in the lifecycle).
    static func ends(_ store: Attacked) async -> Bool {
        await eventually(timeout: .seconds(30)) { store.runningEffectIDs.isEmpty }
    }

    // MARK: - Nested concatenations

    /// `outer: [a, inner: [b, c], d]`: the steps run in order, the inner concatenation's steps
    /// included, and the whole tree ends.
    @Test func aConcatenationInsideAConcatenationsStepRunsInOrderAndEnds() async {
        let script = Script { _ in
            .concatenate(
                id: ID.outer,
                Self.after(5, "a"),
                .concatenate(id: ID.inner, Self.after(5, "b"), ActionEffect(.got("c"))),
                Self.after(5, "d", id: ID.part))
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(await eventually { script.log.values == ["a", "b", "c", "d"] }, "\(script.log.values)")
        #expect(await Self.ends(store), "left running: \(store.runningEffectIDs)")
    }

    /// `outer: [a, inner: [slow, b], c]` cancelled by `inner` or by `outer` while `slow` sleeps:
    /// cancel returns `true`; by `inner`, the outer concatenation goes on with `c`; by `outer`, nothing
    /// more is handled. Either way the tree ends.
    @Test(arguments: [ID.inner, ID.outer])
    func cancellingANestedConcatenationByTheInnerOrTheOuterID(cancelled: ID) async {
        let script = Script { _ in
            .concatenate(
                id: ID.outer,
                ActionEffect(.got("a")),
                .concatenate(id: ID.inner, Self.after(30_000, "slow"), ActionEffect(.got("b"))),
                ActionEffect(.got("c")))
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(await eventually { store.runningEffectIDs.contains(ID.inner) })
        #expect(store.cancel(id: cancelled))
        let expected = cancelled == .inner ? ["a", "c"] : ["a"]
        #expect(await eventually { script.log.values == expected })
        #expect(await Self.ends(store), "left running: \(store.runningEffectIDs)")
        try? await Task.sleep(for: .milliseconds(100))
        #expect(script.log.values == expected, "handled after cancel(id: \(cancelled)) returned true")
    }

    /// A concatenation whose step cancels the concatenation itself (`.cancel(id:)` of its own id):
    /// no later step runs and nothing is left running.
    @Test func aConcatenationThatCancelsItselfInAStepEnds() async {
        let script = Script { _ in
            .concatenate(
                id: ID.outer, Self.after(5, "a"), .cancel(id: ID.outer), ActionEffect(.got("b")), Self.after(5, "c"))
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(await eventually { script.log.values == ["a"] })
        #expect(await Self.ends(store), "left running: \(store.runningEffectIDs)")
        try? await Task.sleep(for: .milliseconds(100))
        #expect(script.log.values == ["a"])
    }

    // MARK: - Debounce and throttle inside compositions

    /// Ten rapid `start`s, each a throttled effect debounced: only the last one passes the debounce,
    /// the throttle starts it at once, it delivers once, and the tree ends.
    @Test func aDebounceOfAThrottleDeliversTheLastOnceAndEnds() async {
        let script = Script { number in
            Self.after(0, "\(number)", id: ID.part)
                .throttle(id: ID.throttle, for: .seconds(1), clock: ContinuousClock(), latest: true)
                .debounce(id: ID.debounce, for: .milliseconds(30), clock: ContinuousClock())
        }
        let store = script.makeStore()
        for number in 0..<10 { store.handle(action: .start(number)) }
        #expect(await eventually { script.log.values == ["9"] }, "\(script.log.values)")
        #expect(await Self.ends(store), "left running: \(store.runningEffectIDs)")
        try? await Task.sleep(for: .milliseconds(100))
        #expect(script.log.values == ["9"])
    }

    /// `outer: [a, throttled t]` twice in a row: the second throttled step waits for the interval's
    /// end inside its concatenation, then runs; both trees end.
    @Test func aThrottleInsideAConcatenationWaitsInItsStep() async {
        let script = Script { number in
            .concatenate(
                id: number,
                ActionEffect(.got("a\(number)")),
                Self.after(0, "t\(number)")
                    .throttle(id: ID.throttle, for: .milliseconds(300), clock: ContinuousClock(), latest: false))
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        store.handle(action: .start(1))
        #expect(await eventually { script.log.values.count == 4 }, "\(script.log.values)")
        #expect(Set(script.log.values) == ["a0", "t0", "a1", "t1"])
        #expect(await Self.ends(store), "left running: \(store.runningEffectIDs)")
    }

    /// A throttled effect (`latest: false`) waiting inside a concatenation or a debounce, cancelled
    /// through that composition's id. Nothing waits under the throttle's id any more, so the next
    /// throttled effect with that id, returned in the same interval, is "the first one" of the
    /// interval: it must run (ActionEffect+Timing.swift: "with `latest` `false`, newer ones are
    /// dropped while it waits (the first one runs)"). Only `cancel(id:)` of the throttle's own id
    /// forgets its schedule; the enclosing id leaves the cancelled one's start time booked.
    @Test(arguments: ["concatenation", "debounce"])
    func aThrottleCancelledThroughItsCompositionLetsTheNextOneRun(enclosedBy composition: String) async {
        let clock = ContinuousClock()
        let script = Script { number in
            let throttled = Self.after(0, "\(number)")
                .throttle(id: ID.throttle, for: .seconds(2), clock: clock, latest: false)
            switch (number, composition) {
            case (1, "concatenation"): return .concatenate(id: ID.outer, throttled)
            case (1, _): return throttled.debounce(id: ID.outer, for: .milliseconds(5), clock: clock)
            default: return throttled
            }
        }
        let store = script.makeStore()
        store.handle(action: .start(0))  // starts at once: the interval's start
        #expect(await eventually { script.log.values == ["0"] && store.runningEffectIDs.isEmpty })
        store.handle(action: .start(1))  // waits for the interval's end, in its composition
        #expect(await eventually { store.runningEffectIDs.contains(ID.throttle) })
        #expect(store.cancel(id: ID.outer))
        store.handle(action: .start(2))  // nothing waits now
        #expect(
            await eventually { script.log.values.contains("2") },
            "the throttled effect was dropped though nothing waited under its id: \(script.log.values)")
        #expect(!script.log.values.contains("1"))
        #expect(await Self.ends(store), "left running: \(store.runningEffectIDs)")
    }

    /// A throttled effect built once and returned by every `start` (a stored effect), `latest: false`,
    /// returned three times 300 ms apart with a 200 ms interval: each comes after the interval, so
    /// each starts ("Time is measured from the handler that returned the effect").
    @Test func aStoredThrottledEffectIsTimedFromTheHandlerThatReturnedIt() async {
        let runs = AttackBox(0)
        let throttled = ActionEffect<Action> {
            runs.value += 1
            return .got("run")
        }
        .throttle(id: ID.throttle, for: .milliseconds(200), clock: ContinuousClock(), latest: false)
        let script = Script { _ in throttled }
        let store = script.makeStore()
        for round in 1...3 {
            store.handle(action: .start(round))
            #expect(await eventually(timeout: .seconds(60)) { runs.value == round }, "run \(round) dropped")
            try? await Task.sleep(for: .milliseconds(300))
        }
        #expect(script.log.values == ["run", "run", "run"])
    }

    /// A debounced effect built once and returned by every `start`, returned twice 50 ms apart, 2 s
    /// after it was built, with a 1.5 s delay: only the second runs, 1.5 s after its handler
    /// ("waits until `duration` after the action that returned it"). (The delay is long enough that
    /// a thread descheduled between the two sends on a busy machine does not let the first run.)
    @Test func aStoredDebouncedEffectIsTimedFromTheHandlerThatReturnedIt() async {
        let runs = AttackBox(0)
        let debounced = ActionEffect<Action> {
            runs.value += 1
            return .got("run")
        }
        .debounce(id: ID.debounce, for: .milliseconds(1_500), clock: ContinuousClock())
        let script = Script { _ in debounced }
        let store = script.makeStore()
        try? await Task.sleep(for: .seconds(2))
        store.handle(action: .start(1))
        try? await Task.sleep(for: .milliseconds(50))
        let runsBeforeTheSecond = runs.value
        store.handle(action: .start(2))
        #expect(runsBeforeTheSecond == 0, "the first ran before its delay was over")
        #expect(await eventually { runs.value >= 1 })
        try? await Task.sleep(for: .milliseconds(300))
        #expect(runs.value == 1, "both debounced effects ran")
    }

    // MARK: - Parts sharing ids

    /// Merged parts of one step sharing an id replace each other as they do at the root ("it starts
    /// (replacing an effect running under its id)"): the slow one is dropped, the step ends when both
    /// ended, and the next step runs.
    @Test func mergedPartsOfAStepSharingAnIDReplaceEachOther() async {
        let script = Script { _ in
            .concatenate(
                id: ID.outer,
                .merge(Self.after(100, "slow", id: ID.part), Self.after(0, "fast", id: ID.part)),
                ActionEffect(.got("next")))
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(await eventually { script.log.values == ["fast", "next"] }, "\(script.log.values)")
        #expect(await Self.ends(store), "left running: \(store.runningEffectIDs)")
    }

    /// Merged parts of one step that both have the composition's id: the id names the whole, the
    /// next step still runs, and the tree ends (whether one part replaced the other is not
    /// documented: not asserted).
    @Test func mergedPartsWithTheCompositionsIDEndWithTheTree() async {
        let script = Script { _ in
            .concatenate(
                id: ID.outer,
                .merge(Self.after(50, "slow", id: ID.outer), Self.after(0, "fast", id: ID.outer)),
                ActionEffect(.got("next")))
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(await eventually { script.log.values.last == "next" }, "\(script.log.values)")
        #expect(await Self.ends(store), "left running: \(store.runningEffectIDs)")
    }

    /// A merged effect runs as its parts, each under its own id; its own `id` names nothing a store
    /// runs (``ActionEffect/merge(_:)-(ActionEffect?...)``): cancelling it finds nothing and leaves
    /// the parts running, and each part is cancelled by its own id.
    @Test func aMergedEffectsOwnIDNamesNothingItsPartsIDsDo() async {
        let merged = AttackBox<ActionEffect<Action>?>(nil)
        let script = Script { _ in
            let effect = ActionEffect<Action>.merge(
                Self.after(30_000, "a", id: ID.part), Self.after(30_000, "b", id: ID.inner))
            merged.value = effect
            return effect
        }
        let store = script.makeStore()
        store.handle(action: .start(0))
        guard let id = merged.value?.id else {
            Issue.record("no merged effect")
            return
        }
        #expect(store.runningEffectIDs == [ID.part, ID.inner])
        #expect(!store.cancel(id: id))
        #expect(store.runningEffectIDs == [ID.part, ID.inner])
        #expect(store.cancel(id: ID.part))
        #expect(store.cancel(id: ID.inner))
        #expect(await eventually { store.runningEffectIDs.isEmpty })
    }

    /// Two threads cancel a tree at once, one by the outer id, one by the id of the `run` part whose
    /// actions are being handled (each handler takes a millisecond): after either returned `true`,
    /// none of the part's actions is handled.
    @Test func twoThreadsCancellingATreeByTheOuterAndThePartIDAtOnce() async {
        let rounds = Soak.isFull ? 60 : 20
        let script = Script(
            onGot: { _ in Thread.sleep(forTimeInterval: 0.001) },
            effect: { round in
                .concatenate(
                    id: ID.outer,
                    .concatenate(
                        id: ID.inner,
                        .run(id: ID.part) { send in
                            for tick in 0..<1_000 { await send(.got("\(round) tick \(tick)")) }
                        }))
            })
        let store = script.makeStore()
        for round in 0..<rounds {
            store.handle(action: .start(round))
            #expect(await eventually { script.log.values.last?.hasPrefix("\(round) tick") == true })
            let ids: [ID] = round.isMultiple(of: 2) ? [.outer, .part] : [.inner, .part]
            await withTaskGroup(of: Void.self) { group in
                for id in ids {
                    group.addTask {
                        let cancelled = await offThePool { store.cancel(id: id) }
                        if cancelled { script.log.append("\(round) cancelled") }
                    }
                }
            }
            script.log.append("\(round) over")
        }
        let log = script.log.values
        var late: [String] = []
        for round in 0..<rounds {
            guard let cancelled = log.firstIndex(of: "\(round) cancelled") else { continue }
            late += log[cancelled...].filter { $0.hasPrefix("\(round) tick") }
        }
        #expect(late.isEmpty, "handled after cancel(id:) returned true: \(late.prefix(5))")
        #expect(await Self.ends(store), "left running: \(store.runningEffectIDs)")
    }

    // MARK: - Replacing a composition from inside it

    /// The handler of the first step's action returns a new concatenation with the same id: the old
    /// one's later actions are never handled, the new one runs whole, and nothing is left running.
    /// The first step is an immediate action, a single-action effect, or a `run` that sends again.
    @Test(arguments: ["immediate", "single", "run"])
    func aCompositionReplacedFromItsOwnStepsHandler(firstStep: String) async {
        let replaced = AttackBox(false)
        let script = Script(
            reaction: { name in
                guard name == "a", !replaced.value else { return nil }
                replaced.value = true
                return .concatenate(id: ID.outer, ActionEffect(.got("c")), Self.after(5, "d"))
            },
            effect: { _ in
                let first: ActionEffect<Action> =
                    switch firstStep {
                    case "immediate": ActionEffect(.got("a"))
                    case "single": Self.after(5, "a", id: ID.part)
                    default:
                        .run(id: ID.part) { send in
                            await send(.got("a"))
                            try? await Task.sleep(for: .milliseconds(20))
                            await send(.got("stale"))
                        }
                    }
                return .concatenate(id: ID.outer, first, Self.after(5, "b"))
            })
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(await eventually { script.log.values == ["a", "c", "d"] }, "\(script.log.values)")
        #expect(await Self.ends(store), "left running: \(store.runningEffectIDs)")
        try? await Task.sleep(for: .milliseconds(100))
        #expect(script.log.values == ["a", "c", "d"])
    }

    /// While a `run` part's action is handled on one thread, another thread cancels the part by its
    /// id (it waits for that handler); the handler then cancels the whole concatenation by its outer
    /// id. The concatenation was running and nothing of it is handled afterwards, so that
    /// `cancel(id:)` must return `true`, as it does when nobody else cancels the part (Store.swift:
    /// `false` only when nothing runs under the id, or from a handler of *another* store the
    /// delivering thread waits on).
    @Test func cancellingTheOuterIDFromTheHandlerWhileAnotherThreadCancelsThePartReturnsTrue() async {
        let handling = DispatchSemaphore(value: 0)
        let storeBox = AttackBox<Attacked?>(nil)
        let outerCancelled = AttackBox<Bool?>(nil)
        let script = Script(
            onGot: { name in
                guard name == "tick" else { return }
                handling.signal()
                Thread.sleep(forTimeInterval: 0.3)  // the other thread's cancel(id: part) waits by then
                outerCancelled.value = storeBox.value?.cancel(id: ID.outer)
            },
            effect: { _ in
                .concatenate(
                    id: ID.outer,
                    .run(id: ID.part) { send in await send(.got("tick")) },
                    Self.after(5, "next step"))
            })
        let store = script.makeStore()
        storeBox.value = store
        let partCancelled = await offThePool { () -> Bool in
            Thread { store.handle(action: .start(0)) }.start()
            guard handling.wait(timeout: .now() + 30) == .success else { return false }
            return store.cancel(id: ID.part)
        }
        #expect(partCancelled)
        #expect(await eventually { outerCancelled.value != nil })
        #expect(outerCancelled.value == true, "cancel(id: outer) returned false though the concatenation ran")
        #expect(await Self.ends(store), "left running: \(store.runningEffectIDs)")
        try? await Task.sleep(for: .milliseconds(100))
        #expect(script.log.values == ["tick"])
        storeBox.value = nil
    }

    // MARK: - Cancelling at every instant

    /// Round after round, a tree `outer: [run part sending 3, step action, inner: [single]]` is
    /// cancelled by the outer, inner or part id after a random delay, from another thread. After a
    /// `cancel(id:)` that returned `true`, nothing of the cancelled subtree is handled; after the
    /// round's final `cancel(id: outer)` (whatever it returned), nothing of the round at all; and
    /// nothing is left running.
    @Test func cancellingANestedTreeByEveryIDAtEveryInstant() async {
        let rounds = Soak.isFull ? 300 : 100
        let script = Script { round in
            .concatenate(
                id: ID.outer,
                .run(id: ID.part) { send in
                    for tick in 0..<3 {
                        await send(.got("\(round) part \(tick)"))
                        await Task.yield()
                    }
                },
                ActionEffect(.got("\(round) step")),
                .concatenate(id: ID.inner, ActionEffect { .got("\(round) inner") }))
        }
        let store = script.makeStore()
        let targets: [(ID, String)] = [(.outer, ""), (.inner, "inner"), (.part, "part")]
        await offThePool {
            for round in 0..<rounds {
                store.handle(action: .start(round))
                Self.spin(Int.random(in: 0..<40_000))
                let (target, subtree) = targets[round % 3]
                if store.cancel(id: target) { script.log.append("\(round) cancelled \(subtree)") }
                store.cancel(id: ID.outer)
                script.log.append("\(round) over")
            }
        }
        let log = script.log.values
        var violations: [String] = []
        for round in 0..<rounds {
            let prefix = "\(round) "
            let (_, subtree) = targets[round % 3]
            if let over = log.firstIndex(of: "\(round) over") {
                violations += log[over...].filter { $0.hasPrefix(prefix) && $0 != "\(round) over" }
            }
            if let cancelled = log.firstIndex(of: "\(round) cancelled \(subtree)") {
                violations += log[cancelled...].filter { entry in
                    entry.hasPrefix(prefix + subtree) && !entry.contains("cancelled") && !entry.contains("over")
                }
            }
        }
        #expect(violations.isEmpty, "handled after their cancel: \(violations.prefix(10))")
        #expect(await Self.ends(store), "left running: \(store.runningEffectIDs)")
    }

    /// Busy-waits about `iterations` loop turns: a delay finer than `Thread.sleep`.
    static func spin(_ iterations: Int) {
        var sum = 0
        for index in 0..<iterations { sum &+= index }
        if sum == -1 { print(sum) }
    }

    // MARK: - Released stores

    /// A store released while a throttled effect waits for its interval's end inside a concatenation:
    /// its state is freed, and nothing is delivered.
    @Test func aStoreReleasedWhileAThrottleWaitsInAConcatenationIsFreed() async {
        let script = Script { number in
            .concatenate(
                id: number,
                Self.after(0, "t\(number)")
                    .throttle(id: ID.throttle, for: .seconds(1), clock: ContinuousClock(), latest: true))
        }
        weak var payload: Payload?
        do {
            let value = Payload()
            payload = value
            let store = script.makeStore(initialValues: [.payload: value])
            store.handle(action: .start(0))
            #expect(await eventually { script.log.values == ["t0"] })
            store.handle(action: .start(1))
            #expect(store.runningEffectIDs.contains(ID.throttle))
        }
        #expect(await eventually(timeout: .seconds(60)) { payload == nil }, "the released store's state was kept")
        try? await Task.sleep(for: .milliseconds(1_200))
        #expect(script.log.values == ["t0"], "delivered after the store was released")
    }

    /// A store released by the handler of a nested concatenation's step action (its last reference
    /// dropped there, on an effect's thread): nothing later is handled and the state is freed.
    @Test func aStoreReleasedWhileItsCompositionDeliversHandlesNothingMore() async {
        let holder = AttackBox<Attacked?>(nil)
        let script = Script(
            onGot: { name in if name == "a" { holder.value = nil } },
            effect: { _ in
                .concatenate(
                    id: ID.outer,
                    .concatenate(id: ID.inner, Self.after(5, "a"), ActionEffect(.got("b"))),
                    Self.after(5, "c"))
            })
        weak var payload: Payload?
        do {
            let value = Payload()
            payload = value
            holder.value = script.makeStore(initialValues: [.payload: value])
            holder.value?.handle(action: .start(0))
        }
        #expect(await eventually(timeout: .seconds(60)) { payload == nil }, "the released store's state was kept")
        try? await Task.sleep(for: .milliseconds(100))
        #expect(script.log.values == ["a"], "handled after the store was released")
    }

    // MARK: - Many ids

    /// Hundreds of distinct debounce and throttle ids: each delivers once, and none stays listed.
    @Test func manyDistinctDebounceAndThrottleIDsAllEnd() async {
        let count = 400
        let clock = ContinuousClock()
        let script = Script { number in
            let effect = Self.after(0, "\(number)")
            return number.isMultiple(of: 2)
                ? effect.debounce(id: "debounce \(number)", for: .milliseconds(1), clock: clock)
                : effect.throttle(id: "throttle \(number)", for: .milliseconds(1), clock: clock, latest: true)
        }
        let store = script.makeStore()
        await offThePool {
            for number in 0..<count { store.handle(action: .start(number)) }
        }
        #expect(await eventually { script.log.values.count == count }, "\(script.log.values.count) of \(count)")
        #expect(Set(script.log.values).count == count)
        #expect(await Self.ends(store), "left running: \(store.runningEffectIDs.count) ids")
    }

    // MARK: - Main-actor stores

    /// A `.mainActor` store's nested tree with a `run` part: every action is handled on the main queue,
    /// in order, and the tree ends.
    @Test func aMainActorStoresNestedTreeRunsOnTheMainQueueAndEnds() async {
        let offMain = AttackBox(0)
        let script = Script(
            onGot: { _ in if !MainQueueMark.isCurrent { offMain.value += 1 } },
            effect: { _ in
                .concatenate(
                    id: ID.outer,
                    .run(id: ID.part) { send in for tick in 0..<5 { await send(.got("tick \(tick)")) } },
                    .concatenate(id: ID.inner, Self.after(5, "inner"), ActionEffect(.got("step")))
                        .debounce(id: ID.debounce, for: .milliseconds(5), clock: ContinuousClock()))
            })
        let store = script.makeStore(isolation: .mainActor)
        store.handle(action: .start(0))
        let expected = (0..<5).map { "tick \($0)" } + ["inner", "step"]
        #expect(await eventually { script.log.values == expected }, "\(script.log.values)")
        #expect(offMain.value == 0, "handled off the main queue")
        #expect(await Self.ends(store), "left running: \(store.runningEffectIDs)")
    }

    /// A `.mainActor` store's effect takes the turn of an `.anyThread` store, whose handler sends back
    /// through the effect's `Send` (from a task: a send is async), while the main actor sends to that
    /// `.anyThread` store (it waits for the effect's thread): the send never blocks, so whichever comes
    /// first, both actions are handled.
    @Test(arguments: [true, false])
    func aMainActorStoresSendWhileTheMainActorWaitsForTheEffectsThread(mainWaitsFirst: Bool) async {
        let sendBack = AttackBox<Send<Action>?>(nil)
        let (inHandler, go, sentBack) = (AttackBox(false), AttackBox(false), AttackBox(false))
        let other = Script(
            onGot: { name in
                guard name == "from effect" else { return }
                inHandler.value = true
                let deadline = Date() + 10
                while !go.value, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
                if mainWaitsFirst { Thread.sleep(forTimeInterval: 0.2) }  // the main actor waits by then
                let send = sendBack.value
                Task {
                    await send?(.got("sent back"))
                    sentBack.value = true
                }
            }, effect: { _ in nil })
        let otherStore = other.makeStore()
        let main = Script { _ in
            .run { send in
                sendBack.value = send
                // On a thread of its own: the handler blocks, and the pool has only as many threads
                // as cores.
                await offThePool { otherStore.handle(action: .got("from effect")) }
                // Alive until the handler's task sent back: a send after the effect ended is dropped.
                let deadline = Date() + 60
                while !sentBack.value, Date() < deadline { try? await Task.sleep(for: .milliseconds(1)) }
            }
        }
        let mainStore = main.makeStore(isolation: .mainActor)
        mainStore.handle(action: .start(0))
        #expect(await eventually { inHandler.value })
        await MainActor.run {
            go.value = true
            if !mainWaitsFirst { Thread.sleep(forTimeInterval: 0.2) }  // the effect's send waits by then
            otherStore.handle(action: .got("from main"))
        }
        #expect(await eventually { main.log.values == ["sent back"] }, "\(main.log.values)")
        #expect(await eventually { other.log.values == ["from effect", "from main"] }, "\(other.log.values)")
        #expect(await Self.ends(mainStore))
        sendBack.value = nil
    }

    /// Two `.mainActor` stores whose effects send to each other, many at once: no deadlock, no loss.
    @Test func twoMainActorStoresWhoseEffectsSendToEachOther() async {
        let rounds = Soak.isFull ? 50 : 20
        let peers = AttackBox<(Attacked?, Attacked?)>((nil, nil))
        let (left, right) = (Script.peer { peers.value.1 }, Script.peer { peers.value.0 })
        let (leftStore, rightStore) = (left.makeStore(isolation: .mainActor), right.makeStore(isolation: .mainActor))
        peers.value = (leftStore, rightStore)
        for _ in 0..<8 {
            leftStore.handle(action: .start(rounds))
            rightStore.handle(action: .start(rounds))
        }
        let total = 16 * rounds
        #expect(
            await eventually { left.log.values.count + right.log.values.count == total },
            "\(left.log.values.count + right.log.values.count) of \(total) handled")
        #expect(await Self.ends(leftStore))
        #expect(await Self.ends(rightStore))
        peers.value = (nil, nil)
    }

    /// A `.mainActor` store's effect sends to an `.anyThread` store whose handler, and whose effect,
    /// send back to the main-actor store: no deadlock, every action handled, nothing left running.
    @Test func aMainActorStoresEffectSendsToAnAnyThreadStoreThatSendsBack() async {
        let count = 50
        let mainBox = AttackBox<Attacked?>(nil)
        let other = Script { number in
            mainBox.value?.handle(action: .got("handler \(number)"))
            return ActionEffect { [mainBox] in
                mainBox.value?.handle(action: .got("effect \(number)"))
                return nil
            }
        }
        let otherStore = other.makeStore()
        let main = Script { _ in
            .concatenate(
                id: ID.outer,
                .run(id: ID.part) { send in
                    for number in 0..<count {
                        otherStore.handle(action: .start(number))
                        await send(.got("sent \(number)"))
                    }
                })
        }
        let mainStore = main.makeStore(isolation: .mainActor)
        mainBox.value = mainStore
        mainStore.handle(action: .start(0))
        #expect(await eventually { main.log.values.count == 3 * count }, "\(main.log.values.count) of \(3 * count)")
        #expect(await Self.ends(mainStore))
        #expect(await Self.ends(otherStore))
        mainBox.value = nil
    }
}
