import CacheStoreTesting
import Foundation
import Testing

/// What is left when the test store ends (`finish()`, or its release): one failure naming each
/// effect still running and each received action not asserted; then the effects are cancelled.
@Suite(.timeLimit(.minutes(1))) struct LeftoverTests {
    /// Released with an effect running: one failure, at the line that made the test store, naming
    /// the effect and the `send` that started it.
    @Test func anEffectLeftWhenTheTestStoreIsReleasedIsReportedWhereTheTestStoreWasMade() async {
        var (madeLine, sendLine): (UInt, UInt) = (0, 0)
        let failures = await captureFailures {
            madeLine = #line + 1
            let store = makeLoadStore()
            sendLine = #line + 1
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected no effect running and no received action left when the test store was released, \
                        but:
                          the effect .load is still running, started by .load at \
                        CacheStoreTestingTests/LeftoverTests.swift:\(sendLine)
                        Receive each action with receive(_:), and let each effect end (or cancel it: send the \
                        action that stops it, or cancel(id:)). The effects were cancelled.
                        """,
                    line: madeLine)
            ])
    }

    /// A main-actor store's `.run` effect, whose last send was received, ends on its own as it would
    /// in the app: no leftover, repeatedly (its task resumes after the main actor handled the action,
    /// which a `receive` may see first).
    @Test func aMainActorStoresEffectThatEndsAfterItsReceivedActionIsNoLeftover() async {
        for _ in 0..<20 {
            let store = Store<LoadKey, LoadAction, Void>(
                initialValues: [:],
                actionHandler: StoreActionHandler { state, action, _ in
                    guard case .stream(let count) = action else { return .none }
                    return .run { send in
                        for number in 0..<count { await send(.streamed(number)) }
                    }
                },
                dependency: (),
                isolation: .mainActor)
            let failures = await captureFailures {
                let testStore = TestStore(store: store)
                testStore.send(.stream(count: 2))
                await testStore.receive(.streamed(0))
                await testStore.receive(.streamed(1))
            }
            #expect(failures.map(\.message) == [])
        }
    }

    /// Whether the main actor is busy when a main-actor store's effect sends changes nothing a test
    /// sees: no other effect's job runs until the main actor handled the action, as no other job
    /// runs before a store on any thread handles it. Here the second effect is left running at the
    /// release every time, as it is for a store on any thread. (Before, it depended on the timing.)
    @Test func whatAMainActorStoreLeavesDoesNotDependOnHowBusyTheMainActorIs() async {
        enum Action: Equatable, Sendable { case start, a }
        var messages: [String] = []
        for round in 0..<10 {
            let store = Store<LoadKey, Action, Void>(
                initialValues: [:],
                actionHandler: StoreActionHandler { _, action, _ in
                    guard action == .start else { return .none }
                    return .merge(
                        .run { send in await send(.a) },
                        .run { _ in
                            await Task.yield()
                            await Task.yield()
                        })
                },
                dependency: (), isolation: .mainActor)
            let failures = await captureFailures {
                let testStore = TestStore(store: store)
                testStore.send(.start)
                if round.isMultiple(of: 2) {
                    DispatchQueue.main.async { Thread.sleep(forTimeInterval: 0.05) }
                }
                await testStore.receive(.a)
            }
            messages += failures.map(\.message)
        }
        #expect(messages.count == 10)
        #expect(messages.allSatisfy { $0.contains("an effect without an id is still running, started by .start") })
    }

    /// `finish()` lets the effects run first; what is left, effects and actions, is one failure at
    /// its line, and the effects are cancelled.
    @Test func finishReportsEachEffectAndActionLeftAsOneFailure() {
        var (sendLine, finishLine): (UInt, UInt) = (0, 0)
        let failures = captureFailuresSynchronously {
            let store = makeLoadStore()
            sendLine = #line + 1
            store.send(.loadForever)
            store.send(.stream(count: 1))
            finishLine = #line + 1
            store.finish()
            #expect(store.runningEffectIDs.isEmpty)
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected no effect running and no received action left when the test store finished, but:
                          the effect .load is still running, started by .loadForever at \
                        CacheStoreTestingTests/LeftoverTests.swift:\(sendLine)
                          .streamed(1) was received from the effect .stream, and not asserted
                        Receive each action with receive(_:), and let each effect end (or cancel it: send the \
                        action that stops it, or cancel(id:)). The effects were cancelled.
                        """,
                    line: finishLine)
            ])
    }

    /// An effect started by a received action is reported at the `receive` that took that action.
    @Test func anEffectStartedByAReceivedActionIsReportedAtThatReceive() async {
        let chained = StoreActionHandler<LoadKey, LoadAction, LoadDependency> { _, action, _ in
            switch action {
            case .load:
                ActionEffect(id: LoadID.load) { .stream(count: 2) }
            case .stream:
                .run(id: LoadID.stream) { send in
                    await send(.streamed(1))
                    try? await Task.sleep(for: .seconds(60))  // then listens for more
                }
            default:
                .none
            }
        }
        var receiveLine: UInt = 0
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: chained, dependency: .mock)
            store.effectTimeout = .milliseconds(30)
            store.send(.load)
            receiveLine = #line + 1
            await store.receive(.stream(count: 2))
            await store.receive(.streamed(1))
            await store.finish()
        }
        #expect(failures.count == 1)
        #expect(
            failures.first?.message.contains(
                """
                  the effect .stream is still running, started by .stream(count: 2) at \
                CacheStoreTestingTests/LeftoverTests.swift:\(receiveLine)
                """) == true, "\(failures.map(\.message))")
    }

    @Test func finishPassesWhenEverythingWasReceived() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.receive(.loaded(.success([1, 2, 3]))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: [1, 2, 3], forKey: .items)
            }
            await store.finish()
            store.assertNoPendingEffects()
        }
        #expect(failures.isEmpty)
    }

    /// The effects `finish()` cancels end, as cancelled effects do in the app: their task runs on
    /// to its end, and what it holds is released.
    @Test func theEffectsFinishCancelsEnd() async {
        let probe = TickerProbe()
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: tickerHandler, dependency: probe)
            store.effectTimeout = .milliseconds(30)
            store.send(.startTicking)
            await store.finish()
            #expect(await eventually { probe.hasStopped }, "the cancelled effect never ended")
        }
        #expect(failures.count == 1)
    }

    /// Two leftovers started on one line (a throttled effect's action and the wait after it) are each named.
    /// (From review 13.)
    @Test func twoLeftoversStartedOnOneLineAreEachReported() {
        let clock = TestClock()
        let failures = captureFailuresSynchronously {
            let store = TestStore(
                initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
            for number in 1...2 { store.send(.tap(number, latest: true)) }
            store.finish()
        }
        #expect(failures.count == 1)
        let message = failures.first?.message ?? ""
        #expect(message.contains("the effect .throttle waits until 1.0 seconds (a debounce or throttle)"), "\(message)")
        #expect(message.contains(".tapped(1) was received from the effect .throttle, and not asserted"), "\(message)")
    }

    /// A debounced effect left waiting on a test clock is named with its deadline on that clock.
    /// (From review 10.)
    @Test func aLeftoverWaitIsNamedWithItsDeadline() async {
        var sendLine: UInt = 0
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: TestClock()))
            sendLine = #line + 1
            store.send(.queryChanged("a")) { $0.set(value: "a", forKey: .query) }
        }
        #expect(failures.count == 1)
        #expect(
            failures.first?.message.contains(
                """
                  the effect .debounce waits until 0.3 seconds (a debounce or throttle), started by .queryChanged("a") \
                at CacheStoreTestingTests/LeftoverTests.swift:\(sendLine)
                """) == true, "\(failures.map(\.message))")
    }

    /// Once finish() cancelled a concatenation, cancelling its inner one starts nothing of it.
    /// (From review 11.)
    @Test func aConcatenationFinishCancelledStartsNothingWhenItsInnerOneIsCancelled() {
        enum ID: Hashable { case outer, inner }
        let gate = AsyncGate()
        let nested = StoreActionHandler<LoadKey, LoadAction, Void> { _, action, _ in
            guard case .load = action else { return .none }
            return .concatenate(
                id: ID.outer,
                .concatenate(
                    id: ID.inner,
                    ActionEffect {
                        await gate.wait()
                        return .nextPage
                    }),
                ActionEffect(.stopLoading))
        }
        let failures = captureFailuresSynchronously {
            let store = TestStore(initialValues: [:], actionHandler: nested, dependency: ())
            store.exhaustivity = .off
            store.send(.load)
            store.finish()
            #expect(store.runningEffectIDs.isEmpty)
            store.cancel(id: ID.inner)
            gate.open()
            store.finish()
            #expect(store.runningEffectIDs.isEmpty)
            #expect(store.receivedActions.isEmpty, "a step of a cancelled concatenation ran")
        }
        #expect(failures.map(\.message) == [])
    }

    /// `finish()` over a store whose effect started before the test store (and so runs in a task of
    /// its own) returns once that effect has ended, without waiting for `effectTimeout`.
    @Test func finishReturnsOnceAnEffectStartedBeforeTheTestStoreHasEnded() async {
        let quick = StoreActionHandler<LoadKey, LoadAction, Void> { _, action, _ in
            guard case .load = action else { return .none }
            return ActionEffect(id: LoadID.load) {
                try? await Task.sleep(for: .milliseconds(100))
                return nil
            }
        }
        var finishTime = Duration.zero
        let failures = await captureFailures {
            let app = Store(initialValues: [:], actionHandler: quick, dependency: ())
            app.handle(action: .load)
            let store = TestStore(store: app)
            // Long enough for a loaded machine to wake the effect; `finish` must not wait it out.
            store.effectTimeout = .seconds(50)
            let started = ContinuousClock.now
            await store.finish()
            finishTime = ContinuousClock.now - started
        }
        #expect(failures.map(\.message) == [])
        #expect(finishTime < .seconds(40), "finish waited for effectTimeout: \(finishTime)")
    }
}
