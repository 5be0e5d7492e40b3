import CacheStore
import CacheStoreTesting
import Testing

// README.md's quick start and Testing example, as the README shows them, compiled with the settings
// of Xcode 26's app template: main-actor isolation by default, InferIsolatedConformances and
// NonisolatedNonsendingByDefault (see Package.swift). Everything here is on the main actor unless it
// says otherwise.

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

/// The README's tests, main-actor isolated by default like the rest of this target. They are in a
/// suite because Swift 6.3's `@Test` macro does not compile on a top-level function of a module with
/// main-actor isolation by default ("'@const' value should be initialized with a compile-time value").
@Suite(.timeLimit(.minutes(2))) struct ReadmeInAMainActorApp {
    @Test func quickStart() async {
        let store = Store(initialValues: [.count: 0], actionHandler: handler)
        store.handle(action: .increment)
        let count = store.get(.count, as: Int.self)  // 1: the handler ran before `handle` returned
        #expect(count == 1)

        // Not checked right after `handle`: the effect may already have ended and `.saved` been
        // handled (a ThreadSanitizer run of CI saw `false` there, as it did in ReadmeExamples).
        store.handle(action: .save)
        #expect(await eventually { store.get(.isSaving, as: Bool.self) == false })  // .saved was handled
    }

    @Test func incrementThenSave() async {
        let store = TestStore(initialValues: [.count: 0], actionHandler: handler, dependency: ())

        store.send(.increment) { $0.set(value: 1, forKey: .count) }
        store.send(.save) { $0.set(value: true, forKey: .isSaving) }
        await store.receive(.saved) { $0.set(value: false, forKey: .isSaving) }
    }

    /// The store is usable off the main actor too, as its keys are.
    @Test func theStoreIsUsableOffTheMainActor() async {
        let store = Store(initialValues: [.count: 0], actionHandler: handler)
        let count = await Task.detached {
            store.handle(action: .increment)
            return store.get(.count, as: Int.self)
        }.value
        #expect(count == 1)
    }
}

/// Waits until `condition` holds, for effects that finish on their own time; `false` after 120 s.
func eventually(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(120)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}
