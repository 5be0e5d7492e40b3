import CacheStore
import Foundation
import Testing

enum EffectAction: Equatable, Sendable {
    case start(id: String, gate: Int, result: Int)
    case startSequence(count: Int)
    case startForever
    case stop(id: String)
    case received(Int)
}

enum CancelID { case work }

/// Effects wait on numbered gates the test opens; delivered results are appended to `.list`.
struct EffectDependency: Sendable {
    let gates: [Gate]
    let cancellations: Recorder<Int>
}

let effectHandler = StoreActionHandler<Key, EffectAction, EffectDependency> { state, action, dependency in
    switch action {
    case .start(let id, let gate, let result):
        return ActionEffect(id: id) {
            await dependency.gates[gate].wait()
            if Task.isCancelled { dependency.cancellations.append(result) }
            return .received(result)
        }
    case .startSequence(let count):
        return .run(id: "sequence") { send in
            for value in 1...count { await send(.received(value)) }
        }
    case .startForever:
        return ActionEffect(id: CancelID.work) {
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
            dependency.cancellations.append(-1)
            return nil
        }
    case .stop(let id):
        return .cancel(id: id)
    case .received(let value):
        state.update(.list, as: [Int].self) { $0 = ($0 ?? []) + [value] }
    }
    return .none
}

func makeEffectStore(gates: Int = 2) -> (Store<Key, EffectAction, EffectDependency>, EffectDependency) {
    let dependency = EffectDependency(gates: (0..<gates).map { _ in Gate() }, cancellations: Recorder())
    return (Store(initialValues: [:], actionHandler: effectHandler, dependency: dependency), dependency)
}

@Suite(.timeLimit(.minutes(2))) struct EffectTests {
    @Test func anEffectsActionIsHandledWhenItFinishes() async {
        let (store, dependency) = makeEffectStore()
        store.handle(action: .start(id: "a", gate: 0, result: 1))
        #expect(store.runningEffectIDs == ["a"])
        dependency.gates[0].open()
        #expect(await eventually { store.get(.list, as: [Int].self) == [1] })
        #expect(await eventually { store.runningEffectIDs.isEmpty })
    }

    @Test func startingAnEffectWithARunningIDCancelsTheOldOne() async {
        let (store, dependency) = makeEffectStore()
        store.handle(action: .start(id: "fetch", gate: 0, result: 1))
        store.handle(action: .start(id: "fetch", gate: 1, result: 2))
        dependency.gates[0].open()  // the old effect finishes, ignoring cancellation: must not deliver
        #expect(await eventually { dependency.cancellations.values == [1] })
        #expect(store.runningEffectIDs == ["fetch"])  // its cleanup left the newer effect alone
        dependency.gates[1].open()
        #expect(await eventually { store.get(.list, as: [Int].self) == [2] })
        #expect(await eventually { store.runningEffectIDs.isEmpty })
        #expect(store.get(.list, as: [Int].self) == [2])
    }

    @Test func cancelByIDStopsDelivery() async {
        let (store, dependency) = makeEffectStore()
        store.handle(action: .start(id: "a", gate: 0, result: 1))
        store.handle(action: .start(id: "b", gate: 1, result: 2))
        #expect(store.runningEffectIDs == ["a", "b"])
        store.cancel(id: "a")
        #expect(store.runningEffectIDs == ["b"])
        dependency.gates[0].open()
        dependency.gates[1].open()
        #expect(await eventually { store.get(.list, as: [Int].self) == [2] })
        #expect(await eventually { dependency.cancellations.values == [1] })
        #expect(store.get(.list, as: [Int].self) == [2])
    }

    @Test func aHandlerCancelsAnEffectByReturningCancel() async {
        let (store, dependency) = makeEffectStore()
        store.handle(action: .start(id: "a", gate: 0, result: 1))
        store.handle(action: .stop(id: "a"))
        #expect(store.runningEffectIDs.isEmpty)
        dependency.gates[0].open()
        #expect(await eventually { dependency.cancellations.values == [1] })
        #expect(store.get(.list, as: [Int].self) == nil)
    }

    @Test func cancellingAnUnknownIDDoesNothing() {
        let (store, _) = makeEffectStore()
        #expect(!store.cancel(id: "nothing"))
        #expect(store.runningEffectIDs.isEmpty)
    }

    @Test func aRunEffectSendsEveryActionInOrder() async {
        let (store, _) = makeEffectStore()
        store.handle(action: .startSequence(count: 5))
        #expect(await eventually { store.get(.list, as: [Int].self) == [1, 2, 3, 4, 5] })
        #expect(await eventually { store.runningEffectIDs.isEmpty })
    }

    @Test func releasingTheStoreCancelsItsEffectsAndTheyDoNotKeepItAlive() async {
        let dependency = EffectDependency(gates: [], cancellations: Recorder())
        weak var weakStore: Store<Key, EffectAction, EffectDependency>?
        do {
            let store = Store(initialValues: [:], actionHandler: effectHandler, dependency: dependency)
            weakStore = store
            store.handle(action: .startForever)
            #expect(store.runningEffectIDs == [AnyHashable(CancelID.work)])
        }
        #expect(await eventually { weakStore == nil })
        #expect(await eventually { dependency.cancellations.values == [-1] })
    }
}
