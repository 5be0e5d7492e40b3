import CacheStore
import Testing

// An app with a filter feature, a settings feature (with a key of its own) and, scoped from
// settings, a theme picker (with a key of its own too).

private enum AppKey: Hashable, Sendable { case selectedUser, isLoading, theme }
private enum AppAction: Sendable { case refresh, filterCleared }
private enum FilterKey: Hashable, Sendable { case userID }
private enum FilterAction: Sendable {
    case select(Int)
    case clear
}
private enum SettingsKey: Hashable, Sendable { case theme, preview }
private enum SettingsAction: Sendable { case toggleDarkMode, togglePreview, themePicked }
private enum ThemeKey: Hashable, Sendable { case name, isPreviewing, sample }
private enum ThemeAction: Sendable { case pick(String) }

private let appHandler = StoreActionHandler<AppKey, AppAction, Void> { state, action, _ in
    if case .refresh = action { state.set(value: true, forKey: .isLoading) }
    return .none
}

private let filterKeys: BiDirectionalTransformation<AppKey?, FilterKey?> = (
    from: { $0 == .selectedUser ? .userID : nil }, to: { $0 == .userID ? .selectedUser : nil }
)
private let filterHandler = StoreActionHandler<FilterKey, FilterAction, Void> { state, action, _ in
    switch action {
    case .select(let id): state.set(value: id, forKey: .userID)
    case .clear: state.remove(.userID)
    }
    return .none
}
private let filterToApp: @Sendable (FilterAction?) -> AppAction? = { action in
    if case .clear = action { .filterCleared } else { .refresh }
}

/// `.theme` is the app's; `.preview` is the settings store's own.
private let settingsKeys: BiDirectionalTransformation<AppKey?, SettingsKey?> = (
    from: { $0 == .theme ? .theme : nil }, to: { $0 == .theme ? .theme : nil }
)
private let settingsHandler = StoreActionHandler<SettingsKey, SettingsAction, Void> { state, action, _ in
    switch action {
    case .toggleDarkMode:
        state.update(.theme, as: String.self) { $0 = $0 == "dark" ? "light" : "dark" }
    case .togglePreview:
        state.update(.preview, as: Bool.self) { $0 = !($0 ?? false) }
    case .themePicked:
        break
    }
    return .none
}

/// `.name` is the settings store's `.theme` (so the app's), `.isPreviewing` its own `.preview`;
/// `.sample` is the theme store's own.
private let themeKeys: BiDirectionalTransformation<SettingsKey?, ThemeKey?> = (
    from: { key in
        switch key {
        case .theme: .name
        case .preview: .isPreviewing
        case nil: nil
        }
    },
    to: { key in
        switch key {
        case .name: .theme
        case .isPreviewing: .preview
        default: nil
        }
    }
)
private let themeHandler = StoreActionHandler<ThemeKey, ThemeAction, Void> { state, action, _ in
    guard case .pick(let name) = action else { return .none }
    state.set(value: name, forKey: .name)
    state.set(value: true, forKey: .isPreviewing)
    state.set(value: "\(name) sample", forKey: .sample)
    return .none
}

private func makeApp() -> Store<AppKey, AppAction, Void> {
    Store(initialValues: [.isLoading: false, .theme: "light"], actionHandler: appHandler)
}

