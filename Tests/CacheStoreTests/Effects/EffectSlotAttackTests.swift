import CacheStore
import Dispatch
import Foundation
import Testing

extension CPUHeavySuites {
    /// Attacks on the effect engine's slots and turn: an effect is kept in a reused slot found by a
    /// ticket (slot + serial), and its actions and end take an idle store's turn without a lock.
    ///
    /// - A stale ticket (a kept `send`, a late last action, a cancelled effect's end) never reaches the
    ///   newer effect kept in the same slot, also under churn from several threads.
    /// - `cancel(id:)` returning `true` means nothing that effect sends is handled afterwards, with
    ///   several threads cancelling at once, for lone, concatenated, debounced, throttled, merged and
    ///   scoped effects.
    /// - One effect's actions are handled in order while other threads send and handlers re-enter.
    /// - Releasing a store cancels all of its effects, also one its handler starts during the release.
    /// - Values released when an effect ends, whose `deinit` re-enters the store, do not deadlock.
    ///
    /// Each test is named for the promise it guards. (Their memory per effect id is measured in a process
    /// of its own: `EffectMemoryTests`.) Waits are long (60-120 s) only where reached when something is
    /// wrong or the pool starves.
    @Suite(.serialized, .timeLimit(.minutes(10))) struct EffectSlotAttackTests {
        typealias Attacked = Store<ScriptKey, ScriptAction, Void>

        /// Waits until `store` runs no effect.
        static func ends(_ store: Attacked) async -> Bool {
            await eventually(timeout: .seconds(120)) { store.runningEffectIDs.isEmpty }
        }

        /// Busy-waits about `iterations` loop turns: a delay finer than `Thread.sleep`.
        static func spin(_ iterations: Int) {
            var sum = 0
            for index in 0..<iterations { sum &+= index }
            if sum == -1 { print(sum) }
        }

        /// Suspends until the calling task is cancelled, without a thread.
        static func untilCancelled() async {
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
        }

        // MARK: - Stale tickets and reused slots

        /// A cancelled effect's kept `send`, called once a newer effect reuses its slot, is dropped, and
        /// leaves the newer effect running and delivering.
        @Test(arguments: [true, false])
        func aStaleSendNeverReachesTheEffectThatReusedItsSlot(cancelledFirst: Bool) async {
            let kept = AttackBox<Send<ScriptAction>?>(nil)
            let gate = Gate()
            let script = EffectScript { round in
                switch round {
                case 0:
                    .run(id: "old") { send in
                        kept.value = send
                        if cancelledFirst { await Self.untilCancelled() }
                    }
                default:
                    .run(id: "new") { send in
                        await gate.wait()
                        await send(.got("new"))
                    }
                }
            }
            let store = script.makeStore()
            store.handle(action: .start(0))
            #expect(await eventually(timeout: .seconds(60)) { kept.value != nil })
            if cancelledFirst {
                #expect(store.cancel(id: "old"))
            } else {
                #expect(await eventually(timeout: .seconds(60)) { store.runningEffectIDs.isEmpty })
            }
            store.handle(action: .start(1))  // the old effect's slot is free: the new one takes it
            await kept.value?(.got("stale"))
            #expect(store.runningEffectIDs == ["new"], "the stale send ended or replaced the new effect")
            gate.open()
            #expect(await Self.ends(store))
            #expect(script.log.values == ["new"])
        }

        /// A cancelled effect that ignores cancellation returns its last action after a newer effect took
        /// its slot: the action is dropped, and the newer effect is neither ended nor un-named by it.
        @Test func aCancelledEffectsLateEndNeverEndsTheEffectInItsSlot() async {
            let oldGate = Gate()
            let newGate = Gate()
            let oldReturned = AttackBox(false)
            let script = EffectScript { round in
                switch round {
                case 0:
                    ActionEffect(id: "old") {
                        await oldGate.wait()
                        oldReturned.value = true
                        return .got("late")
                    }
                default:
                    ActionEffect(id: "new") {
                        await newGate.wait()
                        return .got("new")
                    }
                }
            }
            let store = script.makeStore()
            store.handle(action: .start(0))
            #expect(store.cancel(id: "old"))
            store.handle(action: .start(1))
            oldGate.open()
            #expect(await eventually(timeout: .seconds(60)) { oldReturned.value })
            try? await Task.sleep(for: .milliseconds(50))
            #expect(store.runningEffectIDs == ["new"], "the old effect's end reached the new one")
            newGate.open()
            #expect(await Self.ends(store))
            #expect(script.log.values == ["new"])
            #expect(store.cancel(id: "new") == false)
        }

        /// A burst of 100 effects is cancelled, so that the slots are emptied and made anew; one of the
        /// burst ignores cancellation. A new effect then takes slot 0 again: the burst's kept `send`s and
        /// the late effect's last action, all with tickets of the old slots, are dropped, and the new
        /// effect runs on and delivers.
        @Test func staleTicketsFromABurstWhoseSlotsWereMadeAnew() async {
            let sends = Guarded<[Int: Send<ScriptAction>]>([:])
            let lateGate = Gate()
            let newGate = Gate()
            let lateReturned = AttackBox(false)
            let script = EffectScript { number in
                switch number {
                case 0:
                    ActionEffect(id: number) {
                        await lateGate.wait()
                        lateReturned.value = true
                        return .got("late")
                    }
                case 1..<100:
                    .run(id: number) { send in
                        sends.change { $0[number] = send }
                        await Self.untilCancelled()
                    }
                default:
                    .run(id: "new") { send in
                        await newGate.wait()
                        await send(.got("new"))
                    }
                }
            }
            let store = script.makeStore()
            for number in 0..<100 { store.handle(action: .start(number)) }
            #expect(await eventually(timeout: .seconds(60)) { sends.read { $0.count } == 99 })
            for number in 0..<100 { #expect(store.cancel(id: number)) }
            store.handle(action: .start(100))
            for send in sends.read({ $0.values }) { await send(.got("stale")) }
            lateGate.open()
            #expect(await eventually(timeout: .seconds(60)) { lateReturned.value })
            try? await Task.sleep(for: .milliseconds(50))
            #expect(store.runningEffectIDs == ["new"], "a stale ticket ended or replaced the new effect")
            newGate.open()
            #expect(await Self.ends(store))
            #expect(script.log.values == ["new"])
        }

        /// Four threads each start and cancel effects with distinct ids, thousands in all, `burst` at a
        /// time, firing the kept `send`s of effects already cancelled while their next burst runs: slots
        /// are reused all the time (and with bursts of 100, over 64 slots are emptied and made anew
        /// whenever every effect has ended), and not one stale send is handled. Every cancel finds its
        /// effect running, and nothing is left running afterwards.
        @Test(arguments: [1, 100])
        func staleSendsUnderSlotChurnFromSeveralThreads(burst: Int) async {
            let perThread = Soak.isFull ? 20_000 : 1_000
            let threads = 4
            let sends = Guarded<[Int: Send<ScriptAction>]>([:])
            let cancelled = Guarded<Set<Int>>([])
            let stale = Recorder<String>()
            let script = EffectScript(
                onGot: { name in
                    if cancelled.read({ $0.contains(Int(name)!) }) { stale.append(name) }
                },
                effect: { number in
                    .run(id: number) { send in
                        sends.change { $0[number] = send }
                        await Self.untilCancelled()
                    }
                })
            let store = script.makeStore()
            let wasRunning = Guarded(0)
            await withTaskGroup(of: Void.self) { group in
                for thread in 0..<threads {
                    group.addTask {
                        await offThePool {
                            let first = thread * 10_000_000
                            for batch in stride(from: first, to: first + perThread, by: burst) {
                                let numbers = batch..<batch + burst
                                for number in numbers { store.handle(action: .start(number)) }
                                // While this burst runs, fire kept sends of effects whose cancel returned true.
                                for _ in 0..<burst where batch > first {
                                    let victim = Int.random(in: first..<batch)
                                    if cancelled.read({ $0.contains(victim) }), let send = sends.read({ $0[victim] }) {
                                        sendBlocking(send, .got("\(victim)"))
                                    }
                                }
                                Self.spin(Int.random(in: 0..<2_000))
                                for number in numbers where store.cancel(id: number) {
                                    cancelled.change { $0.insert(number) }
                                    wasRunning.change { $0 += 1 }
                                }
                            }
                        }
                    }
                }
            }
            #expect(wasRunning.read { $0 } == perThread * threads, "every cancel found its effect running")
            #expect(stale.values.isEmpty, "stale sends handled: \(stale.values.prefix(10))")
            #expect(await Self.ends(store), "left running: \(store.runningEffectIDs.prefix(10))")
        }

        // MARK: - cancel(id:) from several threads

        /// The kinds of effect the cancel attacks start; each ticks `ticks` times, ignoring cancellation.
        enum Kind: String, CaseIterable, Sendable {
            case run, concatenationByOuterID, concatenationByPartID, debounce, throttle, throttleWaiting, mergePart,
                scoped
        }

        static let ticks = 30

        /// A ticking effect of round `round`, labelled `label`, under `id`: it ignores cancellation.
        static func ticking(_ round: Int, _ label: String, id: AnyHashable) -> ActionEffect<ScriptAction> {
            .run(id: id) { send in
                for tick in 0..<ticks {
                    await send(.got("\(round) \(label) \(tick)"))
                    await Task.yield()
                }
            }
        }

        /// The effect of `kind` for `round`, and the id `cancel(id:)` targets with the labels it covers.
        static func effect(_ kind: Kind, _ round: Int) -> (ActionEffect<ScriptAction>, target: String, covers: [String])
        {
            let clock = ContinuousClock()
            switch kind {
            case .run, .scoped:
                return (ticking(round, "a", id: "a\(round)"), "a\(round)", ["a"])
            case .concatenationByOuterID, .concatenationByPartID:
                let effect = ActionEffect.concatenate(
                    id: "outer\(round)",
                    ticking(round, "a", id: "a\(round)"),
                    ActionEffect(.got("\(round) b step")),
                    ticking(round, "b", id: "b\(round)"))
                let byOuterID = kind == .concatenationByOuterID
                return byOuterID ? (effect, "outer\(round)", ["a", "b"]) : (effect, "a\(round)", ["a"])
            case .debounce:
                let effect = ticking(round, "a", id: "a\(round)").debounce(
                    id: "d\(round)", for: .microseconds(Int.random(in: 0..<300)), clock: clock)
                return (effect, "d\(round)", ["a"])
            case .throttle:
                let effect = ticking(round, "a", id: "a\(round)").throttle(
                    id: "t\(round)", for: .milliseconds(1), clock: clock, latest: true)
                return (effect, "t\(round)", ["a"])
            case .throttleWaiting:
                // The second waits for the first's interval to end, then replaces it.
                let first = ActionEffect<ScriptAction>(id: "q\(round)") { nil }
                let effect = ActionEffect.merge(
                    first.throttle(id: "t\(round)", for: .microseconds(300), clock: clock, latest: true),
                    ticking(round, "a", id: "a\(round)").throttle(
                        id: "t\(round)", for: .microseconds(300), clock: clock, latest: true))
                return (effect, "t\(round)", ["a"])
            case .mergePart:
                let effect = ActionEffect.merge(
                    ticking(round, "a", id: "a\(round)"), ticking(round, "b", id: "b\(round)"))
                return (effect, "a\(round)", ["a"])
            }
        }

        /// Round after round, one thread starts an effect while three threads cancel its id at once after
        /// random delays and a fourth sends other actions. After any of those `cancel(id:)`s returned
        /// `true`, no action the cancelled effect (or its cancelled parts) sent is handled — for a scoped
        /// store, neither by it nor by its parent.
        @Test(arguments: Kind.allCases)
        func cancelReturningTrueStopsEveryDeliveryWhileThreadsRace(kind: Kind) async {
            let rounds = Soak.isFull ? 1_000 : 150
            // Each handler takes a while, so that many cancels land while an action is in hand.
            let script = EffectScript(
                onGot: { _ in Self.spin(Int.random(in: 0..<5_000)) }, effect: { round in Self.effect(kind, round).0 })
            let parentLog = Recorder<String>()
            let parent = Store<ScriptKey, ScriptAction, Void>(
                initialValues: [:],
                actionHandler: StoreActionHandler { _, action, _ in
                    if case .got(let name) = action { parentLog.append(name) }
                    return .none
                })
            let child: Attacked
            if kind == .scoped {
                child = parent.scope(
                    keys: [.value, .payload],
                    actionHandler: StoreActionHandler<ScriptKey, ScriptAction, Void> { state, action, _ in
                        switch action {
                        case .start(let round): return Self.effect(kind, round).0
                        case .got(let name):
                            script.log.append(name)
                            script.onGot(name)
                            state.set(value: name, forKey: .value)
                            return .none
                        }
                    },
                    dependencyTransformation: { _ in () },
                    actionTransformation: { action in action })
            } else {
                child = script.makeStore()
            }
            let started = AttackBox(-1)
            let done = AttackBox(false)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await offThePool {
                        for round in 0..<rounds {
                            child.handle(action: .start(round))
                            started.value = round
                            Self.spin(Int.random(in: 0..<60_000))
                        }
                    }
                }
                for _ in 0..<3 {
                    group.addTask {
                        await offThePool {
                            for round in 0..<rounds {
                                while started.value < round { usleep(50) }
                                Self.spin(Int.random(in: 0..<40_000))
                                let target = Self.effect(kind, round).target
                                if child.cancel(id: target) {
                                    script.log.append("\(round) cancelled")
                                    parentLog.append("\(round) cancelled")
                                }
                            }
                        }
                    }
                }
                group.addTask {
                    await offThePool {
                        while !done.value {
                            parent.handle(action: .got("noise"))
                            if kind != .scoped { child.handle(action: .got("noise")) }
                            usleep(200)
                        }
                    }
                }
                await group.next()
                for _ in 0..<3 { await group.next() }
                done.value = true
            }
            var violations: [String] = []
            for log in [script.log.values, parentLog.values] {
                for round in 0..<rounds {
                    guard let cancelledAt = log.firstIndex(of: "\(round) cancelled") else { continue }
                    let covered = Self.effect(kind, round).covers.map { "\(round) \($0) " }
                    violations += log[cancelledAt...].filter { entry in covered.contains { entry.hasPrefix($0) } }
                }
            }
            #expect(violations.isEmpty, "handled after cancel(id:) returned true: \(violations.prefix(10))")
            let cancelledRounds = script.log.values.filter { $0.hasSuffix(" cancelled") }.count
            #expect(cancelledRounds > 0, "no cancel found its effect running: the attack attacked nothing")
            for round in 0..<rounds { child.cancel(id: "outer\(round)") }
            #expect(await Self.ends(child), "left running: \(child.runningEffectIDs.prefix(10))")
        }

