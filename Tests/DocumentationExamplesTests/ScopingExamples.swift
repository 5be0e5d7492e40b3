import CacheStore
import Testing

// The examples of the Scoping article (Documentation.docc/Scoping.md).

nonisolated enum AppKey { case token, userID, theme, fontSize }

nonisolated enum SettingsKey { case theme, fontSize, isPreviewing }

let settingsKeys: BiDirectionalTransformation<AppKey?, SettingsKey?> = (
    from: { appKey in
        switch appKey {
        case .theme: .theme
        case .fontSize: .fontSize
        default: nil
        }
    },
    to: { settingsKey in
        switch settingsKey {
        case .theme: .theme
        case .fontSize: .fontSize
        default: nil
        }
    }
)

enum AppAction { case settingsChanged }
enum SettingsAction { case setFontSize(Int) }

typealias SettingsHandler =
    StoreActionHandler<SettingsKey, SettingsAction, Void>

let settingsHandler = SettingsHandler { state, action, _ in
    switch action {
    case .setFontSize(let size):
        state.set(value: size, forKey: .fontSize)
    }
    return .none
}

typealias AppHandler = StoreActionHandler<AppKey, AppAction, Void>

@Suite(.timeLimit(.minutes(2))) struct ScopingExamples {
    @Test func aKeySubsetScopeIsALiveView() {
        let app = CacheStore<AppKey>(initialValues: [.theme: "dark"])
        let session = app.scope(keys: [.token, .userID])

        session.set(value: "t0k3n", forKey: .token)
        let token = app.get(.token, as: String.self)  // "t0k3n": set via the scope
        let theme = session.get(.theme, as: String.self)  // nil: not in the scope
        #expect(token == "t0k3n")
        #expect(theme == nil)

        app.set(value: 7, forKey: .userID)
        #expect(session.get(.userID, as: Int.self) == 7)  // and the other way
    }

    @Test func aTransformedScopeHasItsOwnKeys() {
        let app = CacheStore<AppKey>(initialValues: [.theme: "dark"])
        let settings = app.scope(
            keyTransformation: settingsKeys, defaultCache: [.isPreviewing: false])
        settings.set(value: 14, forKey: .fontSize)
        let fontSize = app.get(.fontSize, as: Int.self)  // 14
        // false: .isPreviewing is the scope's own key
        let isPreviewing = settings.get(.isPreviewing, as: Bool.self)
        #expect(fontSize == 14)
        #expect(isPreviewing == false)
        #expect(settings.get(.theme, as: String.self) == "dark")
        #expect(app.allValues.count == 2)  // .isPreviewing never reaches the parent
    }

    @Test func aScopedStoreForwardsActionsToItsParent() {
        let appStore = Store(
            initialValues: [.fontSize: 12],
            actionHandler: AppHandler { state, action, _ in
                switch action {
                case .settingsChanged:
                    state.set(value: "custom", forKey: .theme)
                }
                return .none
            }
        )

        let settingsStore = appStore.scope(
            keyTransformation: settingsKeys,
            actionHandler: settingsHandler,
            actionTransformation: { action in action.map { _ in .settingsChanged } }
        )

        settingsStore.handle(action: .setFontSize(16))
        let appFontSize = appStore.get(.fontSize, as: Int.self)  // 16
        // "custom": the forwarded action ran in the parent
        let appTheme = appStore.get(.theme, as: String.self)
        #expect(appFontSize == 16)
        #expect(appTheme == "custom")
        #expect(settingsStore.get(.theme, as: String.self) == "custom")
    }
}
