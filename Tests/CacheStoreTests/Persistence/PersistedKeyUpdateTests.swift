import Foundation
import Testing

@testable import CacheStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum CountKey: Hashable, Sendable { case count, label }

extension TypedKey<CountKey, Int> {
    static var count: Self { .init(.count, default: 0) }
}

extension TypedKey<CountKey, String> {
    static var label: Self { .init(.label, default: "") }
}

enum CountAction: Sendable {
    case setCount(Int)
    case setLabel(String)
    case increment
}

let countHandler = StoreActionHandler<CountKey, CountAction, Void> { state, action, _ in
    switch action {
    case .setCount(let count): state[.count] = count
    case .setLabel(let label): state[.label] = label
    case .increment: state[.count] += 1
    }
    return .none
}

/// `update(_:sending:_:)`: a read-modify-write of a persisted key's file under the folder's lock,
/// which the stores of every process on the folder take, so that no process's update is lost.
@Suite(.timeLimit(.minutes(5))) struct PersistedKeyUpdateTests {
    static func persistence(_ folder: URL, interval: Duration = .milliseconds(20)) -> Persistence<CountKey> {
        Persistence(folder: folder, saveInterval: interval).persisting(.count)
    }

    static func makeStore(_ folder: URL, interval: Duration = .milliseconds(20)) -> Store<CountKey, CountAction, Void> {
        Store(
            initialValues: [:], actionHandler: countHandler, dependency: (),
            persistence: persistence(folder, interval: interval))
    }

    /// The folder two child processes share: named after the test process, their parent.
    static func sharedFolder(parent: pid_t) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("PersistedKeyUpdate-\(parent)")
    }

    /// A child process's work: a thousand updates, each adding 1.
    static func incrementAThousandTimes(in folder: URL) async {
        let store = makeStore(folder)
        for _ in 0..<1_000 {
            do {
                try await store.update(.count, sending: CountAction.setCount) { $0 += 1 }
            } catch {
                fatalError("\(error)")
            }
        }
    }

    /// Two processes each add 1 a thousand times, at once: the file ends at 2,000.
    @Test func twoProcessesEachIncrementingAThousandTimesEndAtTwoThousand() async throws {
        let folder = Self.sharedFolder(parent: getpid())
        try? FileManager.default.removeItem(at: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        async let first = #expect(processExitsWith: .success) {
            await PersistedKeyUpdateTests.incrementAThousandTimes(
                in: PersistedKeyUpdateTests.sharedFolder(parent: getppid()))
        }
        async let second = #expect(processExitsWith: .success) {
            await PersistedKeyUpdateTests.incrementAThousandTimes(
                in: PersistedKeyUpdateTests.sharedFolder(parent: getppid()))
        }
        let results = await (first, second)
        #expect(results.0 != nil && results.1 != nil, "both children counted")
        let store = Self.makeStore(folder)
        #expect(store[.count] == 2_000)
        #expect(store.persistenceErrors == [])
    }

    /// Two stores of one process on one folder, updating from many tasks at once, lose nothing.
    @Test func twoStoresOfOneProcessLoseNoUpdate() async throws {
        try await PersistedKeyTests.inTemporaryFolder { folder in
            let stores = [Self.makeStore(folder), Self.makeStore(folder)]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<8 {
                    group.addTask {
                        for _ in 0..<50 {
                            try await stores[task % 2].update(.count, sending: CountAction.setCount) { $0 += 1 }
                        }
                    }
                }
                try await group.waitForAll()
            }
            for store in stores { await store.flush() }
            #expect(Self.makeStore(folder)[.count] == 400)
        }
    }

    /// The value is saved before `update` returns, the store holds it through the action, and that
    /// write of the store is not saved a second time.
    @Test func anUpdateIsSavedBeforeItReturnsAndItsActionIsNotSavedAgain() async throws {
        try await PersistedKeyTests.inTemporaryFolder { folder in
            let store = Self.makeStore(folder, interval: .seconds(3_600))
            let saved = try await store.update(.count, sending: CountAction.setCount) { $0 = 41 }
            #expect(saved == 41)
            #expect(store[.count] == 41)
            #expect(Self.makeStore(folder)[.count] == 41, "saved before update returned")
            await store.flush()
            #expect(try #require(store.persister).fileWrites == 1, "the action's write of the same value is not saved")
            store.handle(action: .increment)
            await store.flush()
            #expect(try #require(store.persister).fileWrites == 2)
            #expect(Self.makeStore(folder)[.count] == 42)
        }
    }

    /// Another process's update between this store's update and the save of its action is kept.
    @Test func anotherStoresUpdateAfterThisOneIsNotSavedOver() async throws {
        try await PersistedKeyTests.inTemporaryFolder { folder in
            let store = Self.makeStore(folder, interval: .seconds(3_600))
            let other = Self.makeStore(folder, interval: .seconds(3_600))
            try await store.update(.count, sending: CountAction.setCount) { $0 += 1 }
            try await other.update(.count, sending: CountAction.setCount) { $0 += 1 }
            await store.flush()  // the action's write of 1
            #expect(Self.makeStore(folder)[.count] == 2)
        }
    }

    /// A write the store has not saved yet is saved before the update reads the file.
    @Test func aPendingWriteIsSavedBeforeTheUpdateReadsTheFile() async throws {
        try await PersistedKeyTests.inTemporaryFolder { folder in
            let store = Self.makeStore(folder, interval: .seconds(3_600))
            store.handle(action: .setCount(10))
            let updated = try await store.update(.count, sending: CountAction.setCount) { $0 += 1 }
            #expect(updated == 11)
        }
    }

    /// A file of a later schema is left byte for byte, and neither the file nor the store changes.
    @Test func anUpdateOfAFileOfALaterSchemaThrowsAndChangesNothing() async throws {
        try await PersistedKeyTests.inTemporaryFolder { folder in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let later = PersistedFileFormat.file(schema: 9, payload: Data("7".utf8))
            let file = folder.appendingPathComponent("count.json")
            try later.write(to: file)
            let store = Self.makeStore(folder)
            do {
                try await store.update(.count, sending: CountAction.setCount) { $0 += 1 }
                Issue.record("the update of a later schema's file returned")
            } catch let error as PersistenceError {
                #expect(error.cause == .newerSchema(file: 9, key: 1))
                #expect(error.key == ".count")
            }
            #expect(store[.count] == 0)
            #expect(try Data(contentsOf: file) == later)
        }
    }

    /// A corrupt file is moved aside and reported, and the update starts from the key's default.
    @Test func anUpdateOfACorruptFileStartsFromTheDefault() async throws {
        try await PersistedKeyTests.inTemporaryFolder { folder in
            let store = Self.makeStore(folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("not a CacheStore file".utf8).write(to: folder.appendingPathComponent("count.json"))
            let updated = try await store.update(.count, sending: CountAction.setCount) { $0 += 5 }
            #expect(updated == 5)
            let error = try #require(store.persistenceErrors.last)
            #expect(error.cause == .corrupt("not a CacheStore file"))
            let moved = try #require(error.movedTo)
            #expect(try Data(contentsOf: moved) == Data("not a CacheStore file".utf8))
        }
    }

    /// A file that cannot be written is a thrown error, and the store keeps its value.
    @Test func anUpdateThatCannotSaveThrowsAndTheStoreKeepsItsValue() async throws {
        try await PersistedKeyTests.inTemporaryFolder { folder in
            try Data("a file where the folder should be".utf8).write(to: folder)
            let store = Self.makeStore(folder)
            await #expect(throws: PersistenceError.self) {
                try await store.update(.count, sending: CountAction.setCount) { $0 += 1 }
            }
            #expect(store[.count] == 0)
        }
    }

    @Test func anUpdateOfAKeyNotPersistedStopsTheProgramNamingIt() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let folder = URL(fileURLWithPath: "/nonexistent-\(UUID())")
            let store = PersistedKeyUpdateTests.makeStore(folder)
            _ = try? await store.update(.label, sending: CountAction.setLabel) { $0 += "x" }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("update(.label as String): the store does not persist .label"), "\(message)")
    }

    @Test func anUpdateAsAnotherTypeStopsTheProgramNamingBoth() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let folder = URL(fileURLWithPath: "/nonexistent-\(UUID())")
            let store = PersistedKeyUpdateTests.makeStore(folder)
            let wrong = TypedKey<CountKey, String>(.count, default: "")
            _ = try? await store.update(wrong, sending: CountAction.setLabel) { $0 += "x" }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("update(.count as String): .count is persisted as Int, not String"), "\(message)")
    }
}
