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

@Suite struct TestStoreEffectCompositionTests {
    func makeStore() -> TestStore<LoadKey, ChainAction, Void> {
        TestStore(initialValues: [:], actionHandler: chainHandler, dependency: ())
    }

    @Test func aMergedEffectsPartsAreQueuedAndCancelledEachByItsID() async {
        let store = makeStore()
        store.send(.merge)
        #expect(store.runningEffectIDs == [ChainID.first, ChainID.second])
        store.cancel(id: ChainID.first)
        await store.receive(.received("second")) { $0.set(value: ["second"], forKey: .items) }
    }

    @Test func aConcatenatedEffectsPartsAreReceivedInOrder() async {
        let store = makeStore()
        store.send(.concatenate)
        #expect(store.runningEffectIDs == [ChainID.chain, ChainID.first], "the second step starts once the first has ended")
        await store.receive(.received("first")) { $0.set(value: ["first"], forKey: .items) }
        #expect(store.runningEffectIDs == [ChainID.chain, ChainID.second])
        await store.receive(.received("second")) { $0.set(value: ["first", "second"], forKey: .items) }
    }

    @Test func cancellingAConcatenationByItsIDRemovesEveryPart() {
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

    @Test func aNewConcatenationWithTheSameIDReplacesTheQueuedOne() async {
        let store = makeStore()
        store.send(.concatenate)
        store.send(.concatenate)
        #expect(store.runningEffectIDs == [ChainID.chain, ChainID.first], "the first concatenation, replaced, left nothing")
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
}