        /// A main-actor store's effect ticks on the main queue while three threads cancel it at once:
        /// once one `cancel(id:)` returned `true`, no tick is handled. The main actor is never blocked.
        @Test func cancelOfAMainActorStoresEffectFromThreeThreadsAtOnce() async {
            let rounds = Soak.isFull ? 200 : 30
            let script = EffectScript { round in Self.ticking(round, "a", id: "a\(round)") }
            let store = script.makeStore(isolation: .mainActor)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        await offThePool {
                            for round in 0..<rounds {
                                let deadline = Date().addingTimeInterval(30)
                                while !script.log.values.contains("\(round) a 0"), Date() < deadline { usleep(100) }
                                Self.spin(Int.random(in: 0..<40_000))
                                if store.cancel(id: "a\(round)") { script.log.append("\(round) cancelled") }
                            }
                        }
                    }
                }
                group.addTask {
                    await offThePool {
                        for round in 0..<rounds {
                            store.handle(action: .start(round))
                            let deadline = Date().addingTimeInterval(30)
                            while !script.log.values.contains("\(round) a 0"), Date() < deadline { usleep(100) }
                            Self.spin(Int.random(in: 0..<80_000))
                        }
                    }
                }
            }
            let log = script.log.values
            var violations: [String] = []
            for round in 0..<rounds {
                guard let cancelledAt = log.firstIndex(of: "\(round) cancelled") else { continue }
                violations += log[cancelledAt...].filter { $0.hasPrefix("\(round) a ") }
            }
            #expect(violations.isEmpty, "ticks handled after cancel(id:) returned true: \(violations.prefix(10))")
            let cancelledRounds = log.filter { $0.hasSuffix(" cancelled") }.count
            #expect(cancelledRounds > rounds / 2, "most rounds were cancelled while running")
            #expect(await Self.ends(store))
        }

        // MARK: - Order, and the lock-free turn

        /// One effect sends 0..<n while three threads send other actions to the store (and, for a scoped
        /// store, to its parent, which shares its turn), and each of the effect's actions re-enters the
        /// store from its handler: the effect's actions, and the re-entrant ones, are each handled once,
        /// in order, and never two handlers at once.
        @Test(arguments: [false, true])
        func anEffectsActionsStayInOrderWhileOtherThreadsSendAndHandlersReenter(scoped: Bool) async {
            let count = Soak.isFull ? 50_000 : 3_000
            let occupancy = Occupancy()
            let box = AttackBox<Attacked?>(nil)
            let log = Recorder<String>()
            let handler = StoreActionHandler<ScriptKey, ScriptAction, Void> { state, action, _ in
                occupancy.enter()
                defer { occupancy.leave() }
                switch action {
                case .start:
                    return .run { send in
                        for index in 0..<count { await send(.got("e\(index)")) }
                    }
                case .got(let name):
                    state.set(value: name, forKey: .value)
                    if name.hasPrefix("r") { log.append(name) }
                    guard name.hasPrefix("e") else { return .none }
                    log.append(name)
                    box.value?.handle(action: .got("r" + name.dropFirst()))  // re-entrant: queued
                    return .none
                }
            }
            let parent = Store<ScriptKey, ScriptAction, Void>(
                initialValues: [:],
                actionHandler: StoreActionHandler { _, _, _ in
                    occupancy.enter()
                    occupancy.leave()
                    return .none
                })
            let store: Attacked
            if scoped {
                store = parent.scope(
                    keys: [.value], actionHandler: handler, dependencyTransformation: { _ in () },
                    actionTransformation: { action in action })
            } else {
                store = Store(initialValues: [:], actionHandler: handler)
            }
            box.value = store
            let done = AttackBox(false)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        await offThePool {
                            while !done.value {
                                (scoped ? parent : store).handle(action: .got("noise"))
                                Self.spin(Int.random(in: 0..<2_000))
                            }
                        }
                    }
                }
                store.handle(action: .start(0))
                _ = await eventually(timeout: .seconds(120)) { log.values.count >= 2 * count }
                done.value = true
            }
            let entries = log.values
            let sent = entries.filter { $0.hasPrefix("e") }
            let reentered = entries.filter { $0.hasPrefix("r") }
            #expect(sent == (0..<count).map { "e\($0)" }, "the effect's actions were lost, repeated or reordered")
            #expect(reentered == (0..<count).map { "r\($0)" }, "re-entrant actions lost, repeated or reordered")
            #expect(occupancy.overlaps == 0, "two handlers of one store tree ran at once")
            box.value = nil
        }

        /// A value several threads read and change, each change whole under a lock.
        final class Guarded<Value>: @unchecked Sendable {
            private let lock = NSLock()
            private var value: Value

            init(_ value: Value) {
                self.value = value
            }

            func read<Result>(_ body: (Value) -> Result) -> Result {
                lock.withLock { body(value) }
            }

            func change(_ body: (inout Value) -> Void) {
                lock.withLock { body(&value) }
            }
        }

        /// Counts the handlers of one store tree running at once.
        final class Occupancy: @unchecked Sendable {
            private let lock = NSLock()
            private var inside = 0
            private var overlapCount = 0

            func enter() {
                lock.withLock {
                    inside += 1
                    if inside > 1 { overlapCount += 1 }
                }
            }

            func leave() {
                lock.withLock { inside -= 1 }
            }

            var overlaps: Int { lock.withLock { overlapCount } }
        }

        // MARK: - Store release

        /// Releasing a store cancels all its effects — also one that its handler, running at that moment
        /// on an effect's thread, starts an instant later: the store's `deinit` closes the lifecycle
        /// (`EffectLifecycle.close()`), so an effect started in it afterwards is cancelled at once.
        @Test func anEffectStartedByAHandlerWhileTheStoreIsReleasedIsCancelled() async {
            let inHandler = DispatchSemaphore(value: 0)
            let released = DispatchSemaphore(value: 0)
            let lateStarted = AttackBox(false)
            let lateCancelled = AttackBox(false)
            let testOver = AttackBox(false)
            let script = EffectScript(
                onGot: { name in
                    guard name == "arm" else { return }
                    inHandler.signal()
                    _ = released.wait(timeout: .now() + 60)  // the test releases the store meanwhile
                },
                reaction: { name in
                    guard name == "arm" else { return nil }
                    return .run(id: "late") { _ in
                        lateStarted.value = true
                        await withTaskCancellationHandler {
                            while !testOver.value, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
                        } onCancel: {
                            lateCancelled.value = true
                        }
                    }
                },
                // The effect sends from a thread of its own, so that the handler it runs holds that
                // thread, not one of the pool's two: with the pool's other thread busy in another
                // suite, this test's own continuation had to wait for the handler's 60 s timeout.
                effect: { _ in .run(id: "feeder") { send in await send(.got("arm")) } })
            let box = AttackBox<Attacked?>(script.makeStore())
            weak let weakStore = box.value
            box.value?.handle(action: .start(0))
            #expect(await offThePool { inHandler.wait(timeout: .now() + 60) == .success })
            box.value = nil  // the last reference: the store's deinit cancels its effects
            #expect(weakStore == nil, "the store outlived its last reference")
            released.signal()
            #expect(await eventually(timeout: .seconds(60)) { lateStarted.value })
            #expect(
                await eventually { lateCancelled.value },
                "an effect started by the released store's handler was never cancelled")
            testOver.value = true
        }

        // MARK: - Values whose deinit re-enters the store

        /// An effect id (a class) whose `deinit` re-enters the store it was kept in.
        final class ReentrantID: Hashable, @unchecked Sendable {
            let name: String
            let onDeinit: (@Sendable () -> Void)?

            init(_ name: String, onDeinit: (@Sendable () -> Void)? = nil) {
                self.name = name
                self.onDeinit = onDeinit
            }

            deinit { onDeinit?() }

            static func == (lhs: ReentrantID, rhs: ReentrantID) -> Bool { lhs.name == rhs.name }
            func hash(into hasher: inout Hasher) { hasher.combine(name) }
        }

        /// Suspends the calling task for good, without a thread: its continuation is kept, never resumed.
        static func suspendedForever() async {
            await withCheckedContinuation { continuation in
                wedgedLock.withLock { neverResumed.append(continuation) }
            }
        }

        nonisolated(unsafe) static var neverResumed: [CheckedContinuation<Void, Never>] = []

        /// Where a store whose lock a deadlocked thread holds is kept, so that its `deinit` (which takes
        /// that lock) never runs on a test's thread.
        nonisolated(unsafe) static var wedged: [AnyObject] = []
        static let wedgedLock = NSLock()

        /// Cancels `id` in `store` on a thread of its own; records an issue named `operation` and keeps
        /// the store in ``wedged`` when that has not returned within 5 s (a deadlock).
        static func cancelsWithoutDeadlock(_ store: Attacked, id: ReentrantID, _ operation: String) async -> Bool {
            let finished = await expectFinishes(operation, within: 5) { _ = store.cancel(id: id) }
            if !finished { wedgedLock.withLock { wedged.append(store) } }
            return finished
        }

        /// What the id's `deinit` does with the store.
        enum Reentry: String, CaseIterable, Sendable {
            /// The control: a `deinit` that leaves the store alone.
            case nothing
            case cancelsAnotherEffect, readsRunningIDs, sendsAnActionThatStartsAnEffect
        }

        /// An effect's id is a user's `Hashable` value, which the lifecycle keeps and drops when the
        /// effect is cancelled or ends: an id whose `deinit` calls back into the store (`cancel(id:)`,
        /// `runningEffectIDs`, or `handle` of an action whose handler starts an effect) must not
        /// deadlock it: ids are released with `EffectRunner`'s lock left. (The cancel runs on a thread of
        /// its own, and the effect never resumes, so a wedged lock would hold no pool thread.)
        @Test(arguments: Reentry.allCases)
        func anEffectIDWhoseDeinitReentersTheStoreWhenItsEffectIsCancelled(reentry: Reentry) async {
            let box = AttackBox<Attacked?>(nil)
            let reentered = AttackBox(false)
            let script = EffectScript(
                reaction: { name in name == "spawn" ? .run(id: "spawned") { _ in } : nil },
                effect: { round in
                    guard round == 0 else { return .run(id: "other") { _ in await Self.untilCancelled() } }
                    let id = ReentrantID("kept") {
                        guard let store = box.value else { return }
                        switch reentry {
                        case .nothing: break
                        case .cancelsAnotherEffect: _ = store.cancel(id: "other")
                        case .readsRunningIDs: _ = store.runningEffectIDs
                        case .sendsAnActionThatStartsAnEffect: store.handle(action: .got("spawn"))
                        }
                        reentered.value = true
                    }
                    return .run(id: id) { _ in await Self.suspendedForever() }
                })
            let store = script.makeStore()
            box.value = store
            store.handle(action: .start(1))
            store.handle(action: .start(0))
            let finished = await Self.cancelsWithoutDeadlock(
                store, id: ReentrantID("kept"), "cancel(id:) releasing an id whose deinit re-enters the store")
            guard finished else {
                box.value = nil
                return
            }
            #expect(reentered.value)
            box.value = nil
            store.cancel(id: "other")
        }

        /// The same at a second lock: once a throttled effect has ended, the store's `ThrottleSchedule`
        /// alone keeps its id, and `cancel(id:)` forgets it; an id whose `deinit` calls `cancel(id:)`
        /// again must not deadlock: `ThrottleSchedule.forget` releases the id with the schedule's lock left.
        @Test func aThrottleIDWhoseDeinitCancelsWhenTheScheduleForgetsIt() async {
            let box = AttackBox<Attacked?>(nil)
            let reentered = AttackBox(false)
            let script = EffectScript { _ in
                let id = ReentrantID("throttled") {
                    _ = box.value?.cancel(id: "other")
                    reentered.value = true
                }
                return ActionEffect { .got("throttled") }.throttle(
                    id: id, for: .seconds(60), clock: ContinuousClock(), latest: false)
            }
            let store = script.makeStore()
            box.value = store
            store.handle(action: .start(0))
            #expect(await eventually(timeout: .seconds(60)) { script.log.values == ["throttled"] })
            #expect(await Self.ends(store))
            let finished = await Self.cancelsWithoutDeadlock(
                store, id: ReentrantID("throttled"), "cancel(id:) forgetting a throttle id whose deinit cancels")
            guard finished else {
                box.value = nil
                return
            }
            #expect(reentered.value, "the schedule did not release the id")
            box.value = nil
        }

        /// The values an ended effect leaves behind — its work's captures, and its last action's payload
        /// — are released off the lock: their `deinit` sends to the store and cancels its effects, and
        /// both take effect.
        @Test(arguments: [false, true])
        func valuesAnEffectLeavesBehindMayReenterTheStore(lastAction: Bool) async {
            enum Action: Sendable {
                case start
                case done(ReleaseProbe?)
                case mark
            }
            let box = AttackBox<Store<ScriptKey, Action, Void>?>(nil)
            let cancelled = AttackBox<Bool?>(nil)
            let marked = AttackBox(false)
            let probe: @Sendable () -> ReleaseProbe = {
                ReleaseProbe {
                    guard let store = box.value else { return }
                    store.handle(action: .mark)
                    cancelled.value = store.cancel(id: "other")
                }
            }
            let store = Store<ScriptKey, Action, Void>(
                initialValues: [:],
                actionHandler: StoreActionHandler { _, action, _ in
                    switch action {
                    case .start:
                        let captured = lastAction ? nil : probe()
                        return .merge(
                            .run(id: "other") { _ in await Self.untilCancelled() },
                            ActionEffect(id: "ending") {
                                try? await Task.sleep(for: .milliseconds(20))
                                return .done(captured == nil ? probe() : nil)
                            })
                    case .done:
                        return .none
                    case .mark:
                        marked.value = true
                        return .none
                    }
                })
            box.value = store
            store.handle(action: .start)
            #expect(await eventually(timeout: .seconds(60)) { cancelled.value != nil })
            #expect(cancelled.value == true, "the deinit's cancel(id:) did not find the running effect")
            #expect(marked.value, "the deinit's action was not handled")
            #expect(await eventually(timeout: .seconds(60)) { store.runningEffectIDs.isEmpty })
            box.value = nil
        }
    }
}
