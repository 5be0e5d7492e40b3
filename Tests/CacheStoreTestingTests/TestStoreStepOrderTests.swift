import CacheStore
import CacheStoreTesting
import Testing

/// A store starts a concatenation's steps one after another, and so does a test store (see
/// `EffectQueue`): a later step is queued only once the steps before it were received, so it
/// neither replaces nor is replaced by an effect with its id until then.
@Suite struct TestStoreStepOrderTests {
    enum ID: Hashable { case load, chain, search, debounce }

    enum Action: Equatable, Sendable {
        case chainThenLoad
        case load
        case nestedTwice
        case typed
        case cancelSearch
        case thenCancelLoad
        case cancelChain
        case debounceThenTwoSteps
        case actionsAroundACancel
        case sendTwiceInAChain(AsyncGate)
        case loaded(Int)
    }

    static func handler<C: Clock<Duration> & Sendable>(_: C.Type) -> StoreActionHandler<LoadKey, Action, C> {
        StoreActionHandler { state, action, clock in
            switch action {
            case .chainThenLoad:
                return .concatenate(ActionEffect { .loaded(1) }, ActionEffect(id: ID.load) { .loaded(2) })
            case .load:
                return ActionEffect(id: ID.load) { .loaded(3) }
            case .nestedTwice:
                let chain = ActionEffect<Action>.concatenate(
                    id: ID.chain, ActionEffect { .loaded(1) }, ActionEffect { .loaded(2) })
                return .concatenate(chain, chain)
            case .typed:
                return ActionEffect(id: ID.search) { .loaded(4) }
                    .debounce(id: ID.debounce, for: .milliseconds(300), clock: clock)
            case .cancelSearch:
                return .cancel(id: ID.search)
            case .thenCancelLoad:
                return .concatenate(id: ID.chain, ActionEffect { .loaded(5) }, .cancel(id: ID.load))
            case .cancelChain:
                return .cancel(id: ID.chain)
            case .sendTwiceInAChain(let gate):
                return .concatenate(
                    id: ID.chain,
                    .run { send in
                        await gate.wait()
                        send(.loaded(9))
                        send(.loaded(10))
                    })
            case .actionsAroundACancel:
                return .merge(ActionEffect(.loaded(1)), .cancel(id: ID.load), ActionEffect(.loaded(2)))
            case .debounceThenTwoSteps:
                return .concatenate(
                    id: ID.chain,
                    ActionEffect { .loaded(6) }.debounce(id: ID.debounce, for: .milliseconds(300), clock: clock),
                    ActionEffect { .loaded(7) },
                    ActionEffect { .loaded(8) })
            case .loaded(let value):
                state.set(value: value, forKey: .page)
            }
            return .none
        }
    }

    /// A test store of ``handler(_:)`` on `clock`.
    static func testStore(clock: TestClock = TestClock()) -> TestStore<LoadKey, Action, TestClock> {
        TestStore(initialValues: [:], actionHandler: handler(TestClock.self), dependency: clock)
    }

