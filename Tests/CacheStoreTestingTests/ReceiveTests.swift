import CacheStoreTesting
import Foundation
import Testing

/// `receive`: the oldest received action, the effects made to progress until one arrives, checked
/// with the change it made.
@Suite(.timeLimit(.minutes(1))) struct ReceiveTests {
    @Test func receiveRunsTheEffectUntilItsActionArrivesAndChecksIt() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.receive(.loaded(.success([1, 2, 3]))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: [1, 2, 3], forKey: .items)
            }
            #expect(store.runningEffectIDs.isEmpty)
        }
        #expect(failures.isEmpty)
    }

    @Test func errorsInResultsCompareByTheValueTheyHold() async {
        let failing = LoadDependency(fetch: { .failure(LoadError(reason: "offline")) }, pageSize: { 0 })
        let failures = await captureFailures {
            let store = makeLoadStore(failing)
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.receive(.loaded(.failure(LoadError(reason: "offline")))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: #"LoadError(reason: "offline")"#, forKey: .error)
            }
        }
        #expect(failures.isEmpty)
    }

    @Test func theSynchronousFormWorksOffTheMainThread() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            store.receive(.loaded(.success([1, 2, 3]))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: [1, 2, 3], forKey: .items)
            }
        }
        #expect(failures.isEmpty)
    }

    /// A `run` effect's actions are received one at a time, in the order it sent them.
    @Test func aRunEffectsActionsAreReceivedOneAtATimeInOrder() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.stream(count: 3))
            await store.receive(.streamed(1)) { $0.set(value: [1], forKey: .items) }
            await store.receive(.streamed(2)) { $0.set(value: [1, 2], forKey: .items) }
            await store.receive(.streamed(3)) { $0.set(value: [1, 2, 3], forKey: .items) }
            await store.finish()
        }
        #expect(failures.isEmpty)
    }

    /// Each received action's expectation is checked against the state before that action, rebuilt
    /// from the changes made since: the store has moved on when the test receives it.
    @Test func theExpectationIsCheckedAgainstTheStateBeforeTheReceivedAction() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1])
            store.store.handle(action: .nextPage)
            store.store.handle(action: .nextPage)
            #expect(store.store.get(.page, as: Int.self) == 3)
            await store.receive(.nextPage) { $0.set(value: 2, forKey: .page) }
            await store.receive(.nextPage) { $0.set(value: 3, forKey: .page) }
        }
        #expect(failures.isEmpty)
    }

    @Test func aWrongStateAfterReceiveNamesTheReceivedAction() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.receive(.loaded(.success([1, 2, 3]))) { $0.set(value: false, forKey: .isLoading) }
        }
        #expect(
            failures.map(\.message) == [
                """
                State after .loaded(.success([1, 2, 3])) does not match the expectation (− expected, + actual):
                  .items
                −   nil
                +   [1, 2, 3]
                Fix the expectation closure, or the handler if the state is wrong.
                """
            ])
    }

    /// A stream's action is received as it is sent, however long the stream runs on after it.
    /// (From review 14.)
    @Test func aStreamsActionIsReceivedWhileTheStreamRunsOn() async {
        let listening = StoreActionHandler<LoadKey, LoadAction, Void> { state, action, _ in
            switch action {
            case .stream:
                return .run(id: LoadID.stream) { send in
                    await send(.streamed(1))
                    try? await Task.sleep(for: .seconds(60))  // listens for more, which never come
                }
            case .streamed(let value):
                state.set(value: [value], forKey: .items)
            default:
                break
            }
            return .none
        }
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: listening, dependency: ())
            store.effectTimeout = .milliseconds(300)
            store.send(.stream(count: 1))
            await store.receive(.streamed(1)) { $0.set(value: [1], forKey: .items) }
            #expect(store.runningEffectIDs == [AnyHashable(LoadID.stream)])
            store.cancel(id: LoadID.stream)
        }
        #expect(failures.map(\.message) == [])
    }

    /// A `receive` that gave up on an effect waiting outside the test store leaves it running (the
    /// failure says so); `finish()` reports it and cancels it, and the cancelled effect ends.
    @Test(arguments: [false, true])
    func aReceiveThatTimesOutLeavesTheEffectToFinish(synchronous: Bool) async {
        let probe = TickerProbe()
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: tickerHandler, dependency: probe)
            store.effectTimeout = .milliseconds(30)
            store.send(.startTicking)
            if synchronous {
                let receive: () -> Void = { store.receive(.done) }  // the synchronous form
                receive()
            } else {
                await store.receive(.done)
            }
            #expect(store.runningEffectIDs == [AnyHashable(LoadID.stream)])
            await store.finish()
        }
        #expect(failures.count == 2)
        #expect(failures.first?.message.contains("waited for 0.03 seconds on something outside") == true)
        #expect(failures.last?.message.contains("the effect .stream is still running") == true)
        #expect(await eventually { probe.hasStopped }, "the cancelled effect never ended")
    }

    /// A step a receive timed out on still runs, and no later step starts, in its concatenation or an outer one.
    /// (From reviews 10 and 13, where the receive gave up on the step.)
    @Test(arguments: [false, true])
    func aStepAReceiveTimedOutOnStillRunsAndNoLaterStepStarts(nested: Bool) async {
        let gate = AsyncGate()
        defer { gate.open() }
        let failures = await captureFailures {
            let store = makeOrderStore { action in
                guard action == .start else { return nil }
                let hanging = ActionEffect<OrderAction> {
                    await gate.wait()
                    return .loaded(1)
                }
                let step = nested ? .concatenate(id: OrderID.step, hanging) : hanging
                return .concatenate(id: OrderID.chain, step, ActionEffect { .loaded(2) })
            }
            store.effectTimeout = .milliseconds(30)
            store.send(.start)
            await store.receive(.loaded(1))
            #expect(store.receivedActions.isEmpty)
            #expect(store.runningEffectIDs.first == AnyHashable(OrderID.chain), "the concatenation no longer runs")
            store.cancel(id: OrderID.chain)
            #expect(store.runningEffectIDs.isEmpty)
        }
        #expect(failures.count == 1)
        #expect(failures.first?.message.contains("waited for 0.03 seconds on something outside") == true)
    }

    /// Cancelling the task that awaits `receive` ends the wait at once, and cancels the effects,
    /// which end.
    @Test func cancellingTheWaitingTaskEndsTheReceiveAndTheEffects() async {
        let probe = TickerProbe()
        let failures = LockedList<CapturedFailure>()
        let receiveLine = LockedList<UInt>()
        let started = ContinuousClock.now
        let waiting = Task {
            let captured = await captureFailures {
                let store = TestStore(initialValues: [:], actionHandler: tickerHandler, dependency: probe)
                store.effectTimeout = .seconds(600)
                store.send(.startTicking)
                receiveLine.append(#line + 1)
                await store.receive(.done)
                #expect(store.runningEffectIDs.isEmpty)
            }
            for failure in captured { failures.append(failure) }
        }
        defer { waiting.cancel() }
        try? await Task.sleep(for: .milliseconds(30))
        waiting.cancel()
        #expect(await eventually { failures.values.count == 1 })
        #expect(ContinuousClock.now - started < .seconds(60), "the receive waited for its timeout")
        #expect(
            failures.values == [
                CapturedFailure(
                    message: """
                        Expected to receive .done, but the task awaiting it was cancelled.
                        The effects still running were cancelled with it.
                        """,
                    line: receiveLine.values.first ?? 0)
            ])
        #expect(await eventually { probe.hasStopped }, "the cancelled effect never ended")
    }

    /// An effect cancelled while a receive waits for it delivers nothing, as in the app; the receive fails.
    /// (From review 11, and the test store's step order tests.)
    @Test(arguments: [false, true])
    func anEffectCancelledWhileAReceiveWaitsForItDeliversNothing(inConcatenation: Bool) async {
        let (gate, reachedGate) = (AsyncGate(), LockedList<Bool>())
        let handler = StoreActionHandler<LoadKey, LoadAction, Void> { state, action, _ in
            switch action {
            case .stream:
                let run = ActionEffect<LoadAction>.run(id: LoadID.stream) { send in
                    reachedGate.append(true)
                    await gate.wait()
                    await send(.streamed(1))
                    await send(.streamed(2))
                }
                return inConcatenation ? .concatenate(id: LoadID.load, run) : run
            case .streamed(let value):
                state.set(value: [value], forKey: .items)
            default:
                break
            }
            return .none
        }
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: handler, dependency: ())
            store.send(.stream(count: 2))
            async let received: Void = store.receive(.streamed(1)) { $0.set(value: [1], forKey: .items) }
            #expect(await eventually { !reachedGate.values.isEmpty })
            store.cancel(id: inConcatenation ? LoadID.load : LoadID.stream)
            gate.open()
            await received
            #expect(store.receivedActions.isEmpty)
            #expect(store.store.get(.items, as: [Int].self) == nil)
        }
        #expect(
            failures.map(\.message) == [
                """
                Expected to receive .streamed(1), but no effect is running and no action was received.
                Send the action that starts the effect first, or remove this receive.
                """
            ])
    }
}

