import CacheStoreTesting
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
            #expect(store.queuedEffectIDs.count == 2, "queued: \(store.queuedEffectIDs)")
            await store.receive(.stepped) { $0.set(value: 1, forKey: .page) }
            await store.receive(.stepped) { $0.set(value: 2, forKey: .page) }
        }
        #expect(failures.map(\.message) == [])
    }
}
