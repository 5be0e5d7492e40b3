import Dispatch
import Foundation
import Synchronization
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

    /// The folder's files, but for the lock file every save takes.
    static func files(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
            .filter { $0 != PersistenceFolder.lockFileName }
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

    /// The save runs on the store's saving queue, never on the thread that handles the action: the
    /// value is encoded on another thread.
    @Test func aSaveNeverRunsOnTheHandlersThread() async throws {
        try await Self.inTemporaryFolder { folder in
            let persistence = Persistence<EdgeKey>(folder: folder, saveInterval: .zero).persisting(.holder)
            EncodingHold.shared.recordsThread = true
            defer { EncodingHold.shared.recordsThread = false }
            let store = Self.edgeStore(persistence)
            let handlerThread = Mutex<pthread_t?>(nil)
            let thread = Thread {
                handlerThread.withLock { $0 = pthread_self() }
                store.handle(action: EdgeSet(key: .holder, value: HoldsTheStore(text: "x")))
            }
            thread.start()
            while !thread.isFinished { try? await Task.sleep(for: .milliseconds(1)) }
            await store.flush()
            let encodedOn = EncodingHold.shared.encodingThreads.withLock { $0 }
            let handler = try #require(handlerThread.withLock { $0 })
            #expect(!encodedOn.isEmpty && encodedOn.allSatisfy { pthread_equal($0, handler) == 0 })
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

    /// Random files (random bytes, and valid files with one byte changed; 200 in `swift test`, 1,000
    /// in the full soak): never a crash nor a value, always corrupt, truncated or empty, the copy
    /// byte for byte.
    @Test func randomAndFlippedFilesAreReportedAndMovedAside() async throws {
        try await Self.inTemporaryFolder { folder in
            var generator = SeededGenerator(seed: 7)
            let valid = Self.validThemeFile("dark")
            for index in 0..<(Soak.isFull ? 1_000 : 200) {
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

    /// An app's notification that it ends, or goes to the background, saves what is pending before
    /// the notification's post returns.
    @Test(arguments: Persister<PrefsKey>.saveNotifications)
    func anAppsTerminationSavesWhatIsPending(notification: Notification.Name) async throws {
        try await Self.inTemporaryFolder { folder in
            // A center of the test's own: the stores of the tests beside it save on their own time.
            var persistence = Self.persistence(folder, interval: .seconds(3_600))
            persistence.notificationCenter = NotificationCenter()
            let store = Store(initialValues: [:], actionHandler: prefsHandler, dependency: (), persistence: persistence)
            store.handle(action: .setTheme("dark"))
            #expect(Self.files(in: folder) == [], "saved only after an hour")
            persistence.notificationCenter.post(name: notification, object: nil)
            #expect(Self.files(in: folder) == ["theme.json"])
            #expect(Self.makeStore(folder)[.theme] == "dark")
        }
    }

    /// A file the process may not read: as root (this package's CI) every file can be read, so the
    /// disk's folder is wrapped by one that refuses to read the theme's file as the system does
    /// (EACCES); the rest, moving the file aside included, is the disk's.
    @Test func aFileThatMayNotBeReadIsMovedAsideAndReported() async throws {
        try await Self.inTemporaryFolder { folder in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let original = Self.validThemeFile("dark")
            try original.write(to: folder.appendingPathComponent("theme.json"))
            let store = Store(
                initialValues: [:], actionHandler: prefsHandler, dependency: (), persistence: Self.persistence(folder),
                backend: UnreadableFile(
                    name: "theme.json", folder: PersistenceFolder(url: folder, durability: .flushed)))
            #expect(store[.theme] == "light")
            let error = try #require(store.persistenceErrors.first)
            #expect(store.persistenceErrors.count == 1)
            #expect(error.cause == .system("could not open for reading: Permission denied"))
            #expect("\(error)".contains("theme.json could not be used: could not open for reading: Permission denied"))
            try Self.expectMovedAside(error, original: original, in: folder)
        }
    }

    /// `debug` writes the errors of the restore, then each later one (a save's) when it happens.
    @Test func debugWritesEachPersistenceError() async throws {
        try await Self.inTemporaryFolder { folder in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data().write(to: folder.appendingPathComponent("theme.json"))
            // Saved on flush() only: no timer's save makes the folder again while the test replaces it.
            let store = Self.makeStore(folder, interval: .seconds(3_600))
            let reports = Recorder<String>()
            store.debug(label: "Prefs") { reports.append($0) }
            store.handle(action: .setFontSize(15))
            let restoreError =
                "[Prefs] Persistence error: the key .theme: \(folder.path)/theme.json is empty; moved to "
            #expect(reports.values.first?.hasPrefix(restoreError) == true, "\(reports.values)")
            #expect(reports.values.last?.hasPrefix("[Prefs] Action: .setFontSize(15)") == true)
            #expect(reports.values.count == 2)

            try FileManager.default.removeItem(at: folder)
            try Data("a file where the folder should be".utf8).write(to: folder)
            await store.flush()
            let saveError =
                "[Prefs] Persistence error: the key .fontSize: \(folder.path)/font-size.json could not be used"
            #expect(reports.values.count == 3)
            #expect(reports.values.last?.hasPrefix(saveError) == true, "\(reports.values)")
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
            #expect(store.persistenceErrors.count >= 4, "the restores' three, and the save's (tried again)")
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

enum EdgeKey: Hashable, Sendable {
    case value
    case item(String)
    case holder
}

/// Sets (or, for `nil`, removes) any key: each test picks its values.
struct EdgeSet: @unchecked Sendable {
    let key: EdgeKey
    let value: Any?
}

let edgeHandler = StoreActionHandler<EdgeKey, EdgeSet, Void> { state, action, _ in
    if let value = action.value { state.set(value: value, forKey: action.key) } else { state.remove(action.key) }
    return .none
}

extension TypedKey<EdgeKey, String> {
    static var value: Self { .init(.value, default: "default") }
    static func item(_ name: String) -> Self { .init(.item(name), default: "default") }
}

/// What a value's `encode(to:)` holds while a save encodes it.
final class EncodingHold: @unchecked Sendable {
    static let shared = EncodingHold()
    var store: Store<EdgeKey, EdgeSet, Void>?
    let inEncode = DispatchSemaphore(value: 0)
    let released = DispatchSemaphore(value: 0)
    /// Whether an encoding only records the thread it runs on, instead of holding the store.
    var recordsThread = false
    let encodingThreads = Mutex<[pthread_t]>([])
}

/// A value whose encoding holds the store, as a value that reads the store while it encodes would.
struct HoldsTheStore: Codable, Sendable {
    var text: String
    init(text: String) { self.text = text }
    init(from decoder: any Decoder) throws { text = try decoder.singleValueContainer().decode(String.self) }
    func encode(to encoder: any Encoder) throws {
        if EncodingHold.shared.recordsThread {
            EncodingHold.shared.encodingThreads.withLock { $0.append(pthread_self()) }
            var container = encoder.singleValueContainer()
            return try container.encode(text)
        }
        let held = EncodingHold.shared.store
        EncodingHold.shared.inEncode.signal()
        _ = EncodingHold.shared.released.wait(timeout: .now() + 20)
        var container = encoder.singleValueContainer()
        try container.encode(text)
        withExtendedLifetime(held) {}
    }
}

extension TypedKey<EdgeKey, HoldsTheStore?> {
    static var holder: Self { .init(.holder, default: nil) }
}

/// The edges of persisted keys (from a hostile review): failed saves, odd names and schemas, a
/// changed header byte, a store released on its saving queue, an interval too long to count.
extension PersistedKeyTests {
    static func edgeStore(_ persistence: Persistence<EdgeKey>) -> Store<EdgeKey, EdgeSet, Void> {
        Store(initialValues: [:], actionHandler: edgeHandler, dependency: (), persistence: persistence)
    }

    /// A save the system refused is tried again: by the next flush, once the folder can be written.
    @Test func aSaveThatFailedIsSavedOnceTheFolderCanBeWritten() async throws {
        try await Self.inTemporaryFolder { folder in
            try Data("a file where the folder should be, for a moment".utf8).write(to: folder)
            let persistence = Persistence<EdgeKey>(folder: folder, saveInterval: .milliseconds(10)).persisting(.value)
            do {
                let store = Self.edgeStore(persistence)
                store.handle(action: EdgeSet(key: .value, value: "dark"))
                await store.flush()
                #expect(store.persistenceErrors.count >= 2, "the restore's, and the failed save's (maybe tried again)")
                try FileManager.default.removeItem(at: folder)  // the folder can be written again
                await store.flush()
            }
            #expect(Self.edgeStore(persistence)[.value] == "dark")
        }
    }

    @Test func aKeyOfANegativeSchemaReadsBackWhatItSaved() async throws {
        try await Self.inTemporaryFolder { folder in
            let persistence = Persistence<EdgeKey>(folder: folder).persisting(.value, schema: -1)
            do {
                let store = Self.edgeStore(persistence)
                store.handle(action: EdgeSet(key: .value, value: "dark"))
            }
            let next = Self.edgeStore(persistence)
            #expect(next.persistenceErrors == [])
            #expect(next[.value] == "dark")
        }
    }

    @Test func aFileNameOutsideTheFolderStopsTheProgramNamingIt() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Persistence<EdgeKey>(folder: URL(fileURLWithPath: "/tmp")).persisting(.value, file: "../escaped.json")
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(
            message.contains(
                #"the file name "../escaped.json" of .value has a / or a NUL: it would not be in the folder"#),
            "\(message)")
    }

    /// A key named with 100 letters of three bytes each gets a file name of at most 100 bytes of them.
    @Test func aKeyOfALongNonASCIINameIsSaved() async throws {
        try await Self.inTemporaryFolder { folder in
            let name = String(repeating: "日", count: 100)
            let persistence = Persistence<EdgeKey>(folder: folder).persisting(.item(name))
            do {
                let store = Self.edgeStore(persistence)
                store.handle(action: EdgeSet(key: .item(name), value: "saved"))
                await store.flush()
                #expect(store.persistenceErrors == [])
            }
            #expect(Self.edgeStore(persistence)[.item(name)] == "saved")
            #expect(Self.files(in: folder).allSatisfy { $0.utf8.count <= 110 })
        }
    }

    /// An interval too long to count in nanoseconds saves on flush and at release only.
    @Test func aVeryLongSaveIntervalSavesOnFlush() async throws {
        try await Self.inTemporaryFolder { folder in
            let persistence = Persistence<EdgeKey>(folder: folder, saveInterval: .seconds(Int64.max)).persisting(.value)
            let store = Self.edgeStore(persistence)
            store.handle(action: EdgeSet(key: .value, value: "dark"))
            #expect(Self.files(in: folder) == [])
            await store.flush()
            #expect(Self.edgeStore(persistence)[.value] == "dark")
        }
    }

    /// The last reference to the store is let go while a save encodes its value: the store's release,
    /// on the saving queue, saves there and returns.
    @Test func aStoreReleasedOnItsSavingQueueSavesAndGoesOn() async {
        await #expect(processExitsWith: .success) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("PersistedKeyQueue-\(getpid())")
            defer { try? FileManager.default.removeItem(at: folder) }
            let persistence = Persistence<EdgeKey>(folder: folder, saveInterval: .zero).persisting(.holder)
            EncodingHold.shared.store = PersistedKeyTests.edgeStore(persistence)
            EncodingHold.shared.store?.handle(action: EdgeSet(key: .holder, value: HoldsTheStore(text: "x")))
            _ = EncodingHold.shared.inEncode.wait(timeout: .now() + 20)
            EncodingHold.shared.store = nil  // released while the save encodes
            for _ in 0..<4 { EncodingHold.shared.released.signal() }
            for _ in 0..<200
            where !FileManager.default.fileExists(atPath: folder.appendingPathComponent("holder.json").path) {
                try? await Task.sleep(for: .milliseconds(10))
            }
            exit(FileManager.default.fileExists(atPath: folder.appendingPathComponent("holder.json").path) ? 0 : 3)
        }
    }

    /// One byte of the header changed: corrupt (moved aside), never a file of a later schema or
    /// layout, which would be kept and never saved over.
    @Test(arguments: [
        ("schema 1", "schema 7"), ("value 1\n", "value 7\n"), ("schema 1", "schema 0"), ("value 1\n", "value 0\n"),
        ("length 5", "length 4"),
    ])
    func aChangedByteOfTheHeaderIsCorrupt(from: String, to: String) async throws {
        try await Self.inTemporaryFolder { folder in
            let persistence = Persistence<EdgeKey>(folder: folder).persisting(.value)
            let valid = String(
                decoding: PersistedFileFormat.file(schema: 1, payload: try JSONEncoder().encode("old")), as: UTF8.self)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(valid.replacingOccurrences(of: from, with: to).utf8)
                .write(to: folder.appendingPathComponent("value.json"))
            do {
                let store = Self.edgeStore(persistence)
                let error = try #require(store.persistenceErrors.first)
                #expect(!error.keepsFile && error.movedTo != nil, "\(error)")
                store.handle(action: EdgeSet(key: .value, value: "new"))
            }
            #expect(Self.edgeStore(persistence)[.value] == "new")
        }
    }

    /// A file whose layout is later than this package's, checksum and all, is kept as it is.
    @Test func aFileOfALaterLayoutIsLeftAsItIs() async throws {
        try await Self.inTemporaryFolder { folder in
            let covered = Data("CacheStore persisted value 2\nschema 1\nlength 5\n".utf8)
            let payload = Data(#""new""#.utf8)
            var later = covered
            later.append(contentsOf: "fnv1a64 \(PersistedFileFormat.checksumText(of: covered, payload))\n\n".utf8)
            later.append(payload)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try later.write(to: folder.appendingPathComponent("value.json"))
            let store = Self.edgeStore(Persistence<EdgeKey>(folder: folder).persisting(.value))
            #expect(store.persistenceErrors.map(\.cause) == [.newerFormat(2)])
            store.handle(action: EdgeSet(key: .value, value: "mine"))
            await store.flush()
            #expect(try Data(contentsOf: folder.appendingPathComponent("value.json")) == later)
        }
    }

    /// Hostile headers: too long, negative or huge lengths, not UTF-8, no end: reported, never a crash.
    @Test func hostileHeadersAreReportedNeverAValue() {
        let headers = [
            "CacheStore persisted value 1\nschema 1\nlength 1000000000000000000\nfnv1a64 0\n\n\"x\"",
            "CacheStore persisted value 1\nschema 1\nlength -3\nfnv1a64 0\n\n\"x\"",
            "CacheStore persisted value -4\nschema 1\nlength 3\nfnv1a64 0\n\n\"x\"",
            "CacheStore persisted value 1\nschema 99999999999999999999999\nlength 3\nfnv1a64 0\n\n\"x\"",
            "CacheStore persisted value 1\n" + String(repeating: "schema 1", count: 10_000),
        ]
        for header in headers {
            guard case .failure = PersistedFileFormat.read(Data(header.utf8)) else {
                Issue.record("read as a value: \(header.prefix(80))")
                continue
            }
        }
        if case .success = PersistedFileFormat.read(Data([0x43, 0xFF, 0xFE, 0x0A, 0x0A])) {
            Issue.record("non-UTF-8 bytes read as a value")
        }
    }
}

/// The disk's folder, but the file `name` cannot be read, as a file of another user's is not.
struct UnreadableFile: PersistenceBackend {
    let name: String
    let folder: PersistenceFolder

    func fileURL(_ name: String) -> URL { folder.fileURL(name) }

    func read(_ name: String) -> Result<Data?, PersistenceError.Cause> {
        guard name == self.name else { return folder.read(name) }
        return .failure(.system(DurableFileError(path: "", operation: "open for reading", code: EACCES).reason))
    }

    func write(_ name: String, _ data: Data) -> PersistenceError.Cause? { folder.write(name, data) }
    func remove(_ name: String) -> PersistenceError.Cause? { folder.remove(name) }
    func moveAside(_ name: String, at date: Date) -> URL? { folder.moveAside(name, at: date) }
    func removeAbandonedTemporaryFiles(of names: [String]) { folder.removeAbandonedTemporaryFiles(of: names) }

    func withFolderLock<T>(creatingFolder: Bool, _ body: (PersistenceError.Cause?) -> T) -> T {
        folder.withFolderLock(creatingFolder: creatingFolder, body)
    }
}
