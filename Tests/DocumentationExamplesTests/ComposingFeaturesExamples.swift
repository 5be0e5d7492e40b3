import CacheStoreTesting
import Testing

// The examples of the Composing features article (Documentation.docc/ComposingFeatures.md). They are
// declared inside the test, so that their names (`AppKey`, `SearchAction`, …) do not meet the other
// articles' examples in this module.

@Suite(.timeLimit(.minutes(2))) struct ComposingFeaturesExamples {
    @Test func theArticlesAppRunsInOneStoreAndIsTestedByOneTestStore() async {
        // The Getting Started examples declare a `Clock` of their own in this module.
        typealias Clock = _Concurrency.Clock

        enum AppKey { case items, query, results, theme, fontSize }

        enum ListAction: Equatable {
            case add(String)
            case remove(String)
        }

        let listHandler = StoreActionHandler<AppKey, ListAction, Void> {
            state, action, _ in
            state.update(.items, as: [String].self) { items in
                switch action {
                case .add(let item): items = (items ?? []) + [item]
                case .remove(let item): items = items?.filter { $0 != item }
                }
            }
            return .none
        }

        enum SearchAction: Equatable {
            case queryChanged(String)
            case results([String])
        }

        enum SearchID { case debounce, search }

        struct SearchClient: Sendable {
            var search: @Sendable (String) async -> [String]
            var clock: any Clock<Duration>
        }

        let searchHandler = StoreActionHandler<
            AppKey, SearchAction, SearchClient
        > { state, action, client in
            switch action {
            case .queryChanged(let query):
                state.set(value: query, forKey: .query)
                return ActionEffect(id: SearchID.search) {
                    .results(await client.search(query))
                }
                .debounce(
                    id: SearchID.debounce, for: .milliseconds(300),
                    clock: client.clock)
            case .results(let results):
                state.set(value: results, forKey: .results)
                return .none
            }
        }

        enum SettingsKey { case theme, textSize }

        enum SettingsAction: Equatable {
            case setTheme(String)
            case biggerText
        }

        let settingsHandler = StoreActionHandler<
            SettingsKey, SettingsAction, Void
        > { state, action, _ in
            switch action {
            case .setTheme(let theme):
                state.set(value: theme, forKey: .theme)
            case .biggerText:
                state.update(.textSize, as: Int.self) { $0 = ($0 ?? 14) + 1 }
            }
            return .none
        }

        let settingsKeys: BiDirectionalTransformation<AppKey?, SettingsKey?> = (
            from: { appKey in
                switch appKey {
                case .theme: .theme
                case .fontSize: .textSize
                default: nil
                }
            },
            to: { settingsKey in
                switch settingsKey {
                case .theme: .theme
                case .textSize: .fontSize
                case nil: nil
                }
            }
        )

        enum AppAction: Equatable {
            case list(ListAction)
            case search(SearchAction)
            case settings(SettingsAction)
            case addResult(String)
            case stopSearching
        }

        struct AppDependency: Sendable {
            var search: SearchClient
        }

        typealias AppHandler = StoreActionHandler<AppKey, AppAction, AppDependency>

        let searchFeature = AppHandler.scope(
            label: "search",
            keys: [.query, .results],
            actionHandler: searchHandler,
            extractAction: {
                if case .search(let search) = $0 { search } else { nil }
            },
            embedAction: AppAction.search,
            dependencyTransformation: { app in app.search })

        let appHandler = AppHandler(combining: [
            .scope(
                keys: [.items],
                actionHandler: listHandler,
                extractAction: { if case .list(let list) = $0 { list } else { nil } },
                embedAction: AppAction.list,
                dependencyTransformation: { _ in () }),
            searchFeature,
            .scope(
                keyTransformation: settingsKeys,
                actionHandler: settingsHandler,
                extractAction: {
                    if case .settings(let settings) = $0 { settings } else { nil }
                },
                embedAction: AppAction.settings,
                dependencyTransformation: { _ in () }),
            AppHandler { _, action, _ in
                switch action {
                case .addResult(let item):
                    return ActionEffect(.list(.add(item)))
                case .stopSearching:
                    return .cancel(id: searchFeature.effectID(SearchID.debounce))
                default:
                    return .none
                }
            },
        ])

        let app = Store(
            initialValues: [.fontSize: 14],
            actionHandler: appHandler,
            dependency: AppDependency(
                search: SearchClient(
                    search: { query in ["\(query) book"] },
                    clock: ContinuousClock())))
        app.handle(action: .settings(.biggerText))
        app.handle(action: .list(.add("Swift in Depth")))

        let clock = TestClock()
        let store = TestStore(
            initialValues: [.fontSize: 14],
            actionHandler: appHandler,
            dependency: AppDependency(
                search: SearchClient(
                    search: { query in ["\(query) book"] }, clock: clock)))

        store.send(.search(.queryChanged("sw"))) {
            $0.set(value: "sw", forKey: .query)
        }
        store.send(.search(.queryChanged("swift"))) {
            $0.set(value: "swift", forKey: .query)
        }
        await clock.advance(by: .milliseconds(300))
        await store.receive(.search(.results(["swift book"]))) {
            $0.set(value: ["swift book"], forKey: .results)
        }

        store.send(.addResult("swift book"))
        await store.receive(.list(.add("swift book"))) {
            $0.set(value: ["swift book"], forKey: .items)
        }

        store.send(.settings(.biggerText)) {
            $0.set(value: 15, forKey: .fontSize)
        }

        store.send(.search(.queryChanged("swiftui"))) {
            $0.set(value: "swiftui", forKey: .query)
        }
        store.send(.stopSearching)
        await clock.advance(by: .milliseconds(300))  // no search ran

        #expect(store.runningEffectIDs.isEmpty)
        #expect(app.get(.fontSize, as: Int.self) == 15)
        #expect(app.get(.items, as: [String].self) == ["Swift in Depth"])
    }
}
