import CacheStore
import Testing

/// The README's quick start, verbatim but for the names, so it cannot rot.
private enum QuickStartKey { case count, isSaving }
private enum QuickStartAction { case increment, save, saved }

private let quickStartHandler = StoreActionHandler<QuickStartKey, QuickStartAction, Void> { state, action, _ in
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

@Suite struct QuickStartTests {
    @Test func readmeQuickStartWorksAsDescribed() async {
        let store = Store(initialValues: [.count: 0], actionHandler: quickStartHandler)
        store.handle(action: .increment)
        #expect(store.get(.count, as: Int.self) == 1)

        store.handle(action: .save)
        #expect(store.get(.isSaving, as: Bool.self) == true)
        #expect(await eventually { store.get(.isSaving, as: Bool.self) == false })
    }
}
