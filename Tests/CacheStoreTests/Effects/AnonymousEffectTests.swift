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
}
