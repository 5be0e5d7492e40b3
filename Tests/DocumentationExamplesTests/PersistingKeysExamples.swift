import CacheStore
import CacheStoreTesting
import Foundation
import Testing

// The examples of the Persisting keys article (Documentation.docc/PersistingKeys.md).

nonisolated enum ReaderKey { case theme, fontSize, launches }

nonisolated extension TypedKey<ReaderKey, String> {
    static var theme: Self { .init(.theme, default: "light") }
}

nonisolated extension TypedKey<ReaderKey, Int> {
    static var fontSize: Self { .init(.fontSize, default: 14) }
    static var launches: Self { .init(.launches, default: 0) }
}

/// What the font size was before schema 2: points, as a `Double`.
nonisolated extension TypedKey<ReaderKey, Double> {
    static var fontSizeInPoints: Self { .init(.fontSize, default: 14) }
}

enum ReaderAction {
    case setTheme(String)
    case setFontSizeInPoints(Double)
    case setLaunches(Int)
}

nonisolated let readerHandler = StoreActionHandler<ReaderKey, ReaderAction, Void> { state, action, _ in
    switch action {
    case .setTheme(let theme): state[.theme] = theme
    case .setFontSizeInPoints(let points): state[.fontSizeInPoints] = points
    case .setLaunches(let launches): state[.launches] = launches
    }
    return .none
}

@Suite(.timeLimit(.minutes(2))) struct PersistingKeysExamples {
    /// A folder of its own under the system's temporary folder.
    static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("PersistingKeysExamples-\(UUID().uuidString)")
    }

    @Test func aPersistedKeyIsRestoredByTheNextStore() async throws {
        let stateFolder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: stateFolder) }

        let persistence = Persistence<ReaderKey>(folder: stateFolder)
            .persisting(.theme)
            .persisting(.fontSize)

        let reader = Store(
            initialValues: [:],
            actionHandler: readerHandler,
            dependency: (),
            persistence: persistence
        )
        reader.handle(action: .setTheme("dark"))
        await reader.flush()  // saved: the next launch starts with "dark"

        for error in reader.persistenceErrors {
            print(error)
        }

        #expect(reader.persistenceErrors.isEmpty)
        let next = Store(initialValues: [:], actionHandler: readerHandler, dependency: (), persistence: persistence)
        #expect(next[.theme] == "dark")
        #expect(next[.fontSize] == 14)
    }

    @Test func aMigrationReadsAnEarlierSchema() async throws {
        let stateFolder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: stateFolder) }
        let schema1 = Persistence<ReaderKey>(folder: stateFolder).persisting(.fontSizeInPoints, file: "fontSize.json")
        let before = Store(initialValues: [:], actionHandler: readerHandler, dependency: (), persistence: schema1)
        before.handle(action: .setFontSizeInPoints(15.6))
        await before.flush()

        let migrated = Persistence<ReaderKey>(folder: stateFolder)
            .persisting(
                .fontSize, schema: 2,
                migrations: [
                    PersistenceMigration(from: 1) { (points: Double) in
                        Int(points.rounded())
                    }
                ])

        let after = Store(initialValues: [:], actionHandler: readerHandler, dependency: (), persistence: migrated)
        #expect(after.persistenceErrors.isEmpty)
        #expect(after[.fontSize] == 16)
    }

    @Test func anUpdateChangesWhatEveryProcessSaved() async throws {
        let stateFolder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: stateFolder) }
        let persistence = Persistence<ReaderKey>(folder: stateFolder).persisting(.launches)
        let other = Store(initialValues: [:], actionHandler: readerHandler, dependency: (), persistence: persistence)
        try await other.update(.launches, sending: ReaderAction.setLaunches) { $0 += 1 }
        let reader = Store(initialValues: [:], actionHandler: readerHandler, dependency: (), persistence: persistence)

        let launches = try await reader.update(
            .launches, sending: ReaderAction.setLaunches
        ) { $0 += 1 }

        #expect(launches == 2)
        #expect(reader[.launches] == 2)
    }

    @Test func aTestStoreKeepsTheFilesInMemory() async {
        let stateFolder = Self.temporaryFolder()
        let persistence = Persistence<ReaderKey>(folder: stateFolder)
            .persisting(.theme)
            .persisting(.fontSize)
        let failures = await captureFailureMessages {
            let store = TestStore(
                initialValues: [:],
                actionHandler: readerHandler,
                dependency: (),
                persistence: persistence,
                saved: [.theme: "dark"]
            )
            store.send(.setTheme("sepia")) { $0[.theme] = "sepia" }
            #expect(store.persisted[.theme] == "sepia")
        }
        #expect(failures == [])
        #expect(!FileManager.default.fileExists(atPath: stateFolder.path))
    }

    @Test func theFolderOnLinux() {
        let environment = ProcessInfo.processInfo.environment
        let home = FileManager.default.homeDirectoryForCurrentUser
        let stateHome =
            environment["XDG_STATE_HOME"].map(URL.init(fileURLWithPath:))
            ?? home.appendingPathComponent(".local/state")
        let appFolder = stateHome.appendingPathComponent("Reader")

        #expect(appFolder.lastPathComponent == "Reader")
    }
}
