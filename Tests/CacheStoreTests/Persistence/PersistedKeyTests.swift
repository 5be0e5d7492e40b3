import Foundation
import Testing

@testable import CacheStore

enum PrefsKey: Hashable, Sendable { case theme, fontSize, profile }

struct Profile: Codable, Equatable, Sendable {
    var name: String
    var age: Int
}

extension TypedKey<PrefsKey, String> {
    static var theme: Self { .init(.theme, default: "light") }
}

extension TypedKey<PrefsKey, Int> {
    static var fontSize: Self { .init(.fontSize, default: 14) }
}

extension TypedKey<PrefsKey, Profile?> {
    static var profile: Self { .init(.profile, default: nil) }
}

enum PrefsAction: Sendable {
    case setTheme(String)
    case setFontSize(Int)
    case setProfile(Profile?)
    case setUntyped(PrefsKey, String)
}

let prefsHandler = StoreActionHandler<PrefsKey, PrefsAction, Void> { state, action, _ in
    switch action {
    case .setTheme(let theme): state[.theme] = theme
    case .setFontSize(let size): state[.fontSize] = size
    case .setProfile(let profile): state[.profile] = profile
    case .setUntyped(let key, let value): state.set(value: value, forKey: key)
    }
    return .none
}

/// Persisted keys: restored when a store is made, saved after they change (coalesced, off the
/// handler's thread, at release and on `flush()`); bad files moved aside with a typed error, files of
/// a later schema left as they are, earlier schemas migrated.
@Suite(.timeLimit(.minutes(2))) struct PersistedKeyTests {
    /// A folder of its own under the system's temporary folder, removed when `body` returns.
    @discardableResult
    static func inTemporaryFolder<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "PersistedKeyTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(folder)
    }

    static func persistence(_ folder: URL, interval: Duration = .milliseconds(50)) -> Persistence<PrefsKey> {
        Persistence(folder: folder, saveInterval: interval)
            .persisting(.theme)
            .persisting(.fontSize, file: "font-size.json")
            .persisting(.profile)
    }

    static func makeStore(_ folder: URL, interval: Duration = .milliseconds(50)) -> Store<PrefsKey, PrefsAction, Void> {
        Store(
            initialValues: [:], actionHandler: prefsHandler, dependency: (),
            persistence: persistence(folder, interval: interval))
    }

    static func files(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    @Test func aValueSavedIsRestoredByTheNextStore() async throws {
        try await Self.inTemporaryFolder { folder in
            let store = Self.makeStore(folder)
            #expect(store[.theme] == "light")
            #expect(Self.files(in: folder) == [], "no file until a key is written")
            store.handle(action: .setTheme("dark"))
            store.handle(action: .setProfile(Profile(name: "Ada", age: 36)))
            await store.flush()
            #expect(Self.files(in: folder) == ["profile.json", "theme.json"])
            let next = Self.makeStore(folder)
            #expect(next[.theme] == "dark")
            #expect(next[.profile] == Profile(name: "Ada", age: 36))
            #expect(next[.fontSize] == 14)
            #expect(next.persistenceErrors == [])
        }
    }

    @Test func aRestoredValueTakesThePlaceOfTheInitialOne() async throws {
        try await Self.inTemporaryFolder { folder in
            let store = Self.makeStore(folder)
            store.handle(action: .setFontSize(20))
            await store.flush()
            let next = Store(
                initialValues: [.fontSize: 16, .theme: "blue"], actionHandler: prefsHandler, dependency: (),
                persistence: Self.persistence(folder))
            #expect(next[.fontSize] == 20)
            #expect(next[.theme] == "blue")
        }
    }

    @Test func releasingTheStoreSavesWhatIsPending() async throws {
        try await Self.inTemporaryFolder { folder in
            do {
                let store = Self.makeStore(folder, interval: .seconds(60))
                store.handle(action: .setTheme("sepia"))
            }
            #expect(Self.makeStore(folder)[.theme] == "sepia")
        }
    }

    @Test func removingAKeysValueRemovesItsFile() async throws {
        try await Self.inTemporaryFolder { folder in
            let store = Self.makeStore(folder)
            store.handle(action: .setProfile(Profile(name: "Ada", age: 36)))
            await store.flush()
            store.handle(action: .setProfile(nil))
            await store.flush()
            #expect(Self.files(in: folder) == [])
            #expect(Self.makeStore(folder)[.profile] == nil)
        }
    }

    /// 100,000 writes of a key are at most one save per interval, plus one.
    @Test func writesWithinAnIntervalAreOneSave() async throws {
        try await Self.inTemporaryFolder { folder in
            let interval = Duration.milliseconds(100)
            let store = Self.makeStore(folder, interval: interval)
            let start = ContinuousClock.now
            for size in 1...100_000 { store.handle(action: .setFontSize(size)) }
            let elapsed = ContinuousClock.now - start
            await store.flush()
            let writes = try #require(store.persister).fileWrites
            let bound = 1 + Int((elapsed / interval).rounded(.up))
            #expect(writes >= 1 && writes <= bound, "\(writes) writes in \(elapsed)")
            #expect(Self.makeStore(folder)[.fontSize] == 100_000)
        }
    }

    /// The save runs on the persister's queue, never on the thread that handles the action.
    @Test func aSaveNeverRunsOnTheHandlersThread() async throws {
        try await Self.inTemporaryFolder { folder in
            let store = Self.makeStore(folder, interval: .zero)
            store.handle(action: .setTheme("dark"))
            #expect(Self.files(in: folder) == [] || Self.files(in: folder) == ["theme.json"])
            await store.flush()
            #expect(Self.files(in: folder) == ["theme.json"])
        }
    }

    /// Writes `bytes` as the theme's file, makes a store, and returns it with the one error it reported.
    static func storeOverBadThemeFile(
        _ folder: URL, _ bytes: Data
    ) throws -> (Store<PrefsKey, PrefsAction, Void>, PersistenceError?) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try bytes.write(to: folder.appendingPathComponent("theme.json"))
        let store = makeStore(folder)
        #expect(store.persistenceErrors.count == 1)
        return (store, store.persistenceErrors.first)
    }

    /// Every bad file is moved aside byte for byte, and the key holds its default.
    static func expectMovedAside(_ error: PersistenceError?, original: Data, in folder: URL) throws {
        let movedTo = try #require(error?.movedTo)
        #expect(movedTo.lastPathComponent.hasPrefix("theme.json.corrupt-"))
        #expect(try Data(contentsOf: movedTo) == original)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("theme.json").path))
        try FileManager.default.removeItem(at: movedTo)
    }

    static func validThemeFile(_ theme: String, schema: Int = 1) -> Data {
        PersistedFileFormat.file(schema: schema, payload: try! JSONEncoder().encode(theme))
    }

    @Test func anEmptyFileIsMovedAsideAndTheKeyHoldsItsDefault() async throws {
        try await Self.inTemporaryFolder { folder in
            let (store, error) = try Self.storeOverBadThemeFile(folder, Data())
            #expect(error?.cause == .empty)
            #expect(error?.key == ".theme")
            #expect(store[.theme] == "light")
            try Self.expectMovedAside(error, original: Data(), in: folder)
            #expect("\(try #require(error))".contains("is empty; moved to theme.json.corrupt-"))
        }
    }

    /// A valid file cut at every byte offset: never a value, always `.truncated` (or `.empty`), the
    /// copy equal to what was cut.
    @Test func aFileTruncatedAtEveryOffsetIsReportedAsTruncated() async throws {
        try await Self.inTemporaryFolder { folder in
            let valid = Self.validThemeFile("a theme of some length")
            for length in 0..<valid.count {
                let cut = valid.prefix(length)
                let (store, error) = try Self.storeOverBadThemeFile(folder, cut)
                #expect(store[.theme] == "light")
                switch error?.cause {
                case .empty: #expect(length == 0)
                case .truncated: break
                default: Issue.record("cut at \(length): \(String(describing: error))")
                }
                try Self.expectMovedAside(error, original: cut, in: folder)
            }
        }
    }

    /// 1,000 random files (random bytes, and valid files with one byte changed): never a crash nor a
    /// value, always corrupt, truncated or empty, the copy byte for byte.
    @Test func randomAndFlippedFilesAreReportedAndMovedAside() async throws {
        try await Self.inTemporaryFolder { folder in
            var generator = SeededGenerator(seed: 7)
            let valid = Self.validThemeFile("dark")
            for index in 0..<1_000 {
                var bytes: Data
                if index.isMultiple(of: 2) {
                    bytes = Data(
                        (0..<Int.random(in: 1...300, using: &generator)).map { _ in
                            UInt8.random(in: 0...255, using: &generator)
                        })
                } else {
                    bytes = valid
                    let at = Int.random(in: 0..<valid.count, using: &generator)
                    bytes[at] ^= UInt8.random(in: 1...255, using: &generator)
                }
                let (store, error) = try Self.storeOverBadThemeFile(folder, bytes)
                #expect(store[.theme] == "light", "file \(index)")
                switch error?.cause {
                case .corrupt, .truncated, .newerFormat, .newerSchema: break
                default: Issue.record("file \(index): \(String(describing: error))")
                }
                if error?.keepsFile == true {
                    try FileManager.default.removeItem(at: folder.appendingPathComponent("theme.json"))
                } else {
                    try Self.expectMovedAside(error, original: bytes, in: folder)
                }
            }
        }
    }

    @Test func aFileOfAnotherTypeIsReportedAsTheWrongType() async throws {
        try await Self.inTemporaryFolder { folder in
            let number = PersistedFileFormat.file(schema: 1, payload: Data("42".utf8))
            let (store, error) = try Self.storeOverBadThemeFile(folder, number)
            guard case .wrongType = error?.cause else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(store[.theme] == "light")
            try Self.expectMovedAside(error, original: number, in: folder)
        }
    }

    @Test func aFolderAtTheKeysPathIsMovedAside() async throws {
        try await Self.inTemporaryFolder { folder in
            let path = folder.appendingPathComponent("theme.json")
            try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
            let store = Self.makeStore(folder)
            let error = try #require(store.persistenceErrors.first)
            #expect(error.cause == .notAFile)
            #expect(store[.theme] == "light")
            let movedTo = try #require(error.movedTo)
            var isFolder: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: movedTo.path, isDirectory: &isFolder) && isFolder.boolValue)
            store.handle(action: .setTheme("dark"))
            await store.flush()
            #expect(Self.makeStore(folder)[.theme] == "dark")
        }
    }

    /// A second bad file in the same instant is moved under another name: no copy is overwritten.
    @Test func aBadFileNeverOverwritesAnEarlierCopy() async throws {
        try await Self.inTemporaryFolder { folder in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let names = PersistenceFolder(url: folder, durability: .flushed)
            let date = Date()
            try Data("first".utf8).write(to: folder.appendingPathComponent("theme.json"))
            let first = try #require(names.moveAside("theme.json", at: date))
            try Data("second".utf8).write(to: folder.appendingPathComponent("theme.json"))
            let second = try #require(names.moveAside("theme.json", at: date))
            #expect(first != second)
            #expect(try Data(contentsOf: first) == Data("first".utf8))
            #expect(try Data(contentsOf: second) == Data("second".utf8))
        }
    }

    /// A file of a later schema is reported, left byte for byte as it is, and not saved over.
    @Test func aFileOfALaterSchemaIsLeftAsItIs() async throws {
        try await Self.inTemporaryFolder { folder in
            let later = Self.validThemeFile("from the future", schema: 3)
            let (store, error) = try Self.storeOverBadThemeFile(folder, later)
            #expect(error?.cause == .newerSchema(file: 3, key: 1))
            #expect(error?.movedTo == nil)
            #expect(store[.theme] == "light")
            store.handle(action: .setTheme("dark"))
            await store.flush()
            #expect(try Data(contentsOf: folder.appendingPathComponent("theme.json")) == later)
            #expect(Self.files(in: folder) == ["theme.json"])
            #expect(
                "\(try #require(error))".hasSuffix(
                    "holds schema 3, later than the key's 1; left as it is, and the key is not saved over it"))
        }
    }

    /// Schema 1 saved the font size as a Double of points, schema 2 as a whole number, schema 3 as a
    /// string of one: a schema 1 file is read through both steps.
    @Test func aFileOfAnEarlierSchemaIsMigratedStepByStep() async throws {
        try await Self.inTemporaryFolder { folder in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try PersistedFileFormat.file(schema: 1, payload: Data("15.6".utf8))
                .write(to: folder.appendingPathComponent("font-size.json"))
            let persistence = Persistence<PrefsKey>(folder: folder)
                .persisting(
                    .fontSize, file: "font-size.json", schema: 3,
                    migrations: [
                        PersistenceMigration(from: 2, json: { data in data.dropLast(0) }),
                        PersistenceMigration(from: 1) { (points: Double) in Int(points.rounded()) },
                    ])
            let store = Store(initialValues: [:], actionHandler: prefsHandler, dependency: (), persistence: persistence)
            #expect(store.persistenceErrors == [])
            #expect(store[.fontSize] == 16)
            let missing = Persistence<PrefsKey>(folder: folder).persisting(.fontSize, file: "font-size.json", schema: 3)
            let unmigrated = Store(
                initialValues: [:], actionHandler: prefsHandler, dependency: (), persistence: missing)
            #expect(unmigrated.persistenceErrors.map(\.cause) == [.missingMigration(from: 1)])
            #expect(unmigrated[.fontSize] == 14)
        }
    }

    @Test func aValueOfAnotherTypeIsReportedWhenSavedNotCrashed() async throws {
        try await Self.inTemporaryFolder { folder in
            let store = Self.makeStore(folder)
            store.handle(action: .setUntyped(.theme, "ok"))
            store.handle(action: .setUntyped(.fontSize, "not a number"))
            await store.flush()
            let error = try #require(store.persistenceErrors.first)
            guard case .encodingFailed(let detail) = error.cause else {
                Issue.record("\(error)")
                return
            }
            #expect(detail.contains("it holds a String, not a Int"))
            #expect(Self.makeStore(folder)[.theme] == "ok")
        }
    }

    @Test func aSaveThatFailsIsReportedAndTheStoreGoesOn() async throws {
        try await Self.inTemporaryFolder { folder in
            try Data("a file where the folder should be".utf8).write(to: folder)
            let store = Self.makeStore(folder)
            #expect(store.persistenceErrors.map(\.description).allSatisfy { $0.contains("Not a directory") })
            #expect(store.persistenceErrors.count == 3, "each key's file is unreadable")
            store.handle(action: .setTheme("dark"))
            await store.flush()
            #expect(store.persistenceErrors.count == 4)
            let error = try #require(store.persistenceErrors.last)
            guard case .system(let detail) = error.cause else {
                Issue.record("\(error)")
                return
            }
            #expect(detail.contains(folder.path))
            #expect(store[.theme] == "dark")
        }
    }

    @Test func twoKeysSavedToOneFileStopTheProgramNamingBoth() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Persistence<PrefsKey>(folder: URL(fileURLWithPath: "/tmp"))
                .persisting(.theme, file: "same.json")
                .persisting(.fontSize, file: "same.json")
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("the keys .theme and .fontSize are both saved to same.json"), "\(message)")
    }
}