@Suite(.timeLimit(.minutes(2))) struct DebugTreeTests {
    @Test func aRootLogLabelsTheReportsOfItsScopedStores() {
        let log = Recorder<String>()
        let app = makeApp().debug(label: "App") { log.append($0) }
        let filter = app.scope(label: "filter", keyTransformation: filterKeys, actionHandler: filterHandler)
        let settings = app.scope(
            keyTransformation: settingsKeys, actionHandler: settingsHandler, defaultCache: [.preview: false])

        app.handle(action: .refresh)
        filter.handle(action: .select(2))
        settings.handle(action: .toggleDarkMode)
        settings.handle(action: .togglePreview)

        #expect(
            log.values == [
                "[App] Action: .refresh\n  ~ .isLoading: false → true",
                "[App/filter] Action: .select(2)\n  + .selectedUser: 2",
                #"[App/SettingsAction] Action: .toggleDarkMode\#n  ~ .theme: "light" → "dark""#,
                // A key of the settings store's own is named by the store it lives in.
                "[App/SettingsAction] Action: .togglePreview\n  ~ SettingsAction/.preview: false → true",
            ])
    }

    @Test func aForwardedActionIsReportedAfterTheScopedActionThatChangedTheState() {
        let log = Recorder<String>()
        let app = makeApp().debug { log.append($0) }
        let filter = app.scope(
            keyTransformation: filterKeys, actionHandler: filterHandler, actionTransformation: filterToApp)

        filter.handle(action: .select(2))
        filter.handle(action: .clear)

        #expect(
            log.values == [
                "[CacheStore/FilterAction] Action: .select(2)\n  + .selectedUser: 2",
                "[CacheStore] Action: .refresh (forwarded from CacheStore/FilterAction)\n  ~ .isLoading: false → true",
                "[CacheStore/FilterAction] Action: .clear\n  - .selectedUser (was: 2)",
                // Not "(no state change)": the filter's action just above changed it.
                "[CacheStore] Action: .filterCleared (forwarded from CacheStore/FilterAction)\n"
                    + "  (no further state change)",
            ])
    }

    @Test func nestedScopesAreLabelledByTheirPathAndTheirWritesByTheLoggingStoresKeys() {
        let log = Recorder<String>()
        let app = makeApp().debug(label: "App") { log.append($0) }
        let settings = app.scope(
            label: "settings", keyTransformation: settingsKeys, actionHandler: settingsHandler,
            defaultCache: [.preview: false], actionTransformation: { _ in .refresh })
        let theme = settings.scope(
            label: "theme", keyTransformation: themeKeys, actionHandler: themeHandler,
            actionTransformation: { _ in .themePicked })

        theme.handle(action: .pick("dark"))

        #expect(
            log.values == [
                """
                [App/settings/theme] Action: .pick("dark")
                  ~ .theme: "light" → "dark"
                  ~ settings/.preview: false → true
                  + settings/theme/.sample: "dark sample"
                """,
                "[App/settings] Action: .themePicked (forwarded from App/settings/theme)\n  (no further state change)",
                "[App] Action: .refresh (forwarded from App/settings)\n  ~ .isLoading: false → true",
            ])
    }

    /// Decided: a scoped store's log shows its own actions and its scoped stores', in its own keys,
    /// whether or not its parent logs; the parent's actions are not in it.
    @Test func aScopedStoresOwnLogShowsItsSubtreeOnlyWhenTheRootDoesNotLog() {
        let log = Recorder<String>()
        let app = makeApp()
        let settings = app.scope(
            label: "settings", keyTransformation: settingsKeys, actionHandler: settingsHandler,
            defaultCache: [.preview: false], actionTransformation: { _ in .refresh }
        ).debug { log.append($0) }
        let theme = settings.scope(label: "theme", keyTransformation: themeKeys, actionHandler: themeHandler)

        app.handle(action: .refresh)
        theme.handle(action: .pick("dark"))
        settings.handle(action: .togglePreview)

        #expect(
            log.values == [
                """
                [settings/theme] Action: .pick("dark")
                  ~ .preview: false → true
                  ~ .theme: "light" → "dark"
                  + theme/.sample: "dark sample"
                """,
                "[settings] Action: .togglePreview\n  ~ .preview: true → false",
            ])
        #expect(app.get(.isLoading, as: Bool.self) == true)  // .refresh was handled, forwarded too: not logged
    }

    @Test func whenAScopedStoreAndItsRootBothLogEachGetsTheReportInItsOwnTerms() {
        let appLog = Recorder<String>()
        let settingsLog = Recorder<String>()
        let app = makeApp().debug(label: "App") { appLog.append($0) }
        let settings = app.scope(
            label: "settings", keyTransformation: settingsKeys, actionHandler: settingsHandler,
            defaultCache: [.preview: false]
        ).debug(label: "Settings") { settingsLog.append($0) }

        settings.handle(action: .togglePreview)

        #expect(appLog.values == ["[App/settings] Action: .togglePreview\n  ~ settings/.preview: false → true"])
        #expect(settingsLog.values == ["[Settings] Action: .togglePreview\n  ~ .preview: false → true"])
    }

    @Test func defaultLabelsNameTheRootCacheStoreAndAScopeByItsActionOrElseKeyType() {
        let log = Recorder<String>()
        let app = makeApp().debug { log.append($0) }
        let settings = app.actionlessScope(keyTransformation: settingsKeys, defaultCache: [.preview: false])
        let theme = settings.scope(keyTransformation: themeKeys, actionHandler: themeHandler)

        theme.handle(action: .pick("dark"))

        #expect(
            log.values == [
                """
                [CacheStore/SettingsKey/ThemeAction] Action: .pick("dark")
                  ~ .theme: "light" → "dark"
                  ~ SettingsKey/.preview: false → true
                  + SettingsKey/ThemeAction/.sample: "dark sample"
                """
            ])
    }

    @Test func aScopedActionsReportKeepsTheCapOfEachLog() {
        let handler = StoreActionHandler<Int, Int, Void> { state, action, _ in
            for key in 0..<200 { state.set(value: (0..<100).map { "value \($0) of \(action)" }, forKey: key) }
            return .none
        }
        let rootLog = Recorder<String>()
        let scopeLog = Recorder<String>()
        let root = Store<Int, Int, Void>(initialValues: [:], actionHandler: .none)
            .debug(maxReportLength: 2_000) { rootLog.append($0) }
        let bulk = root.scope(
            label: "bulk", keys: Set(0..<100), actionHandler: handler, dependencyTransformation: { _ in }
        ).debug(maxReportLength: 3_000) { scopeLog.append($0) }

        bulk.handle(action: 1)

        let rootReport = rootLog.values.first ?? ""
        let scopeReport = scopeLog.values.first ?? ""
        #expect(rootReport.hasPrefix("[CacheStore/bulk] Action: 1\n  + 0:"))
        #expect(rootReport.utf8.count <= 2_000 && rootReport.utf8.count > 1_500)
        #expect(rootReport.hasSuffix("more changed keys not shown") || rootReport.contains("more lines cut"))
        #expect(scopeReport.hasPrefix("[bulk] Action: 1\n  + 0:"))
        #expect(scopeReport.utf8.count <= 3_000 && scopeReport.utf8.count > 2_500)
    }

    @Test func anEffectOfAScopedStoreIsLoggedWhenItsActionIsHandled() async {
        let log = Recorder<String>()
        let app = makeApp().debug { log.append($0) }
        let handler = StoreActionHandler<FilterKey, FilterAction, Void> { state, action, _ in
            if case .clear = action { return ActionEffect { .select(7) } }
            return filterHandler.handle(store: &state, action: action, dependency: ())
        }
        let filter = app.scope(label: "filter", keyTransformation: filterKeys, actionHandler: handler)

        filter.handle(action: .clear)

        #expect(await eventually { log.values.count == 2 })
        #expect(
            log.values == [
                "[CacheStore/filter] Action: .clear\n  (no state change)",
                "[CacheStore/filter] Action: .select(7)\n  + .selectedUser: 7",
            ])
    }

    /// One tree, one turn: an action a handler sends to a scoped store is handled, and reported,
    /// after the action in hand.
    @Test func theLogIsInHandlingOrder() {
        let log = Recorder<String>()
        let links = Recorder<Store<FilterKey, FilterAction, Void>>()
        let app = Store<AppKey, AppAction, Void>(
            initialValues: [.isLoading: false],
            actionHandler: StoreActionHandler { state, action, _ in
                links.values.first?.handle(action: .select(1))
                return appHandler.handle(store: &state, action: action, dependency: ())
            }
        ).debug { log.append($0) }
        links.append(app.scope(label: "filter", keyTransformation: filterKeys, actionHandler: filterHandler))

        app.handle(action: .refresh)

        #expect(
            log.values == [
                "[CacheStore] Action: .refresh\n  ~ .isLoading: false → true",
                "[CacheStore/filter] Action: .select(1)\n  + .selectedUser: 1",
            ])
    }

    @Test func aScopedStoreMadeBeforeTheRootLogsIsInTheLogFromThen() {
        let log = Recorder<String>()
        let app = makeApp()
        let filter = app.scope(label: "filter", keyTransformation: filterKeys, actionHandler: filterHandler)
        filter.handle(action: .select(1))
        app.debug { log.append($0) }
        filter.handle(action: .select(2))
        #expect(log.values == ["[CacheStore/filter] Action: .select(2)\n  ~ .selectedUser: 1 → 2"])
    }
}
