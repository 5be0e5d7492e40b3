import CacheStoreTesting
import Foundation
import Testing

/// The test store's own failure messages, word for word: what was expected, what happened, and how
/// to fix it, each at the line of the call that found it.
@Suite(.timeLimit(.minutes(1))) struct FailureMessageTests {
    @Test func aReceiveWhenNothingRunsSaysToSendTheActionFirst() async {
        var receiveLine: UInt = 0
        let failures = await captureFailures {
            let store = makeLoadStore()
            receiveLine = #line + 1
            await store.receive(.nextPage)
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected to receive .nextPage, but no effect is running and no action was received.
                        Send the action that starts the effect first, or remove this receive.
                        """,
                    line: receiveLine)
            ])
    }

    /// An effect that ends without an action leaves nothing to receive: the same message, once it
    /// has ended.
    @Test func aReceiveOfAnEffectThatEndsWithoutAnActionSaysNothingWasReceived() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.loadNothing)
            await store.receive(.loaded(.success([])))
            #expect(store.runningEffectIDs.isEmpty)
        }
        #expect(
            failures.map(\.message) == [
                """
                Expected to receive .loaded(.success([])), but no effect is running and no action was received.
                Send the action that starts the effect first, or remove this receive.
                """
            ])
    }

    /// An effect that waits on something outside the test store is waited for up to
    /// `effectTimeout`, then named; it is left running (and is a leftover if nothing ends it).
    @Test func anEffectWaitingOutsideTheTestStoreIsWaitedForUpToTheTimeout() async {
        var receiveLine: UInt = 0
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.effectTimeout = .milliseconds(50)
            store.send(.loadForever)
            receiveLine = #line + 1
            await store.receive(.loaded(.success([])))
            store.cancel(id: LoadID.load)
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected to receive .loaded(.success([])), but the effect .load waited for 0.05 seconds on \
                        something outside the test store (real I/O, another thread, a clock that is not a TestClock).
                        Give the effect a dependency that answers at once or sleeps on a TestClock, or raise \
                        effectTimeout.
                        """,
                    line: receiveLine)
            ])
    }

    /// Forgetting to advance the clock fails at once, saying to advance it, naming the effect and
    /// its deadline; the effect is not given up on.
    @Test func aReceiveWhileTheEffectSleepsOnATestClockSaysToAdvanceTheClock() async {
        let clock = TestClock()
        var receiveLine: UInt = 0
        let started = ContinuousClock.now
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: searchHandler, dependency: clock as any Clock<Duration>)
            store.effectTimeout = .seconds(600)
            store.send(.queryChanged("tea"))
            receiveLine = #line + 1
            await store.receive(.search("tea"), after: .milliseconds(299), on: clock)
            #expect(store.runningEffectIDs == [AnyHashable(SearchID.debounce)])
            await store.receive(.search("tea"), after: .milliseconds(1), on: clock) { state in
                state.set(value: ["tea"], forKey: .searched)
            }
        }
        #expect(ContinuousClock.now - started < .seconds(60), "the receive waited for its timeout")
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected to receive .search("tea"), but every effect waits on a TestClock: the effect \
                        .debounce sleeps until 0.3 seconds (the clock is at 0.299 seconds).
                        Advance the clock: await clock.advance(by:), or receive(_:after:on:).
                        """,
                    line: receiveLine)
            ])
    }

    /// A debounce received without moving its clock says to advance the clock, naming the wait and its deadline.
    /// (From review 9.)
    @Test func aDebounceReceivedWithoutMovingItsClockSaysToAdvanceTheClock() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
            store.send(.queryChanged("a")) { $0.set(value: "a", forKey: .query) }
            await store.receive(.results("A"))
            store.cancel(id: TimingID.debounce)
        }
        #expect(
            failures.map(\.message) == [
                """
                Expected to receive .results("A"), but every effect waits on a TestClock: the wait of .debounce \
                (a debounce or throttle) sleeps until 0.3 seconds (the clock is at 0.0 seconds).
                Advance the clock: await clock.advance(by:), or receive(_:after:on:).
                """
            ])
    }

    /// A receive whose advance is too short says where the clock stands and when the wait ends.
    /// (From the test store's step order tests.)
    @Test func aReceiveWhoseAdvanceEndsNoWaitSaysWhereTheClockIs() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
            store.send(.queryChanged("a")) { $0.set(value: "a", forKey: .query) }
            await store.receive(.results("A"), after: .milliseconds(100), on: clock)
            store.cancel(id: TimingID.debounce)
        }
        #expect(failures.count == 1)
        #expect(
            failures.first?.message.contains("sleeps until 0.3 seconds (the clock is at 0.1 seconds)") == true,
            "\(failures.map(\.message))")
    }

    /// Receiving in another order than the store's is one failure, which says that receives are
    /// first in, first out and where the expected action is; the expected action is taken, so a
    /// following receive of the oldest passes.
    @Test func receivingInTheWrongOrderSaysReceivesAreFirstInFirstOut() async {
        let clock = TestClock()
        var receiveLine: UInt = 0
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: immediateAndDebouncedHandler(clock: clock), dependency: ())
            store.send(.start)
            receiveLine = #line + 1
            await store.receive(.debounced, after: .seconds(2), on: clock)
            await store.receive(.immediate)
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected to receive .debounced, but .immediate was received first (from a handler that \
                        returned it at once (ActionEffect(action))): received actions are first in, first out, and \
                        .debounced is number 2 of the 2 received.
                        Receive .immediate first, or fix the order the test expects.
                        """,
                    line: receiveLine)
            ])
    }

    /// The action an effect produced instead of the one named is shown beside it, and handled.
    @Test func anUnexpectedActionShowsBothAndIsStillHandled() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.receive(.loaded(.success([1, 2]))) { _ in }
            #expect(store.store.get(.items, as: [Int].self) == [1, 2, 3])
        }
        #expect(
            failures.map(\.message) == [
                """
                Received an unexpected action from the effect .load (− expected, + received):
                − .loaded(.success([1, 2]))
                + .loaded(.success([1, 2, 3]))
                Fix the action passed to receive(_:), or the effect if it sends the wrong action.
                """
            ])
    }

    /// A debounced effect's action is named by the debounce's id, the id cancel(id:) takes.
    /// (From review 14.)
    @Test func aDebouncedEffectIsNamedByTheDebouncesID() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
            store.send(.queryChanged("a")) { $0.set(value: "a", forKey: .query) }
            await store.receive(.results("B"), after: .milliseconds(300), on: clock)
        }
        #expect(failures.count == 1)
        #expect(failures.first?.message.hasPrefix("Received an unexpected action from the effect .debounce") == true)
    }

    /// An effect given no id is named "an effect without an id", not by its id's internal type.
    /// (From review 8.)
    @Test func aFailureAboutAnEffectWithoutAnIDNamesNoInternalType() async {
        let anonymous = StoreActionHandler<LoadKey, LoadAction, Void> { _, action, _ in
            guard case .load = action else { return .none }
            return ActionEffect { .nextPage }
        }
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: anonymous, dependency: ())
            store.send(.load)
            await store.receive(.stopLoading)
        }
        #expect(failures.count == 1)
        for failure in failures {
            #expect(!failure.message.contains("AnonymousEffectID"), "\(failure.message)")
            #expect(failure.message.hasPrefix("Received an unexpected action from an effect without an id"))
        }
    }

    /// A `send` while received actions are not asserted names each, and where it came from.
    @Test func aSendWhileActionsAreUnassertedNamesThem() async {
        var sendLine: UInt = 0
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1])
            store.send(.loadAndPage)
            store.store.handle(action: .nextPage)
            sendLine = #line + 1
            store.send(.stopLoading) { $0.set(value: false, forKey: .isLoading) }
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Expected to send .stopLoading, but 2 actions were received and not asserted:
                          .nextPage from a handler that returned it at once (ActionEffect(action))
                          .nextPage from store.handle(action:), around the test store
                        The store handled them before this action: receive .nextPage first, with receive(_:), or \
                        turn exhaustivity off.
                        """,
                    line: sendLine)
            ])
    }
}

enum ImmediateAndDebouncedAction: Equatable, Sendable {
    case start
    case startAsync
    case immediate
    case debounced
}

/// `.start` returns an immediate action beside a debounced effect: the immediate action is handled
/// before `send` returns; the debounced one once the clock has passed a second. `.startAsync`
/// returns an effect that delivers `.immediate` without waiting in place of the immediate action.
func immediateAndDebouncedHandler(clock: TestClock) -> StoreActionHandler<LoadKey, ImmediateAndDebouncedAction, Void> {
    StoreActionHandler { _, action, _ in
        switch action {
        case .start:
            return .merge(
                ActionEffect(.immediate),
                ActionEffect { .debounced }.debounce(id: TimingID.debounce, for: .seconds(1), clock: clock))
        case .startAsync:
            return .merge(
                ActionEffect { .immediate },
                ActionEffect { .debounced }.debounce(id: TimingID.debounce, for: .seconds(1), clock: clock))
        case .immediate, .debounced:
            return .none
        }
    }
}
