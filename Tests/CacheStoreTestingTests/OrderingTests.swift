import CacheStoreTesting
import Testing

enum ChainID: Hashable { case first, second, chain }

enum ChainAction: Equatable, Sendable {
    case merge
    case concatenate
    case mapped
    case received(String)
}

let chainHandler = StoreActionHandler<LoadKey, ChainAction, Void> { state, action, _ in
    let first = ActionEffect<ChainAction>(id: ChainID.first) { .received("first") }
    let second = ActionEffect<ChainAction>(id: ChainID.second) { .received("second") }
    switch action {
    case .merge:
        return .merge(first, second)
    case .concatenate:
        return .concatenate(id: ChainID.chain, first, second)
    case .mapped:
        return ActionEffect<String>.merge(
            ActionEffect(id: ChainID.first) { "first" }, .concatenate(id: ChainID.chain, ActionEffect("now"))
        ).map(ChainAction.received)
    case .received(let name):
        state.update(.items, as: [String].self) { $0 = ($0 ?? []) + [name] }
    }
    return .none
}

/// The order of received actions, which is the order the engine handles them: immediate actions
/// first (handled before `send` returns), then effects one step at a time, first started first,
/// only inside `receive`, a clock's advance and `finish`. Composed effects (merge, concatenate, map,
/// cancel) start, replace and cancel as in the app.
@Suite(.timeLimit(.minutes(1))) struct OrderingTests {
    func makeStore() -> TestStore<LoadKey, ChainAction, Void> {
        TestStore(initialValues: [:], actionHandler: chainHandler, dependency: ())
    }

    @Test func aMergedEffectsPartsRunAndAreCancelledEachByItsID() async {
        let store = makeStore()
        store.send(.merge)
        #expect(store.runningEffectIDs == [ChainID.first, ChainID.second])
        store.cancel(id: ChainID.first)
        await store.receive(.received("second")) { $0.set(value: ["second"], forKey: .items) }
    }

    @Test func aConcatenatedEffectsPartsAreReceivedInOrder() async {
        let store = makeStore()
        store.send(.concatenate)
        #expect(
            store.runningEffectIDs == [ChainID.chain, ChainID.first], "the second step starts once the first has ended")
        await store.receive(.received("first")) { $0.set(value: ["first"], forKey: .items) }
        #expect(store.runningEffectIDs == [ChainID.chain, ChainID.second])
        await store.receive(.received("second")) { $0.set(value: ["first", "second"], forKey: .items) }
    }

    @Test func cancellingAConcatenationByItsIDCancelsEveryPart() {
        let store = makeStore()
        store.send(.concatenate)
        store.cancel(id: ChainID.chain)
        #expect(store.runningEffectIDs.isEmpty)
    }

    @Test func cancellingAPartOfAConcatenationKeepsTheOthers() async {
        let store = makeStore()
        store.send(.concatenate)
        await store.receive(.received("first")) { $0.set(value: ["first"], forKey: .items) }
        store.cancel(id: ChainID.second)
        #expect(store.runningEffectIDs.isEmpty)
    }

    /// As in a store, cancelling the id of a step that has not started yet cancels nothing: the step
    /// starts when its turn comes.
    @Test func cancellingTheIDOfALaterStepBeforeItStartsCancelsNothing() async {
        let store = makeStore()
        store.send(.concatenate)
        store.cancel(id: ChainID.second)
        await store.receive(.received("first")) { $0.set(value: ["first"], forKey: .items) }
        await store.receive(.received("second")) { $0.set(value: ["first", "second"], forKey: .items) }
    }

    @Test func aNewConcatenationWithTheSameIDReplacesTheRunningOne() async {
        let store = makeStore()
        store.send(.concatenate)
        store.send(.concatenate)
        #expect(
            store.runningEffectIDs == [ChainID.chain, ChainID.first], "the first concatenation, replaced, left nothing")
        store.cancel(id: ChainID.chain)
    }

    @Test func aMappedEffectKeepsItsPartsIDsAndDeliversMappedActions() async {
        let store = makeStore()
        store.send(.mapped)
        // The concatenation's immediate action is handled before `send` returns, and its concatenation
        // has ended with it.
        #expect(store.runningEffectIDs == [ChainID.first])
        await store.receive(.received("now")) { $0.set(value: ["now"], forKey: .items) }
        store.cancel(id: ChainID.first)
    }

    // MARK: Immediate actions first, then effects, first started first

    /// An immediate action merged after an async effect is received first: handled before send returns.
    /// (From review 10.)
    @Test func anImmediateActionIsReceivedBeforeTheAsyncEffectMergedBeforeIt() async {
        let failures = await captureFailures {
            let store = makeOrderStore { action in
                action == .start ? .merge(ActionEffect { .loaded(1) }, ActionEffect(.loaded(2))) : nil
            }
            store.send(.start)
            #expect(store.receivedActions == [.loaded(2)])
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// Immediate actions are received first in, first out: one a received action returns comes after the others.
    /// (From review 13.)
    @Test func immediateActionsAreReceivedFirstInFirstOut() async {
        let failures = await captureFailures {
            let store = makeOrderStore { action in
                switch action {
                case .start: .merge(ActionEffect(.first), ActionEffect(.loaded(5)))
                case .first: ActionEffect(.loaded(1))
                default: nil
                }
            }
            store.send(.start)
            await store.receive(.first)
            await store.receive(.loaded(5)) { $0.set(value: 5, forKey: .page) }
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// Two immediate actions with a .cancel(id:) between them are received in order.
    /// (From the test store's step order tests.)
    @Test func immediateActionsAroundACancellationAreReceivedInOrder() async {
        let failures = await captureFailures {
            let store = makeOrderStore { action in
                action == .start
                    ? .merge(ActionEffect(.loaded(1)), .cancel(id: OrderID.load), ActionEffect(.loaded(2))) : nil
            }
            store.send(.start)
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// The effect started first delivers first: of two effects, each delivering at once, the older's
    /// action is received first, on every run.
    @Test func effectsDeliverFirstStartedFirst() async {
        for _ in 0..<50 {
            let failures = await captureFailures {
                let store = makeOrderStore { action in
                    switch action {
                    case .start: ActionEffect { .loaded(1) }
                    case .first: ActionEffect { .loaded(2) }
                    default: nil
                    }
                }
                store.send(.start)
                store.send(.first)
                await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
                await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
            }
            #expect(failures.map(\.message) == [])
        }
    }

    /// An immediate action is received before a debounced effect's, even when the test advances past the wait first.
    /// (From review 16.)
    @Test func anImmediateActionIsReceivedBeforeADebouncedOne() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: immediateAndDebouncedHandler(clock: clock), dependency: ())
            store.send(.start)
            await clock.advance(by: .seconds(2))
            #expect(store.receivedActions == [.immediate, .debounced])
            await store.receive(.immediate)
            await store.receive(.debounced)
        }
        #expect(failures.map(\.message) == [])
    }

    /// An effect that does not wait delivers before an advance moves past a debounce started beside it.
    /// (From review 16.)
    @Test func anEffectThatDoesNotWaitIsReceivedBeforeADebouncedOne() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: immediateAndDebouncedHandler(clock: clock), dependency: ())
            store.send(.startAsync)
            #expect(store.receivedActions.isEmpty)
            await clock.advance(by: .seconds(2))
            #expect(store.receivedActions == [.immediate, .debounced])
            await store.receive(.immediate)
            await store.receive(.debounced)
        }
        #expect(failures.map(\.message) == [])
    }

    // MARK: Concatenations

    /// A concatenation of one effect twice runs and delivers both steps, with an id or without.
    /// (From review 8.)
    @Test(arguments: [true, false])
    func aConcatenationOfOneEffectTwiceDeliversBothSteps(named: Bool) async {
        let failures = await captureFailures {
            let store = makeOrderStore { action in
                guard action == .start else { return nil }
                let step: ActionEffect<OrderAction> =
                    named ? ActionEffect(id: OrderID.step) { .counted } : ActionEffect { .counted }
                return .concatenate(id: named ? OrderID.chain : nil, step, step)
            }
            store.send(.start)
            await store.receive(.counted) { $0.set(value: 1, forKey: .items) }
            await store.receive(.counted) { $0.set(value: 2, forKey: .items) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// A concatenation with an id, twice in a concatenation: the second starts once the first ended; all run.
    /// (From the test store's step order tests.)
    @Test func aConcatenationTwiceInAConcatenationRunsBoth() async {
        let failures = await captureFailures {
            let store = makeOrderStore { action in
                guard action == .start else { return nil }
                let chain = ActionEffect<OrderAction>.concatenate(
                    id: OrderID.chain, ActionEffect { .loaded(1) }, ActionEffect { .loaded(2) })
                return .concatenate(chain, chain)
            }
            store.send(.start)
            for value in [1, 2, 1, 2] {
                await store.receive(.loaded(value)) { $0.set(value: value, forKey: .page) }
            }
        }
        #expect(failures.map(\.message) == [])
    }

    /// The immediate action a step's action returns is received before the next step's action.
    /// (From reviews 10 and 13.)
    @Test(arguments: [false, true])
    func aStepsActionsImmediateActionIsReceivedBeforeTheNextStep(immediateStep: Bool) async {
        let failures = await captureFailures {
            let store = makeOrderStore { action in
                switch action {
                case .start:
                    immediateStep
                        ? .concatenate(ActionEffect(.first), ActionEffect(.second))
                        : .concatenate(ActionEffect { .first }, ActionEffect { .second })
                case .first: ActionEffect(.loaded(3))
                default: nil
                }
            }
            store.send(.start)
            await store.receive(.first)
            await store.receive(.loaded(3)) { $0.set(value: 3, forKey: .page) }
            await store.receive(.second)
        }
        #expect(failures.map(\.message) == [])
    }

    /// The immediate action a run effect's action returns is received before the effect's next action.
    /// (From review 10.)
    @Test func aRunEffectsActionsImmediateActionIsReceivedBeforeItsNextAction() async {
        let failures = await captureFailures {
            let store = makeOrderStore { action in
                switch action {
                case .start:
                    .run { send in
                        await send(.first)
                        await send(.second)
                    }
                case .first: ActionEffect(.loaded(3))
                default: nil
                }
            }
            store.send(.start)
            await store.receive(.first)
            await store.receive(.loaded(3)) { $0.set(value: 3, forKey: .page) }
            await store.receive(.second)
        }
        #expect(failures.map(\.message) == [])
    }

    /// A step's immediate action is received before the async effect merged before it, first step or later.
    /// (From review 11.)
    @Test(arguments: [false, true])
    func aStepsImmediateActionIsReceivedBeforeAnAsyncEffectMergedBeforeIt(laterStep: Bool) async {
        let failures = await captureFailures {
            let store = makeOrderStore { action in
                guard action == .start else { return nil }
                let step = ActionEffect<OrderAction>.merge(ActionEffect { .loaded(1) }, ActionEffect(.loaded(2)))
                return laterStep
                    ? .concatenate(ActionEffect { .first }, step)
                    : .merge(ActionEffect { .loaded(1) }, .concatenate(ActionEffect(.loaded(2))))
            }
            store.send(.start)
            if laterStep { await store.receive(.first) }
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// A step's action that cancels another effect: the next (immediate) step comes at once, the other effects after.
    /// (From review 11.)
    @Test func theNextStepFollowsAStepsActionThatCancelledAnotherEffect() async {
        let failures = await captureFailures {
            let store = makeOrderStore { action in
                switch action {
                case .start:
                    .merge(
                        .concatenate(ActionEffect { .stop }, ActionEffect(.loaded(4))),
                        ActionEffect(id: OrderID.load) { .loaded(1) },
                        ActionEffect { .loaded(2) })
                case .stop: .cancel(id: OrderID.load)
                default: nil
                }
            }
            store.send(.start)
            await store.receive(.stop)
            await store.receive(.loaded(4)) { $0.set(value: 4, forKey: .page) }
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// A cancelled step's next step starts in the turn that cancelled it, before that handler's immediate action.
    /// (From review 13; its store then handled them the other way round.)
    @Test func aCancelledStepsNextStepStartsInTheTurnThatCancelledIt() async {
        let gate = AsyncGate()
        let failures = await captureFailures {
            let store = makeOrderStore { action in
                switch action {
                case .start:
                    .concatenate(
                        id: OrderID.chain,
                        ActionEffect(id: OrderID.load) {
                            await gate.wait()
                            return .loaded(1)
                        },
                        ActionEffect(.loaded(2)))
                case .stop: .merge(.cancel(id: OrderID.load), ActionEffect(.loaded(3)))
                default: nil
                }
            }
            store.send(.start)
            store.send(.stop)
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
            await store.receive(.loaded(3)) { $0.set(value: 3, forKey: .page) }
        }
        gate.open()
        #expect(failures.map(\.message) == [])
    }

    /// A concatenation's later step replaces the effect under its id once it starts, and not before.
    /// (From the test store's step order tests.)
    @Test func aLaterStepReplacesTheEffectUnderItsIDOnceItStarts() async {
        let failures = await captureFailures {
            let store = makeOrderStore { action in
                switch action {
                case .start: .concatenate(ActionEffect { .loaded(1) }, ActionEffect(id: OrderID.load) { .loaded(2) })
                case .first: ActionEffect(id: OrderID.load) { .loaded(3) }
                default: nil
                }
            }
            store.send(.start)
            store.send(.first)
            #expect(store.runningEffectIDs.count == 3, "the concatenation, its first step, and .load")
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            #expect(store.runningEffectIDs.last == AnyHashable(OrderID.load), "the second step, which replaced .load")
            store.send(.first)
            #expect(store.runningEffectIDs == [AnyHashable(OrderID.load)], "the new .load replaced the second step")
            await store.receive(.loaded(3)) { $0.set(value: 3, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// A concatenation's .cancel(id:) step cancels in its turn: after effects started before it, before later ones.
    /// (From review 8, and the test store's step order tests.)
    @Test(arguments: [false, true])
    func aCancelStepCancelsInItsTurn(effectFirst: Bool) async {
        let failures = await captureFailures {
            let store = makeOrderStore { action in
                switch action {
                case .first: ActionEffect(id: OrderID.load) { .loaded(1) }
                case .start: .concatenate(id: OrderID.chain, ActionEffect { .loaded(2) }, .cancel(id: OrderID.load))
                default: nil
                }
            }
            if effectFirst {
                store.send(.first)
                store.send(.start)
                await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
                await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
            } else {
                store.send(.start)
                store.send(.first)
                await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
                #expect(store.runningEffectIDs.isEmpty, "the cancel step left .load running")
            }
            await store.finish()
        }
        #expect(failures.map(\.message) == [])
    }

    /// A concatenation cancelled before its cancel step's turn takes that step with it.
    /// (From the test store's step order tests.)
    @Test func aCancelledConcatenationsCancelStepNeverRuns() async {
        let failures = await captureFailures {
            let store = makeOrderStore { action in
                switch action {
                case .start: .concatenate(id: OrderID.chain, ActionEffect { .loaded(2) }, .cancel(id: OrderID.load))
                case .first: ActionEffect(id: OrderID.load) { .loaded(1) }
                case .stop: .cancel(id: OrderID.chain)
                default: nil
                }
            }
            store.send(.start)
            store.send(.first)
            store.send(.stop)
            #expect(store.runningEffectIDs == [AnyHashable(OrderID.load)])
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// A merged step's part that waits lets its sibling deliver; the next step starts once it too has ended.
    /// (From review 13, where a receive gave up on the waiting part.)
    @Test func theNextStepWaitsForEveryPartOfAMergedStep() async {
        let gate = AsyncGate()
        let failures = await captureFailures {
            let store = makeOrderStore { action in
                guard action == .start else { return nil }
                return .concatenate(
                    .merge(
                        ActionEffect {
                            await gate.wait()
                            return .loaded(1)
                        },
                        ActionEffect { .loaded(2) }),
                    ActionEffect(.loaded(3)))
            }
            store.effectTimeout = .milliseconds(30)
            store.send(.start)
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
            await store.runEffectExpectingNoAction()
            #expect(store.runningEffectIDs.count == 2, "the concatenation and its waiting part")
            gate.open()
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            await store.receive(.loaded(3)) { $0.set(value: 3, forKey: .page) }
        }
        gate.open()
        #expect(failures.count == 1, "\(failures.map(\.message))")
        #expect(failures.first?.message.contains("waited for 0.03 seconds on something outside") == true)
    }

    /// A debounced step cancelled by its id ends its step once: the next steps run in turn.
    /// (From the test store's step order tests, where a receive gave up on the wait.)
    @Test func aDebouncedStepCancelledByItsIDEndsItsStepOnce() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = makeOrderStore { action in
                guard action == .start else { return nil }
                return .concatenate(
                    id: OrderID.chain,
                    ActionEffect { .loaded(6) }.debounce(id: OrderID.step, for: .milliseconds(300), clock: clock),
                    ActionEffect { .loaded(7) },
                    ActionEffect { .loaded(8) })
            }
            store.send(.start)
            store.cancel(id: OrderID.step)
            await store.receive(.loaded(7)) { $0.set(value: 7, forKey: .page) }
            await store.receive(.loaded(8)) { $0.set(value: 8, forKey: .page) }
            await store.finish()
        }
        #expect(failures.map(\.message) == [])
    }
}

enum OrderID: Hashable { case load, chain, step }

enum OrderAction: Equatable, Sendable {
    case start, first, second, stop, counted
    case loaded(Int)
}

/// A test store whose handler returns what `program` gives for each action; `.loaded(n)` sets
/// `.page` to `n`, and `.counted` adds one to `.items`.
func makeOrderStore(
    line: UInt = #line, _ program: @escaping @Sendable (OrderAction) -> ActionEffect<OrderAction>?
) -> TestStore<LoadKey, OrderAction, Void> {
    let handler = StoreActionHandler<LoadKey, OrderAction, Void> { state, action, _ in
        switch action {
        case .loaded(let value): state.set(value: value, forKey: .page)
        case .counted: state.update(.items, as: Int.self) { $0 = ($0 ?? 0) + 1 }
        default: break
        }
        return program(action)
    }
    return TestStore(initialValues: [:], actionHandler: handler, dependency: (), line: line)
}
