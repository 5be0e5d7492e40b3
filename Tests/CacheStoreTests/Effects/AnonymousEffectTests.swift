import CacheStore
import Testing

/// An effect made without an id has an id of its own (``ActionEffect/id``), and that id follows the
/// rule of every id: starting an effect whose id is running cancels the running one first.
@Suite(.timeLimit(.minutes(2))) struct AnonymousEffectTests {
    /// A store whose `.startForever` returns `anonymous`, and whose `.start` returns an effect given
    /// `anonymous`'s id that delivers `result`; delivered results are appended to `.list`.
    static func makeStore(
        anonymous: ActionEffect<EffectAction>, gate: Gate
    ) -> Store<Key, EffectAction, Void> {
        Store(
            initialValues: [:],
            actionHandler: StoreActionHandler { state, action, _ in
                switch action {
                case .startForever:
                    return anonymous
                case .start(_, _, let result):
                    return ActionEffect(id: anonymous.id) {
                        await gate.wait()
                        return .received(result)
                    }
                case .received(let value):
                    state.update(.list, as: [Int].self) { $0 = ($0 ?? []) + [value] }
                default:
                    break
                }
                return .none
            })
    }

    /// An effect without an id that waits for `gate`, records whether its run was cancelled, and
    /// delivers `.received(0)`.
    static func gatedEffect(gate: Gate, cancelledRuns: Recorder<Bool>) -> ActionEffect<EffectAction> {
        ActionEffect<EffectAction> {
            await gate.wait()
            cancelledRuns.append(Task.isCancelled)
            return .received(0)
        }
    }

    /// Made once and returned by two actions, the effect's second start replaces its first run,
    /// which is cancelled and never delivers.
    @Test func theSameEffectReturnedAgainReplacesItsRunningRun() async {
        let gate = Gate()
        let cancelledRuns = Recorder<Bool>()
        let anonymous = Self.gatedEffect(gate: gate, cancelledRuns: cancelledRuns)
        let store = Self.makeStore(anonymous: anonymous, gate: gate)
        store.handle(action: .startForever)
        store.handle(action: .startForever)
        #expect(store.runningEffectIDs == [anonymous.id])
        gate.open()
        #expect(await eventually { cancelledRuns.values.count == 2 })
        #expect(cancelledRuns.values.sorted { !$0 && $1 } == [false, true])
        #expect(await eventually { store.runningEffectIDs.isEmpty })
        #expect(await eventually { store.get(.list, as: [Int].self) == [0] })
    }

    /// Merged with itself, one effect value runs once, as the same id cannot name two running
    /// effects: its second start replaces its first (the documented rule of ``ActionEffect/merge(_:)-(ActionEffect?...)``).
    @Test func anEffectMergedWithItselfRunsOnce() async {
        let gate = Gate()
        let cancelledRuns = Recorder<Bool>()
        let anonymous = Self.gatedEffect(gate: gate, cancelledRuns: cancelledRuns)
        let store = Store<Key, EffectAction, Void>(
            initialValues: [:],
            actionHandler: StoreActionHandler { state, action, _ in
                switch action {
                case .startForever:
                    return .merge(anonymous, anonymous)
                case .received(let value):
                    state.update(.list, as: [Int].self) { $0 = ($0 ?? []) + [value] }
                default:
                    break
                }
                return .none
            })
        store.handle(action: .startForever)
        #expect(store.runningEffectIDs == [anonymous.id])
        gate.open()
        #expect(await eventually { cancelledRuns.values.count == 2 })
        #expect(cancelledRuns.values.sorted { !$0 && $1 } == [false, true])
        #expect(await eventually { store.runningEffectIDs.isEmpty })
        #expect(store.get(.list, as: [Int].self) == [0])
    }

    /// An effect given the anonymous effect's id runs first; then the anonymous effect starts, for
    /// the first time: it replaces the given one.
    @Test func anAnonymousEffectReplacesAnEffectGivenItsIDBeforeItsFirstStart() async {
        let gate = Gate()
        let anonymous = ActionEffect<EffectAction> {
            await gate.wait()
            return .received(2)
        }
        let store = Self.makeStore(anonymous: anonymous, gate: gate)
        store.handle(action: .start(id: "", gate: 0, result: 1))
        store.handle(action: .startForever)
        #expect(store.runningEffectIDs == [anonymous.id])
        gate.open()
        #expect(await eventually { store.get(.list, as: [Int].self) == [2] })
        #expect(await eventually { store.runningEffectIDs.isEmpty })
        #expect(store.get(.list, as: [Int].self) == [2])
    }

    // MARK: - An anonymous effect's id given to another effect, and cancelled

    /// An effect given the id read from a running anonymous effect (`effect.id`, the id that cancels
    /// it): that id is running, so the new effect replaces the anonymous one, and `cancel(id:)`
    /// returning `true` means neither delivers.
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

    // MARK: - An anonymous effect returned again by the action it delivers

    /// A poll made once without an id, returned again by the handler of each action it delivers.
    @Suite(.timeLimit(.minutes(2))) struct ReturnedByItsOwnAction {
        enum Key: Hashable, Sendable { case a, b, c }

        enum Action: Sendable { case run(Int) }

        /// A poll made once without an id: each run delivers `.run(1)`, whose handler returns the same
        /// effect again until 50 ticks were counted. Each start replaces the run still delivering (the
        /// one whose action is being handled): the replaced run must end without taking the new one with
        /// it, so all 50 ticks arrive and nothing is left running.
        @Test(arguments: [false, true])
        func aPollReturnedByItsOwnActionRunsToTheEnd(asRun: Bool) async {
            let ticks = Recorder<Int>()
            let poll: ActionEffect<Action> =
                asRun ? .run { send in await send(.run(1)) } : ActionEffect { .run(1) }
            let store = Store<Key, Action, Void>(
                initialValues: [:],
                actionHandler: StoreActionHandler { _, action, _ in
                    guard case .run(let step) = action else { return .none }
                    if step == 1 { ticks.append(1) }
                    return ticks.values.count < 50 ? poll : .none
                })
            store.handle(action: .run(0))
            #expect(await eventually(timeout: .seconds(60)) { ticks.values.count >= 50 })
            #expect(await eventually(timeout: .seconds(60)) { store.runningEffectIDs.isEmpty })
            #expect(ticks.values.count == 50)
        }
    }
}