    /// Once the steps before it were received, a concatenation's later step runs in a store, so a
    /// new effect with its id replaces it.
    @Test func aLaterStepIsReplacedOnceTheStepsBeforeItWereReceived() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.chainThenLoad)
            store.send(.load)
            #expect(store.queuedEffectIDs.count == 2, "the later step waits: nothing replaces it yet")
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            store.send(.load)
            #expect(store.queuedEffectIDs == [AnyHashable(ID.load)], "the new .load replaced both")
            await store.receive(.loaded(3)) { $0.set(value: 3, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// A concatenation with an id, twice in a concatenation: the second starts after the first has
    /// ended, so it replaces nothing, and all four steps are received in turn.
    @Test func aConcatenationTwiceInAConcatenationQueuesBoth() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.nestedTwice)
            for value in [1, 2, 1, 2] {
                #expect(store.queuedEffectIDs.count == 1, "one step at a time")
                await store.receive(.loaded(value)) { $0.set(value: value, forKey: .page) }
            }
        }
        #expect(failures.map(\.message) == [])
    }

    /// A handler's `.cancel(id:)` cancels what runs under the id: a debounced effect with that id
    /// still waiting has not started, and stays queued (see the store's test below).
    @Test func aCancelLeavesADebouncedEffectStillWaitingQueued() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = Self.testStore(clock: clock)
            store.send(.typed)
            store.send(.cancelSearch)
            await store.receive(.loaded(4), after: .milliseconds(300), on: clock) { $0.set(value: 4, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// The store the test above stands for: the debounced search, cancelled by its own id while it
    /// waits, still runs once its wait is over.
    @Test func aStoresCancelLeavesADebouncedEffectStillWaiting() async {
        let store = Store(
            initialValues: [:], actionHandler: Self.handler(ContinuousClock.self), dependency: ContinuousClock())
        store.handle(action: .typed)
        store.handle(action: .cancelSearch)
        let deadline = ContinuousClock.now + .seconds(60)
        while store.get(.page, as: Int.self) != 4, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        #expect(store.get(.page, as: Int.self) == 4)
    }

    /// A concatenation's cancel step cancels once the step before it was received: the effect it
    /// cancels, started after the concatenation, is then removed.
    @Test func aCancelStepCancelsOnceTheStepBeforeItWasReceived() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.thenCancelLoad)
            store.send(.load)
            #expect(store.queuedEffectIDs.count == 2)
            await store.receive(.loaded(5)) { $0.set(value: 5, forKey: .page) }
            #expect(store.queuedEffectIDs.isEmpty, "the cancel step removed .load")
        }
        #expect(failures.map(\.message) == [])
    }

    /// A concatenation cancelled before its cancel step's turn takes the step with it: the effect
    /// the step would have cancelled stays queued.
    @Test func aCancelledConcatenationsCancelStepNeverRuns() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.thenCancelLoad)
            store.send(.load)
            store.send(.cancelChain)
            #expect(store.queuedEffectIDs == [AnyHashable(ID.load)])
            await store.receive(.loaded(3)) { $0.set(value: 3, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// A debounce, a step of a concatenation, cancelled by its id while a `receive` that gave up on
    /// its wait still runs it: its step ends once, so the next step starts and the one after it
    /// waits. (Ending it twice, the third step started beside the second.)
    @Test func aWaitCancelledWhileAReceiveGivesUpOnItEndsItsStepOnce() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.effectTimeout = .milliseconds(500)
            store.send(.debounceThenTwoSteps)
            let receiving = Task { await store.receive(.loaded(6)) }
            try? await Task.sleep(for: .milliseconds(100))
            store.cancel(id: ID.debounce)
            await receiving.value
            #expect(store.queuedEffectIDs.count == 1, "the second step only: \(store.queuedEffectIDs)")
            await store.receive(.loaded(7)) { $0.set(value: 7, forKey: .page) }
            await store.receive(.loaded(8)) { $0.set(value: 8, forKey: .page) }
        }
        #expect(failures.count == 1, "the receive that gave up: \(failures.map(\.message))")
        #expect(failures.first?.message.contains("waits on its clock") == true)
    }

    /// A multi-action effect of a concatenation cancelled while a `receive` runs it: what it sends is
    /// dropped, as a store drops what a cancelled effect sends, and the `receive` fails, saying so.
    /// (Queued back, the actions after the first stayed queued for good under the cancelled
    /// concatenation.)
    @Test func theRestOfAMultiActionEffectCancelledWhileItRunsIsDropped() async {
        let gate = AsyncGate()
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.sendTwiceInAChain(gate))
            let receiving = Task { await store.receive(.loaded(9)) { $0.set(value: 9, forKey: .page) } }
            // Taken by the receive, and running: it waits for the gate.
            #expect(await eventually { store.queuedEffectIDs.isEmpty })
            store.cancel(id: ID.chain)
            gate.open()
            await receiving.value
            #expect(store.queuedEffectIDs.isEmpty, "queued: \(store.queuedEffectIDs)")
        }
        #expect(failures.count == 1)
        #expect(failures.first?.message.contains("was cancelled (or replaced) while it ran") == true)
    }

    /// A `receive` whose advance ends no queued wait runs the oldest, and when its wait does not end,
    /// says so: that the receive runs the oldest effect, and how far the clock moved.
    @Test func aReceiveWhoseAdvanceEndsNoWaitSaysHowFarTheClockMoved() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = Self.testStore(clock: clock)
            store.effectTimeout = .milliseconds(300)
            store.send(.typed)
            await store.receive(.loaded(4), after: .milliseconds(100), on: clock)
        }
        #expect(failures.count == 1)
        let message = failures.first?.message ?? ""
        #expect(message.contains("runs the oldest queued effect, and moving the clock 0.1 seconds"), "\(message)")
    }

    /// Two action effects with a cancellation between them are received in order, as a store handles
    /// them (review 13, from reading: the cancellation forgot where the first action was queued).
    @Test func actionEffectsAroundACancellationAreReceivedInOrder() async {
        let failures = await captureFailures {
            let store = Self.testStore()
            store.send(.actionsAroundACancel)
            await store.receive(.loaded(1)) { $0.set(value: 1, forKey: .page) }
            await store.receive(.loaded(2)) { $0.set(value: 2, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }
}

/// Gates compare by identity, so that an action can carry one.
extension AsyncGate: Equatable {
    static func == (lhs: AsyncGate, rhs: AsyncGate) -> Bool {
        lhs === rhs
    }
}
