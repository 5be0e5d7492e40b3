import CacheStoreTesting
import Foundation
import Testing

/// Review 8's attacks on the test store: does it queue what a store would run?
@Suite struct Review8TestStoreAttackTests {
    enum StepID: Hashable { case step, chain }

    enum Action: Equatable, Sendable {
        case twice
        case anonymousTwice
        case stepped
    }

    /// A handler returning a concatenation of one effect twice: given an id, or without one.
    static let handler = StoreActionHandler<LoadKey, Action, Void> { state, action, _ in
        switch action {
        case .twice:
            let step = ActionEffect<Action>(id: StepID.step) { .stepped }
            return .concatenate(id: StepID.chain, step, step)
        case .anonymousTwice:
            let step = ActionEffect<Action> { .stepped }
            return .concatenate(step, step)
        case .stepped:
            state.update(.page, as: Int.self) { $0 = ($0 ?? 0) + 1 }
        }
        return .none
    }

    /// A store runs the steps of a concatenation one after the other: the second starts once the
    /// first has ended, so two steps with the same id both run and both deliver (see
    /// `Review8AttackTests.aConcatenationOfOneEffectTwiceDeliversTwice`). The test store must queue
    /// both, or a test that receives one action passes where the app handles two.
    @Test(arguments: [Action.twice, .anonymousTwice])
    func aConcatenationOfOneEffectTwiceQueuesBothSteps(action: Action) async {
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: Self.handler, dependency: ())
            store.send(action)
            await store.receive(.stepped) { $0.set(value: 1, forKey: .page) }
            #expect(store.queuedEffectIDs.count == 1, "the second step, started: \(store.queuedEffectIDs)")
            await store.receive(.stepped) { $0.set(value: 2, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    enum SearchID: Hashable { case run, debounce }

    enum SearchAction: Equatable, Sendable {
        case typed
        case searchNow
        case results
    }

    /// A search debounced while typing, and a button that searches now: the same search, under the
    /// same id, as a feature writes it.
    static func searchHandler<C: Clock<Duration> & Sendable>(
        _: C.Type
    ) -> StoreActionHandler<LoadKey, SearchAction, C> {
        StoreActionHandler { state, action, clock in
            let search = ActionEffect<SearchAction>(id: SearchID.run) { .results }
            switch action {
            case .typed:
                return search.debounce(id: SearchID.debounce, for: .milliseconds(300), clock: clock)
            case .searchNow:
                return search
            case .results:
                state.update(.page, as: Int.self) { $0 = ($0 ?? 0) + 1 }
            }
            return .none
        }
    }

    /// In a store, a search started now while a debounced one waits both run: the debounced search
    /// starts only once its wait is over, long after the one started now has delivered (see
    /// `Review8AttackTests.aSearchStartedNowLeavesTheDebouncedOneToRunLater`). The test store must
    /// queue both; it dropped the waiting one, so a test receiving one result passed where the app
    /// handles two. Received in a store's order: a `receive` that advances no clock runs the search
    /// started now before a wait on a clock.
    @Test func aSearchStartedNowLeavesTheDebouncedOneQueued() async {
        let clock = TestClock()
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: Self.searchHandler(TestClock.self), dependency: clock)
            store.send(.typed)
            store.send(.searchNow)
            #expect(store.queuedEffectIDs.count == 2, "queued: \(store.queuedEffectIDs)")
            await store.receive(.results) { $0.set(value: 1, forKey: .page) }
            await store.receive(.results, after: .milliseconds(300), on: clock) { $0.set(value: 2, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }

    /// A store whose actions are handled on the main actor: "its handler, its observers' `onChange`
    /// and its debug output all run on the main thread". A test store over it, sent an action from a
    /// test off the main actor, must keep that promise; its handler ran on the test's own thread.
    @Test func aTestStoreOverAMainActorStoreRunsItsHandlerOnTheMainThread() async {
        let threads = LockedList<Bool>()
        let store = Store<LoadKey, Action, Void>(
            initialValues: [:],
            actionHandler: StoreActionHandler { _, _, _ in
                threads.append(MainQueueCheck.isCurrent)
                return .none
            },
            dependency: (),
            isolation: .mainActor)
        let failures = await captureFailures {
            let testStore = TestStore(store: store)
            testStore.send(.stepped)
        }
        #expect(failures.map(\.message) == [])
        #expect(threads.values == [true], "the handler ran off the main thread")
    }

    enum ChainAction: Equatable, Sendable {
        case startLong
        case chain
        case longDone
        case firstDone
    }

    /// `.startLong` starts an effect under `StepID.step`; `.chain` a concatenation whose second step
    /// cancels it, once its first step has ended.
    static let cancelStepHandler = StoreActionHandler<LoadKey, ChainAction, Void> { _, action, _ in
        switch action {
        case .startLong:
            return ActionEffect(id: StepID.step) { .longDone }
        case .chain:
            return .concatenate(ActionEffect { .firstDone }, .cancel(id: StepID.step))
        case .longDone, .firstDone:
            return .none
        }
    }

    /// A concatenation's cancel step runs in a store once the step before it has ended: until then
    /// the effect it cancels runs, and may deliver (FIFO, it came first). The test store cancels it
    /// when the concatenation is queued, before its first step has run, so receiving the effect's
    /// action fails where the app may handle it.
    @Test func aConcatenationsCancelStepLeavesTheEffectQueuedUntilItsTurn() async {
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: Self.cancelStepHandler, dependency: ())
            store.send(.startLong)
            store.send(.chain)
            #expect(store.queuedEffectIDs.first == AnyHashable(StepID.step), "queued: \(store.queuedEffectIDs)")
            await store.receive(.longDone)
            await store.receive(.firstDone)
        }
        #expect(failures.map(\.message) == [])
    }

    /// A failure about an effect given no id names it as the library names such an effect everywhere
    /// else ("an effect without an id", as `queuedEffectIDs` prints it), not by the internal type
    /// and serial number of its id.
    @Test func aFailureAboutAnEffectWithoutAnIDDoesNotNameAnInternalType() async {
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: Self.cancelStepHandler, dependency: ())
            store.send(.chain)
            await store.receive(.longDone)
        }
        #expect(failures.count == 1)
        for failure in failures {
            #expect(!failure.message.contains("AnonymousEffectID"), "\(failure.message)")
            #expect(failure.message.contains("an effect without an id"), "\(failure.message)")
        }
    }
}

/// Whether code runs on the main queue, where the main actor runs (on Linux a worker thread may
/// serve it, so `Thread.isMainThread` is not the test).
private enum MainQueueCheck {
    private static let key = DispatchSpecificKey<Bool>()
    private static let marked: Void = DispatchQueue.main.setSpecific(key: key, value: true)

    static var isCurrent: Bool {
        marked
        return DispatchQueue.getSpecific(key: key) == true
    }
}
