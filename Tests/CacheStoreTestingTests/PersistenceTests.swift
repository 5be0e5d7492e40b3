import CacheStoreTesting
import Foundation
import Testing

enum SavedKey: Hashable, Sendable { case theme, count }

extension TypedKey<SavedKey, String> {
    static var theme: Self { .init(.theme, default: "light") }
}

extension TypedKey<SavedKey, Int> {
    static var count: Self { .init(.count, default: 0) }
}

enum SavedAction: Equatable, Sendable {
    case setTheme(String)
    case increment
}

let savedHandler = StoreActionHandler<SavedKey, SavedAction, Void> { state, action, _ in
    switch action {
    case .setTheme(let theme): state[.theme] = theme
    case .increment: state[.count] += 1
    }
    return .none
}

/// A test store of a persisted store keeps the keys' files in memory: preloaded with `saved:`,
/// read back with `persisted`, and no file written on the disk.
@Suite(.timeLimit(.minutes(1))) struct PersistenceTests {
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "PersistenceTests-never-written-\(UUID().uuidString)")
    static let persistence = Persistence<SavedKey>(folder: folder, saveInterval: .seconds(60)).persisting(.theme)

    @Test func aTestStoreRestoresWhatItWasGivenAndSavesInMemory() async {
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [.count: 5], actionHandler: savedHandler, dependency: (),
                persistence: Self.persistence, saved: [.theme: "dark"])
            #expect(store.persisted[.theme] == "dark")
            store.send(.setTheme("sepia")) { $0[.theme] = "sepia" }
            #expect(store.persisted[.theme] == "sepia", "saved at once when read, not after the interval")
            store.send(.increment) { $0[.count] = 6 }
            #expect(store.persisted[.count] == nil, "a key that is not persisted has no file")
        }
        #expect(failures.map(\.message) == [])
        #expect(!FileManager.default.fileExists(atPath: Self.folder.path), "the test wrote to the disk")
    }

    @Test func aSavedValueThatCannotBeSavedIsATestFailure() async {
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: savedHandler, dependency: (), persistence: Self.persistence,
                saved: [.theme: 42, .count: 9])
            #expect(store.persisted[.theme] == nil)
        }
        #expect(failures.count == 2)
        #expect(
            failures.map(\.message).sorted() == [
                "A saved value is left out: .count is not a persisted key",
                "A saved value is left out: .theme cannot be saved: it holds a Int, not a String",
            ])
    }

    @Test func theRestoredValueIsPartOfTheStateTheTestChecks() async {
        let failures = await captureFailures {
            let store = TestStore(
                initialValues: [:], actionHandler: savedHandler, dependency: (), persistence: Self.persistence,
                saved: [.theme: "dark"])
            store.send(.setTheme("dark"))
        }
        #expect(failures.map(\.message) == [])
    }
}
