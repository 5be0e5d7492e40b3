import CacheStore
import Foundation
import Testing

enum CounterAction: Equatable, Sendable {
    case increment
    case add(Int)
    case rename(String)
    case incrementThenAdd(Int)
    case writePair(Int)
    case replaceAll
}

let counterHandler = StoreActionHandler<Key, CounterAction, Void> { state, action, _ in
    switch action {
    case .increment:
        state.update(.count, as: Int.self) { $0 = ($0 ?? 0) + 1 }
    case .add(let amount):
        state.update(.count, as: Int.self) { $0 = ($0 ?? 0) + amount }
    case .rename(let name):
        state.set(value: name, forKey: .name)
    case .incrementThenAdd(let amount):
        state.update(.count, as: Int.self) { $0 = ($0 ?? 0) + 1 }
        return ActionEffect(.add(amount))
    case .writePair(let value):
        state.set(value: value, forKey: .item(1))
        state.set(value: value, forKey: .item(2))
    case .replaceAll:
        state = CacheStore(initialValues: [.name: "replaced"])
    }
    return .none
}

@Suite(.timeLimit(.minutes(2))) struct StoreTests {
    @Test func handleUpdatesTheStateBeforeItReturns() {
        let store = Store(initialValues: [.count: 0], actionHandler: counterHandler)
        store.handle(action: .increment)
        #expect(store.get(.count, as: Int.self) == 1)
        store.handle(action: .rename("Ada"))
        #expect(store.get(.name, as: String.self) == "Ada")
    }

    @Test func readAPIMirrorsCacheStore() throws {
        let store = Store(initialValues: [.count: 1, .name: "x"], actionHandler: counterHandler)
        #expect(try store.resolve(.count, as: Int.self) == 1)
        #expect(store.contains(.name))
        #expect(try store.require(.count).require(keys: [.name]) === store)
        #expect(store.valuesInCache(ofType: String.self) == [.name: "x"])
        #expect(store.allValues.count == 2)
        #expect(throws: CacheStore<Key>.MissingRequiredKeysError.self) { try store.require(.url) }
        #expect(throws: CacheStore<Key>.InvalidTypeError.self) { try store.resolve(.name, as: Int.self) }
    }

    @Test func immediateEffectIsHandledBeforeTheOutermostHandleReturns() {
        let store = Store(initialValues: [.count: 0], actionHandler: counterHandler)
        store.handle(action: .incrementThenAdd(10))
        #expect(store.get(.count, as: Int.self) == 11)
    }

    @Test func actionSentFromInsideAHandlerIsQueuedAndHandledNext() {
        let order = Recorder<String>()
        let box = StoreBox<Key, CounterAction, Void>()
        let handler = StoreActionHandler<Key, CounterAction, Void> { state, action, _ in
            order.append("start \(action)")
            if action == .increment { box.store?.handle(action: .add(5)) }
            _ = counterHandler.handle(store: &state, action: action, dependency: ())
            order.append("end \(action)")
            return .none
        }
        let store = Store(initialValues: [.count: 0], actionHandler: handler)
        box.store = store
        store.handle(action: .increment)
        #expect(order.values == ["start increment", "end increment", "start add(5)", "end add(5)"])
        #expect(store.get(.count, as: Int.self) == 6)
    }

    @Test func concurrentSendsFromFourThreadsLoseNothing() async {
        let store = Store(initialValues: [.count: 0], actionHandler: counterHandler)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<5_000 { store.handle(action: .increment) } }
            }
        }
        #expect(store.get(.count, as: Int.self) == 20_000)
    }

    @Test func anActionsWritesBecomeVisibleTogether() async {
        let store = Store(initialValues: [.item(1): 0, .item(2): 0], actionHandler: counterHandler)
        let writer = Task.detached {
            for value in 1...5_000 { store.handle(action: .writePair(value)) }
        }
        var halfApplied = 0
        while !writer.isCancelled {
            let values = store.allValues
            if values[.item(1)] as? Int != values[.item(2)] as? Int { halfApplied += 1 }
            if values[.item(1)] as? Int == 5_000 { break }
            await Task.yield()
        }
        await writer.value
        #expect(halfApplied == 0)
    }

    @Test func aHandlerMayReplaceTheWholeState() {
        let store = Store(initialValues: [.count: 1], actionHandler: counterHandler)
        store.handle(action: .replaceAll)
        #expect(store.allValues.count == 1)
        #expect(store.get(.name, as: String.self) == "replaced")
        #expect(!store.contains(.count))
    }

    @Test func aCacheStoreCapturedByAHandlerWritesStraightToTheStateAfterwards() {
        let captured = Recorder<CacheStore<Key>>()
        let handler = StoreActionHandler<Key, CounterAction, Void> { state, _, _ in
            captured.append(state)
            return .none
        }
        let store = Store(initialValues: [:], actionHandler: handler)
        store.handle(action: .increment)
        captured.values[0].set(value: 9, forKey: .count)
        #expect(store.get(.count, as: Int.self) == 9)
    }
}

/// Lets a handler reach the store it belongs to (created after the handler).
final class StoreBox<Key: Hashable & SendableMetatype, Action, Dependency>: @unchecked Sendable {
    private let lock = NSLock()
    private weak var stored: Store<Key, Action, Dependency>?

    var store: Store<Key, Action, Dependency>? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
