import CacheStore
import Synchronization
import Testing

// The examples of the debug log's section of the Debug output article
// (Documentation.docc/DebugOutputAndValueComparison.md), with the Scoping article's keys.

enum SettingsFeatureAction {
    case setFontSize(Int)
    case togglePreview
}

let settingsFeatureHandler = StoreActionHandler<SettingsKey, SettingsFeatureAction, Void> { state, action, _ in
    switch action {
    case .setFontSize(let size):
        state.set(value: size, forKey: .fontSize)
    case .togglePreview:
        state.update(.isPreviewing, as: Bool.self) { $0 = !($0 ?? false) }
    }
    return .none
}

let appHandler = AppHandler { state, action, _ in
    switch action {
    case .settingsChanged:
        state.set(value: "custom", forKey: .theme)
    }
    return .none
}

@Suite(.timeLimit(.minutes(2))) struct DebugLogExamples {
    @Test func aRootLogShowsItsScopedStoresActions() {
        let appStore = Store(initialValues: [.fontSize: 12], actionHandler: appHandler)
            .debug(label: "App")
        // The article's store prints; here its reports are kept instead, from the first action on.
        let reports = Mutex<[String]>([])
        appStore.debug(label: "App") { report in reports.withLock { $0.append(report) } }

        let settingsStore = appStore.scope(
            label: "settings",
            keyTransformation: settingsKeys,
            actionHandler: settingsFeatureHandler,
            defaultCache: [.isPreviewing: false],
            actionTransformation: { action in action.map { _ in .settingsChanged } }
        )

        settingsStore.handle(action: .setFontSize(16))
        settingsStore.handle(action: .togglePreview)

        #expect(
            reports.withLock { $0 } == [
                "[App/settings] Action: .setFontSize(16)\n  ~ .fontSize: 12 → 16",
                #"[App] Action: .settingsChanged (forwarded from App/settings)\#n  + .theme: "custom""#,
                "[App/settings] Action: .togglePreview\n  ~ settings/.isPreviewing: false → true",
                "[App] Action: .settingsChanged (forwarded from App/settings)\n  (no further state change)",
            ])
    }
}
