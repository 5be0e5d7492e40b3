import CacheStore
import CacheStoreTesting
import Testing

// README.md's quick start and Testing example, as the README shows them.

nonisolated enum Key { case count, isSaving }  // keys are used from any thread
enum Action { case increment, save, saved }

let handler = StoreActionHandler<Key, Action, Void> { state, action, _ in
    switch action {
    case .increment:
        state.update(.count, as: Int.self) { count in count = (count ?? 0) + 1 }
        return .none
    case .save:
        state.set(value: true, forKey: .isSaving)
        return ActionEffect(id: "save") { .saved }  // runs concurrently, cancellable by id
    case .saved:
        state.set(value: false, forKey: .isSaving)
        return .none
    }
}

@Test func quickStart() async {
    let store = Store(initialValues: [.count: 0], actionHandler: handler)
    store.handle(action: .increment)
    let count = store.get(.count, as: Int.self)  // 1: the handler ran before `handle` returned
    #expect(count == 1)

    // Not checked right after `handle`: the effect may already have ended and `.saved` been handled
    // (a ThreadSanitizer run of CI saw `false` there).
    store.handle(action: .save)
    #expect(await eventually { store.get(.isSaving, as: Bool.self) == false })  // .saved was handled
}

@Test func incrementThenSave() async {
    let store = TestStore(initialValues: [.count: 0], actionHandler: handler, dependency: ())

    store.send(.increment) { $0.set(value: 1, forKey: .count) }
    store.send(.save) { $0.set(value: true, forKey: .isSaving) }
    await store.receive(.saved) { $0.set(value: false, forKey: .isSaving) }
}

@Test func theReadmeShowsTheFailureMessageOfAWrongExpectation() async throws {
    let messages = await captureFailureMessages {
        let store = TestStore(initialValues: [.count: 0], actionHandler: handler, dependency: ())
        store.send(.increment) { $0.set(value: 2, forKey: .count) }
    }
    #expect(messages.count == 1)
    let readme = try DocumentationCodeBlocks.text(of: "README.md")
    #expect(readme.contains("```\n\(try #require(messages.first))\n```"))
}
