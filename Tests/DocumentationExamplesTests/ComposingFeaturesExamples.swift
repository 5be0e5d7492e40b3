import CacheStoreTesting
import Testing

// The examples of the Composing features article (Documentation.docc/ComposingFeatures.md). The keys
// and their typed keys are declared at the top level (an extension cannot be local), under names no
// other article uses; the rest is declared inside the test, so that its names do not meet the other
// articles' examples in this module.

nonisolated enum ReadingListKey { case items, query, results, theme, fontSize }

nonisolated extension TypedKey<ReadingListKey, [String]> {
    static var items: Self { .init(.items, default: []) }
    static var results: Self { .init(.results, default: []) }
}

nonisolated extension TypedKey<ReadingListKey, String> {
    static var query: Self { .init(.query, default: "") }
}

nonisolated enum DisplayKey { case theme, textSize }

nonisolated extension TypedKey<DisplayKey, Int> {
    static var textSize: Self { .init(.textSize, default: 14) }
}

@Suite(.timeLimit(.minutes(2))) struct ComposingFeaturesExamples {
    @Test func theArticlesAppRunsInOneStoreAndIsTestedByOneTestStore() async {
        // The Getting Started examples declare a `Clock` of their own in this module.
        typealias Clock = _Concurrency.Clock

        enum ListAction: Equatable {
            case add(String)
            case remove(String)
        }

        let listHandler = StoreActionHandler<ReadingListKey, ListAction, Void> {
            state, action, _ in
            switch action {
            case .add(let item): state[.items].append(item)
            case .remove(let item): state[.items].removeAll { $0 == item }
            }
            return .none
        }

        enum BookSearchAction: Equatable {
            case queryChanged(String)
            case results([String])
        }

        enum BookSearchID { case debounce, search }

        struct BookSearchClient: Sendable {
            var search: @Sendable (String) async -> [String]
            var clock: any Clock<Duration>
        }

        let searchHandler = StoreActionHandler<
            ReadingListKey, BookSearchAction, BookSearchClient
        > { state, action, client in
            switch action {
            case .queryChanged(let query):
                state[.query] = query
                return ActionEffect(id: BookSearchID.search) {
                    .results(await client.search(query))
                }
                .debounce(
                    id: BookSearchID.debounce, for: .milliseconds(300),
                    clock: client.clock)
            case .results(let results):
                state[.results] = results
                return .none
            }
        }

        enum DisplayAction: Equatable {
            case setTheme(String)
            case biggerText
        }

        let displayHandler = StoreActionHandler<DisplayKey, DisplayAction, Void> {
            state, action, _ in
            switch action {
            case .setTheme(let theme): state.set(value: theme, forKey: .theme)
            case .biggerText: state[.textSize] += 1
            }
            return .none
        }

        enum ReadingListAction: Equatable {
            case list(ListAction)
            case search(BookSearchAction)
            case display(DisplayAction)
            case addResult(String)
            case stopSearching
        }

        struct ReadingListDependency: Sendable {
            var search: BookSearchClient
        }

        typealias ReadingListHandler = StoreActionHandler<
            ReadingListKey, ReadingListAction, ReadingListDependency
        >

        let list = FeatureLift(
            appKeys: [ReadingListKey.items], action: ReadingListAction.list)
        let search = FeatureLift(
            label: "search", appKeys: [ReadingListKey.query, .results],
            action: ReadingListAction.search)
        let display = FeatureLift(
            keys: [DisplayKey.theme: ReadingListKey.theme, .textSize: .fontSize],
            action: ReadingListAction.display)

        let appHandler = ReadingListHandler(combining: [
            list.handler(listHandler),
            search.handler(searchHandler, dependency: { app in app.search }),
            display.handler(displayHandler),
            ReadingListHandler { _, action, _ in
                switch action {
                case .addResult(let item):
                    return ActionEffect(.list(.add(item)))
                case .stopSearching:
                    return .cancel(id: search.effectID(BookSearchID.debounce))
                default:
                    return .none
                }
            },
        ])

        let app = Store(
            initialValues: [.fontSize: 14],
            actionHandler: appHandler,
            dependency: ReadingListDependency(
                search: BookSearchClient(
                    search: { query in ["\(query) book"] },
                    clock: ContinuousClock())))
        app.handle(action: .display(.biggerText))

        let listView = app.view(list)
        listView.handle(action: .add("Swift in Depth"))
        let items = listView[.items]  // ["Swift in Depth"]
        #expect(items == ["Swift in Depth"])

        let clock = TestClock()
        let store = TestStore(
            initialValues: [.fontSize: 14],
            actionHandler: appHandler,
            dependency: ReadingListDependency(
                search: BookSearchClient(
                    search: { query in ["\(query) book"] }, clock: clock)))

        store.send(.search(.queryChanged("sw"))) { $0[.query] = "sw" }
        store.send(.search(.queryChanged("swift"))) { $0[.query] = "swift" }
        await clock.advance(by: .milliseconds(300))
        await store.receive(.search(.results(["swift book"]))) {
            $0[.results] = ["swift book"]
        }

        store.send(.addResult("swift book"))
        await store.receive(.list(.add("swift book"))) {
            $0[.items] = ["swift book"]
        }

        store.send(.display(.biggerText)) {
            $0.set(value: 15, forKey: .fontSize)
        }

        store.send(.search(.queryChanged("swiftui"))) { $0[.query] = "swiftui" }
        store.send(.stopSearching)
        await clock.advance(by: .milliseconds(300))  // no search ran

        #expect(store.runningEffectIDs.isEmpty)
        #expect(app.get(.fontSize, as: Int.self) == 15)
        #expect(app[.items] == ["Swift in Depth"])
    }
}
