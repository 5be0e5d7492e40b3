import CacheStoreTesting
import Testing

/// The README's quick start and Testing example (names aside), so neither can rot.
private enum QuickStartKey { case count, isSaving }
private enum QuickStartAction { case increment, save, saved }

private let handler = StoreActionHandler<QuickStartKey, QuickStartAction, Void> { state, action, _ in
    switch action {
    case .increment:
        state.update(.count, as: Int.self) { count in count = (count ?? 0) + 1 }
        return .none
    case .save:
        state.set(value: true, forKey: .isSaving)
        return ActionEffect(id: "save") { .saved }
    case .saved:
        state.set(value: false, forKey: .isSaving)
        return .none
    }
}

@Suite struct ReadmeTestingExampleTests {
    @Test func quickStart() async throws {
        let store = Store(initialValues: [.count: 0], actionHandler: handler)
        store.handle(action: .increment)
        #expect(store.get(.count, as: Int.self) == 1)  // the handler ran before `handle` returned

        store.handle(action: .save)
        #expect(store.get(.isSaving, as: Bool.self) == true)
        for _ in 0..<10_000 where store.get(.isSaving, as: Bool.self) == true {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(store.get(.isSaving, as: Bool.self) == false)  // the effect's .saved was handled
    }

    @Test func incrementThenSave() async {
        let store = TestStore(initialValues: [.count: 0], actionHandler: handler, dependency: ())

        store.send(.increment) { $0.set(value: 1, forKey: .count) }
        store.send(.save) { $0.set(value: true, forKey: .isSaving) }
        await store.receive(.saved) { $0.set(value: false, forKey: .isSaving) }
    }

    @Test func theReadmeFailureMessage() async {
        let failures = await captureFailures {
            let store = TestStore(initialValues: [.count: 0], actionHandler: handler, dependency: ())
            store.send(.increment) { $0.set(value: 2, forKey: .count) }
        }
        #expect(
            failures.map(\.message) == [
                """
                State after .increment does not match the expectation (− expected, + actual):
                  .count
                −   2
                +   1
                Fix the expectation closure, or the handler if the state is wrong.
                """
            ])
    }
}
