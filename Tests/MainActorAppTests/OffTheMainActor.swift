import CacheStore
import Testing

// The main-actor app targets compile every example of the README and of the articles (symbolic links to
// DocumentationExamplesTests' files) with main-actor isolation by default, as Xcode 26's app template
// does. What only such a target has to show is here.

@Suite(.timeLimit(.minutes(2))) struct OffTheMainActor {
    /// A store made on the main actor is usable off it too, as its keys are.
    @Test func theStoreIsUsableOffTheMainActor() async {
        let store = Store(initialValues: [.count: 0], actionHandler: handler)
        let count = await Task.detached {
            store.handle(action: .increment)
            return store.get(.count, as: Int.self)
        }.value
        #expect(count == 1)
    }
}
