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
    /// Nothing, here; a gated handler waits at its gate.
    case hold
}

let countHandler = StoreActionHandler<CountKey, CountAction, Void> { state, action, _ in
    switch action {
    case .setCount(let count): state[.count] = count
    case .setLabel(let label): state[.label] = label
    case .increment: state[.count] += 1
    case .hold: break
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

    /// Two stores of one process on one folder, updating from many tasks at once, lose nothing.
    @Test func twoStoresOfOneProcessLoseNoUpdate() async throws {
        try await PersistedKeyTests.inTemporaryFolder { folder in
            let stores = [Self.makeStore(folder), Self.makeStore(folder)]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<8 {
                    group.addTask {
                        for _ in 0..<20 {
                            try await stores[task % 2].update(.count, sending: CountAction.setCount) { $0 += 1 }
                        }
                    }
                }
                try await group.waitForAll()
            }
            for store in stores { await store.flush() }
            #expect(Self.makeStore(folder)[.count] == 160)
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

    /// Polls until `condition` holds (or two minutes pass): a main-actor store's actions are handled
    /// on the main queue, after the call that queued them returned.
    static func eventually(_ condition: () -> Bool) async {
        for _ in 0..<12_000 where !condition() { try? await Task.sleep(for: .milliseconds(10)) }
    }

    /// Waits for `semaphore` on a thread of its own: no thread of the concurrency pool is held.
    static func wait(for semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                semaphore.wait()
                done.resume()
            }.start()
        }
    }

    /// A store whose updates toggle a value (1, 0, 1) while another thread holds its turn, so that
    /// their actions wait, then is set by the app to a value one of those updates saved: the app's
    /// write is saved.
    @Test func anAppWriteAfterToggledUpdatesWhoseActionsWaitedIsSaved() async throws {
        try await PersistedKeyTests.inTemporaryFolder { folder in
            let gate = CountGate(stopAt: nil)
            let store = Store(
                initialValues: [:], actionHandler: Self.gatedHandler, dependency: gate,
                persistence: Self.persistence(folder, interval: .seconds(3_600)))
            await gate.holdTheTurn(of: store)
            for _ in 0..<3 {
                try await store.update(.count, sending: CountAction.setCount) { $0 = 1 - $0 }
            }
            gate.gate.signal()  // the holder handles the three actions
            await Self.eventually { store[.count] == 1 }
            await store.flush()  // the actions' writes: not saved again
            #expect(try #require(store.persister).fileWrites == 3)
            #expect(Self.makeStore(folder)[.count] == 1)
            store.handle(action: .setCount(0))  // the app's own write
            await store.flush()
            #expect(Self.makeStore(folder)[.count] == 0, "the app's write of 0 is saved")
        }
    }

    /// A handler that does not set the key for the update's action: a later write of the app, of the
    /// value that update saved, is saved over what another store saved since.
    @Test func anAppWriteOfAValueAnIgnoredUpdateSavedIsSaved() async throws {
        try await PersistedKeyTests.inTemporaryFolder { folder in
            let store = Self.makeStore(folder, interval: .seconds(3_600))
            let other = Self.makeStore(folder, interval: .seconds(3_600))
            try await store.update(.count, sending: { _ in CountAction.setLabel("updated") }) { $0 = 1 }
            #expect(store[.count] == 0, "the handler did not set the key")
            other.handle(action: .setCount(2))
            await other.flush()
            store.handle(action: .setCount(1))  // the last write of all
            await store.flush()
            #expect(Self.makeStore(folder)[.count] == 1, "the last save wins")
        }
    }

    /// A handler that sets another value than the update saved: the store's value is saved.
    @Test func anUpdatesActionThatSetsAnotherValueIsSaved() async throws {
        try await PersistedKeyTests.inTemporaryFolder { folder in
            let store = Self.makeStore(folder, interval: .seconds(3_600))
            try await store.update(.count, sending: { CountAction.setCount($0 * 10) }) { $0 = 4 }
            #expect(Self.makeStore(folder)[.count] == 4, "the update's save")
            await store.flush()
            #expect(Self.makeStore(folder)[.count] == 40, "the action's value, saved after it")
        }
    }

    /// Holds a store's turn on a thread of its own, and at `stopAt` stops its handler again: the
    /// store's actions wait, as they do while it is busy, with no thread of the concurrency pool or
    /// the main queue held.
    final class CountGate: @unchecked Sendable {
        let stopAt: Int?
        /// What the holder writes once the gate lets it go: an action sent before an update, and
        /// handled after the update saved.
        let countAfterHold: Int?
        let reached = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)

        init(stopAt: Int?, countAfterHold: Int? = nil) {
            self.stopAt = stopAt
            self.countAfterHold = countAfterHold
        }

        /// Returns once a thread of its own handles `.hold` in `store`, waiting at the gate.
        func holdTheTurn(of store: Store<CountKey, CountAction, CountGate>) async {
            Thread { store.handle(action: .hold) }.start()
            await PersistedKeyUpdateTests.wait(for: reached)
        }
    }

    static let gatedHandler = StoreActionHandler<CountKey, CountAction, CountGate> { state, action, gate in
        switch action {
        case .hold:
            gate.reached.signal()
            gate.gate.wait()
            if let count = gate.countAfterHold { state[.count] = count }
        case .setCount(let count):
            state[.count] = count
            if count == gate.stopAt {
                gate.reached.signal()
                gate.gate.wait()
            }
        default: break
        }
        return .none
    }

    /// An action handled after the update's save and before the update's action writes 5; a save
    /// (the timer's) runs while the update's action is handled, saving 5 over the update's 1. The
    /// store ends at 1, the last value it held: the file must too.
    @Test func aSaveBetweenAnUpdatesSaveAndItsActionDoesNotLeaveTheFileStale() async throws {
        try await PersistedKeyTests.inTemporaryFolder { folder in
            let gate = CountGate(stopAt: 1, countAfterHold: 5)
            let store = Store(
                initialValues: [:], actionHandler: Self.gatedHandler, dependency: gate,
                persistence: Self.persistence(folder, interval: .seconds(3_600)))
            await gate.holdTheTurn(of: store)
            try await store.update(.count, sending: CountAction.setCount) { $0 = 1 }  // saved; its action waits
            gate.gate.signal()  // the holder writes 5, then handles the update's action, stopping at 1
            await Self.wait(for: gate.reached)
            await store.flush()  // as the timer's save would: saves 5
            gate.gate.signal()
            await Self.eventually { store[.count] == 1 }
            await store.flush()
            #expect(store[.count] == 1)
            #expect(Self.makeStore(folder)[.count] == 1, "the store's last value, 1, is saved")
        }
    }

    /// `debug(_:)`'s closures are code of the app, which no store runs holding a lock (Threading):
    /// a persistence error found by an update is written without the folder's lock held.
    @Test func aPersistenceErrorIsWrittenToTheDebugLogWithoutTheFoldersLockHeld() async throws {
        try await PersistedKeyTests.inTemporaryFolder { folder in
            let store = Self.makeStore(folder, interval: .seconds(3_600))
            let lockPath = folder.appendingPathComponent(".cachestore.lock").path
            let heldWhileWriting = Locked<[Bool]>([])
            store.debug(label: "probe") { text in
                guard text.contains("Persistence error") else { return }
                let descriptor = open(lockPath, O_RDWR | O_CLOEXEC)
                defer { close(descriptor) }
                let held = flock(descriptor, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
                heldWhileWriting.withLock { $0.append(held) }
            }
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("not a persisted file".utf8).write(to: folder.appendingPathComponent("count.json"))
            try await store.update(.count, sending: CountAction.setCount) { $0 += 1 }
            let held = heldWhileWriting.withLock { $0 }
            #expect(held == [false], "the folder's lock was held while the app's debug closure ran: \(held)")
        }
    }

    /// A store makes 70 updates while its actions wait; another store then adds 1; a save runs while
    /// the first store's actions are being handled: the file ends at 71.
    @Test func manyUpdatesWhoseActionsWaitDoNotLoseAnotherStoresUpdate() async throws {
        try await PersistedKeyTests.inTemporaryFolder { folder in
            let gate = CountGate(stopAt: 3)
            let store = Store(
                initialValues: [:], actionHandler: Self.gatedHandler, dependency: gate,
                persistence: Self.persistence(folder, interval: .seconds(3_600)))
            let other = Self.makeStore(folder, interval: .seconds(3_600))
            await gate.holdTheTurn(of: store)
            for _ in 0..<70 {
                try await store.update(.count, sending: CountAction.setCount) { $0 += 1 }
            }
            try await other.update(.count, sending: CountAction.setCount) { $0 += 1 }  // 71
            gate.gate.signal()
            await Self.wait(for: gate.reached)  // the holder handles the action of 3
            await store.flush()  // as the timer's save would
            gate.gate.signal()
            await Self.eventually { store[.count] == 70 }
            await store.flush()
            #expect(Self.makeStore(folder)[.count] == 71, "the other store's update is kept")
        }
    }

    /// A folder whose lock file cannot be opened (a folder at its path): a save made without the
    /// lock says so in the store's errors.
    @Test func aSaveWithoutTheFoldersLockIsReported() async throws {
        try await PersistedKeyTests.inTemporaryFolder { folder in
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent(".cachestore.lock"), withIntermediateDirectories: true)
            let store = Self.makeStore(folder, interval: .seconds(3_600))
            store.handle(action: .setCount(1))
            await store.flush()
            #expect(Self.makeStore(folder)[.count] == 1)
            let error = try #require(store.persistenceErrors.last)
            #expect(error.file.lastPathComponent == ".cachestore.lock")
            #expect("\(error)".contains("could not open the folder's lock file"), "\(error)")
        }
    }

    /// A caller on the main actor reads the value its update saved in a main-actor store.
    @MainActor @Test func aMainActorStoreHoldsAnUpdatesValueWhenTheUpdateReturnsToTheMainActor() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("PersistedKeyUpdate-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = Store(
            initialValues: [:], actionHandler: countHandler, dependency: (), isolation: .mainActor,
            persistence: Self.persistence(folder))
        for expected in 1...20 {
            let saved = try await store.update(.count, sending: CountAction.setCount) { $0 += 1 }
            #expect(saved == expected)
            #expect(store[.count] == expected)
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

extension CPUHeavySuites {
    /// Two processes updating one key at once, among the CPU-heavy suites: each child is a whole test
    /// process that saves a thousand times.
    @Suite(.timeLimit(.minutes(5))) struct PersistedKeyProcessTests {
        /// The folder two child processes share: named after the test process, their parent.
        static func sharedFolder(parent: pid_t) -> URL {
            FileManager.default.temporaryDirectory.appendingPathComponent("PersistedKeyUpdate-\(parent)")
        }

        /// A child process's work: a thousand updates, each adding 1.
        static func incrementAThousandTimes(in folder: URL) async {
            let store = PersistedKeyUpdateTests.makeStore(folder)
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
                await PersistedKeyProcessTests.incrementAThousandTimes(
                    in: PersistedKeyProcessTests.sharedFolder(parent: getppid()))
            }
            async let second = #expect(processExitsWith: .success) {
                await PersistedKeyProcessTests.incrementAThousandTimes(
                    in: PersistedKeyProcessTests.sharedFolder(parent: getppid()))
            }
            let results = await (first, second)
            #expect(results.0 != nil && results.1 != nil, "both children counted")
            let store = PersistedKeyUpdateTests.makeStore(folder)
            #expect(store[.count] == 2_000)
            #expect(store.persistenceErrors == [])
        }
    }
}
