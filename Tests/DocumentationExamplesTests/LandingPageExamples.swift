import CacheStore
import Testing

// The example of CacheStore's documentation landing page (Documentation.docc/CacheStore.md).

@Test func landingPageExample() async {
    nonisolated enum Key { case count }
    enum Action { case increment, incrementLater }

    let handler = StoreActionHandler<Key, Action, Void> { state, action, _ in
        switch action {
        case .increment:
            state.update(.count, as: Int.self) { count in count = (count ?? 0) + 1 }
            return .none
        case .incrementLater:
            return ActionEffect(id: "later") { .increment }
        }
    }

    let store = Store(initialValues: [.count: 0], actionHandler: handler)
    store.handle(action: .increment)
    let count = store.get(.count, as: Int.self)  // 1: handled already
    #expect(count == 1)

    store.handle(action: .incrementLater)
    #expect(await eventually { store.get(.count, as: Int.self) == 2 })
}
