import CacheStore
import Testing

@Suite(.timeLimit(.minutes(2))) struct StoreActionHandlerTests {
    @Test func noneChangesNothingAndRunsNoEffect() {
        let store = Store<Key, CounterAction, Void>(initialValues: [.count: 1], actionHandler: .none)
        store.handle(action: .increment)
        #expect(store.get(.count, as: Int.self) == 1)
        #expect(store.runningEffectIDs.isEmpty)
    }

    @Test func combinedHandlersRunInOrderOnTheSameState() {
        let log = Recorder<String>()
        let double = StoreActionHandler<Key, CounterAction, Void> { state, _, _ in
            log.append("double sees \(state.get(.count, as: Int.self) ?? -1)")
            state.update(.count, as: Int.self) { $0 = ($0 ?? 0) * 2 }
            return .none
        }
        let store = Store(
            initialValues: [.count: 1],
            actionHandler: StoreActionHandler(combining: [counterHandler, double]))
        store.handle(action: .increment)
        #expect(log.values == ["double sees 2"])
        #expect(store.get(.count, as: Int.self) == 4)
    }

    @Test func combinedHandlersRunEveryEffect() async {
        let first = StoreActionHandler<Key, CounterAction, Void> { _, action, _ in
            action == .rename("go") ? ActionEffect { .add(1) } : nil
        }
        let second = StoreActionHandler<Key, CounterAction, Void> { _, action, _ in
            action == .rename("go") ? ActionEffect(.add(10)) : nil
        }
        let store = Store(
            initialValues: [.count: 0],
            actionHandler: StoreActionHandler(combining: [first, second, counterHandler]))
        store.handle(action: .rename("go"))
        #expect(await eventually { store.get(.count, as: Int.self) == 11 })
    }

    @Test func beforeAndAfterHooksWrapTheHandlerInOneAction() {
        let handler =
            counterHandler
            .before { state, _, _ in state.set(value: "before", forKey: .name) }
            .after { state, _, _ in
                state.update(.count, as: Int.self) { $0 = ($0 ?? 0) * 100 }
            }
        let reports = Recorder<String>()
        let store = Store(initialValues: [.count: 0], actionHandler: handler).debug { reports.append($0) }
        store.handle(action: .increment)
        #expect(store.get(.count, as: Int.self) == 100)
        #expect(store.get(.name, as: String.self) == "before")
        #expect(reports.values.count == 1)  // one action, one commit
    }
}