/// A synchronous step of a test on the main actor receives what a main-actor store's effect sends:
/// the test holds the main queue, which the send waits for (on Linux, a worker thread serves it).
@Suite(.timeLimit(.minutes(1))) struct MainActorSynchronousReceiveTests {
    static let handler = StoreActionHandler<LoadKey, LoadAction, Void>.mainActor { state, action, _ in
        switch action {
        case .load:
            state.set(value: true, forKey: .isLoading)
            return .run { send in await send(.nextPage) }
        case .nextPage:
            state.set(value: 1, forKey: .page)
            return .none
        default:
            return .none
        }
    }

    @Test @MainActor func aSynchronousReceiveOnTheMainActorGetsTheEffectsAction() {
        let failures = captureFailuresSynchronously {
            let store = TestStore(initialValues: [:], actionHandler: Self.handler, dependency: ())
            store.effectTimeout = .seconds(5)
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            store.receive(.nextPage) { $0.set(value: 1, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    @Test @MainActor func aSynchronousRunOfAnEffectOnTheMainActorSeesItsAction() {
        let failures = captureFailuresSynchronously {
            let store = TestStore(initialValues: [:], actionHandler: Self.handler, dependency: ())
            store.effectTimeout = .seconds(5)
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            store.runEffectExpectingNoAction()
        }
        #expect(
            failures.map(\.message) == [
                """
                Expected an effect to finish without an action, but .nextPage was received from an effect \
                without an id.
                Receive the action with receive(_:) instead.
                """
            ])
    }
}
