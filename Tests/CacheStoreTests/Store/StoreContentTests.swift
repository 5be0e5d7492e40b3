import CacheStore
import Testing

/// A view's content as the original CacheStore's `StoreContent` tests built it.
struct CountContent: StoreContent {
    let count: Int
    let store: Store<Key, Void, Void>

    init(store: Store<Key, Void, Void>) {
        count = store.get(.count, as: Int.self) ?? 0
        self.store = store
    }
}

@Suite(.timeLimit(.minutes(2))) struct StoreContentTests {
    @Test func contentIsBuiltFromTheStateNow() {
        let store = Store(initialValues: [.count: 1], actionHandler: counterHandler)
        #expect(store.content(using: CountContent.self).count == 1)

        store.handle(action: .increment)
        let content: CountContent = store.content()
        #expect(content.count == 2)
    }

    @Test func theContentsStoreSeesEveryKeyLiveAndHasNoActions() {
        let store = Store(initialValues: [.count: 1, .name: "Ada"], actionHandler: counterHandler)
        let content = store.content(using: CountContent.self)

        store.handle(action: .increment)
        #expect(content.store.get(.count, as: Int.self) == 2)
        #expect(content.store.get(.name, as: String.self) == "Ada")
        content.store.handle(action: ())
        #expect(store.allValues.count == 2)
    }
}
