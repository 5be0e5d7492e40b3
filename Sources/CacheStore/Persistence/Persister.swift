import Dispatch
import Foundation

/// Marks the queue of a persister with its identity: a store released on it saves at once.
private let persisterQueueKey = DispatchSpecificKey<ObjectIdentifier>()

/// Keeps a store's persisted keys in their files: restores them when the store is made, and saves
/// each change on a queue of its own, the changes of one save interval together.
///
/// A write of a persisted key marks it in the key space (``PersistedWrites``) and schedules a save
/// when none is; the save takes the marked keys with their values then: a key written a thousand
/// times in an interval is encoded and written once, with its last value.
@usableFromInline
final class Persister<Key: Hashable & SendableMetatype>: @unchecked Sendable {
    /// What a persister keeps between saves, inside its lock.
    struct State {
        /// Every error so far, oldest first.
        var errors: [PersistenceError] = []
        /// The keys whose file is left as it is (see ``PersistenceError/keepsFile``).
        var keptFiles: Set<Key> = []
        /// How many files saves and updates wrote or removed.
        var fileWrites = 0
        /// Where each new error is also written: the store's debug log, once it has one.
        var errorOutput: (@Sendable (PersistenceError) -> Void)?
        /// The errors noted under the folder's lock, for ``errorOutput`` once the lock is let go.
        var unwritten: [PersistenceError] = []
    }

    let persistence: Persistence<Key>
    let folder: any PersistenceBackend
    let keys: [Key: PersistedKey<Key>]
    let state = Locked(State())
    /// Where saves run, one at a time.
    let queue = DispatchQueue(label: "CacheStore.Persister")
    /// The store's key space, whose marked keys a save takes; set by ``start(_:)``.
    private(set) var core: RootCore<Key>?
    /// The observers of the notifications on which an app saves (see ``saveNotifications``).
    private var observers: [any NSObjectProtocol] = []

    /// The notifications on which an app's pending saves are made at once, before they return: the
    /// app is about to end, or to be suspended (where it may be ended without notice). Named, not
    /// imported, so that no UI framework is linked.
    static var saveNotifications: [Notification.Name] {
        [
            Notification.Name("NSApplicationWillTerminateNotification"),
            Notification.Name("UIApplicationWillTerminateNotification"),
            Notification.Name("UIApplicationDidEnterBackgroundNotification"),
        ]
    }

    /// A persister of `persistence`'s keys in its folder on the disk.
    @usableFromInline
    convenience init(_ persistence: Persistence<Key>) {
        self.init(
            persistence,
            backend: PersistenceFolder(
                url: persistence.folder, durability: persistence.durability == .full ? .full : .flushed))
    }

    /// A persister of `persistence`'s keys in `backend`.
    init(_ persistence: Persistence<Key>, backend: any PersistenceBackend) {
        self.persistence = persistence
        folder = backend
        keys = Dictionary(persistence.keys.map { ($0.key, $0) }) { first, _ in first }
        queue.setSpecific(key: persisterQueueKey, value: ObjectIdentifier(self))
    }

    /// At most this many errors are kept: the latest.
    static var errorLimit: Int { 100 }

    /// Runs `work` on the queue and waits for it; at once when this is the queue (a store released
    /// while its save runs).
    private func onQueue(_ work: () -> Void) {
        if DispatchQueue.getSpecific(key: persisterQueueKey) == ObjectIdentifier(self) { return work() }
        queue.sync(execute: work)
    }

    // MARK: - Restoring

    /// The values of the keys whose files hold one, read (and migrated) now; bad files moved aside,
    /// and each problem kept as an error.
    @usableFromInline
    func restoredValues() -> [Key: Any] {
        // Under the folder's lock, a bad file is moved aside only while no other store can have
        // replaced it since it was read. A folder that does not exist yet holds nothing to read.
        folder.withFolderLock(creatingFolder: false) { _ in
            var values: [Key: Any] = [:]
            folder.removeAbandonedTemporaryFiles(of: persistence.keys.map(\.file))
            for persisted in persistence.keys {
                switch restore(persisted) {
                case .success(let value?): values[persisted.key] = value
                case .success(nil): break
                case .failure(let error): note(error, for: persisted.key)
                }
            }
            return values
        }
    }

    private func restore(_ persisted: PersistedKey<Key>) -> Result<Any?, PersistenceError> {
        let cause: PersistenceError.Cause
        switch folder.read(persisted.file) {
        case .success(nil):
            return .success(nil)
        case .success(let file?):
            switch PersistedFileFormat.read(file) {
            case .success(let contents):
                switch value(of: contents, for: persisted) {
                case .success(let value): return .success(value)
                case .failure(let failure): cause = failure
                }
            case .failure(let failure): cause = failure
            }
        case .failure(let failure):
            cause = failure
        }
        let error = PersistenceError(
            key: persisted.name, file: folder.fileURL(persisted.file), cause: cause, movedTo: nil)
        guard !error.keepsFile else { return .failure(error) }
        return .failure(
            PersistenceError(
                key: persisted.name, file: error.file, cause: cause,
                movedTo: folder.moveAside(persisted.file, at: Date())))
    }

    /// The value a file's contents hold, brought to the key's schema by its migrations.
    private func value(
        of contents: (schema: Int, payload: Data), for persisted: PersistedKey<Key>
    ) -> Result<Any, PersistenceError.Cause> {
        var (schema, payload) = contents
        if schema > persisted.schema { return .failure(.newerSchema(file: schema, key: persisted.schema)) }
        while schema < persisted.schema {
            guard let step = persisted.migrations[schema] else { return .failure(.missingMigration(from: schema)) }
            do {
                payload = try step.transform(payload)
            } catch {
                return .failure(.migrationFailed(from: schema, "\(error)"))
            }
            schema += 1
        }
        do {
            return .success(try persisted.decode(payload))
        } catch {
            return .failure(.wrongType("\(error)"))
        }
    }

    /// Keeps `error`; the error output gets it from ``writeNotedErrors()``, once the folder's lock is
    /// let go: the app's code runs holding no lock.
    private func note(_ error: PersistenceError, for key: Key) {
        state.withLock { state in
            state.errors.append(error)
            if state.errors.count > Self.errorLimit { state.errors.removeFirst() }
            if error.keepsFile { state.keptFiles.insert(key) }
            if state.errorOutput != nil { state.unwritten.append(error) }
        }
    }

    /// Writes the errors noted since the last call to the error output. On the queue, unlocked.
    private func writeNotedErrors() {
        let (output, errors) = state.withLock { state in
            defer { state.unwritten = [] }
            return (state.errorOutput, state.unwritten)
        }
        guard let output else { return }
        for error in errors { output(error) }
    }

    /// Writes each error from now on to `output` too, and returns the errors so far: each error
    /// is in one or the other, once.
    func writeErrors(to output: @escaping @Sendable (PersistenceError) -> Void) -> [PersistenceError] {
        state.withLock { state in
            state.errorOutput = output
            state.unwritten = []  // among the errors returned
            return state.errors
        }
    }

    // MARK: - Saving

    /// Starts saving the writes of `core`'s persisted keys.
    @usableFromInline
    func start(_ core: RootCore<Key>) {
        self.core = core
        let delay = Self.delay(of: persistence.saveInterval)
        let writes = PersistedWrites(keys: keys.keys) { [weak self, queue] in
            // An interval too long to wait for: saved on flush() and at release only.
            guard let delay else { return }
            queue.asyncAfter(deadline: .now() + delay) { [weak self] in self?.saveDirtyKeys() }
        }
        core.lock.withLock { core.persistedWrites = writes }
        observers = Self.saveNotifications.map { name in
            persistence.notificationCenter.addObserver(forName: name, object: nil, queue: nil) { [weak self] _ in
                self?.flushNow()
            }
        }
    }

    deinit {
        for observer in observers { persistence.notificationCenter.removeObserver(observer) }
    }

    /// `interval` for `asyncAfter`, at least zero; `nil` when it is too long to count in nanoseconds.
    static func delay(of interval: Duration) -> DispatchTimeInterval? {
        let (seconds, attoseconds) = interval.components
        guard seconds >= 0, attoseconds >= 0 else { return .nanoseconds(0) }
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow, nanoseconds < Int.max - 1_000_000_000 else { return nil }
        return .nanoseconds(Int(nanoseconds + attoseconds / 1_000_000_000))
    }

    /// Saves the keys changed since the last save, with their values now, under the folder's lock.
    /// On the queue.
    private func saveDirtyKeys() {
        guard let core else { return }
        let written = core.takePersistedWrites()
        guard !written.isEmpty else { return }
        // Without the lock the writes still run: the first that succeeds reports the lock's failure.
        folder.withFolderLock(creatingFolder: true) { lockFailure in save(written, of: core, lockFailure: lockFailure) }
        writeNotedErrors()
    }

    private func save(
        _ written: [(key: Key, value: Any?)], of core: RootCore<Key>, lockFailure: PersistenceError.Cause?
    ) {
        var lockFailure = lockFailure
        let kept = state.withLock { $0.keptFiles }
        for (key, value) in written where !kept.contains(key) {
            guard let persisted = keys[key] else { continue }
            let cause: PersistenceError.Cause?
            if let value {
                do {
                    let file = PersistedFileFormat.file(schema: persisted.schema, payload: try persisted.encode(value))
                    cause = folder.write(persisted.file, file)
                } catch {
                    cause = .encodingFailed("\(error)")
                }
            } else {
                cause = folder.remove(persisted.file)
            }
            state.withLock { $0.fileWrites += 1 }
            if cause == nil, let unlocked = lockFailure {
                lockFailure = nil
                note(
                    PersistenceError(
                        key: persisted.name, file: folder.fileURL(PersistenceFolder.lockFileName), cause: unlocked,
                        movedTo: nil),
                    for: key)
            }
            // A save the system refused is tried again by the next save: a flush, the release, or
            // the timer of the next write.
            if case .system = cause { core.markPersistedWrite(of: key) }
            if let cause {
                note(
                    PersistenceError(
                        key: persisted.name, file: folder.fileURL(persisted.file), cause: cause, movedTo: nil),
                    for: key)
            }
        }
    }

    // MARK: - Updating

    /// Changes the value `key`'s file holds, as every process left it, under the folder's lock: the
    /// store's pending saves are made, the file is read, `transform` changes its value (the key's
    /// default where there is no file, or a bad one, moved aside), and the result is saved before the
    /// lock is let go; then `send` gets it and the file's bytes, on the queue, so that the store sees
    /// the updates' values in the order they were saved. Returns the saved value.
    func update<Value: Sendable>(
        _ key: TypedKey<Key, Value>, _ transform: @escaping @Sendable (inout Value) -> Void,
        send: @escaping @Sendable (Value, Data, Int) -> Void
    ) async -> Result<Value, PersistenceError> {
        // The key is one of `keys`, which the queue's work reads already.
        nonisolated(unsafe) let key = key
        return await withCheckedContinuation { (done: CheckedContinuation<Result<Value, PersistenceError>, Never>) in
            queue.async { [self] in
                saveDirtyKeys()
                let result = folder.withFolderLock(creatingFolder: true) { cause in
                    lockedUpdate(key, transform, lockFailure: cause)
                }
                writeNotedErrors()
                // The saves that took the key after this point ran after its file was written.
                if case .success(let (value, file)) = result {
                    send(value, file, core?.persistedTakes(of: key.key) ?? 0)
                }
                done.resume(returning: result.map(\.value))
            }
        }
    }

    private func lockedUpdate<Value>(
        _ key: TypedKey<Key, Value>, _ transform: (inout Value) -> Void, lockFailure: PersistenceError.Cause?
    ) -> Result<(value: Value, file: Data), PersistenceError> {
        let persisted = keys[key.key]!
        func failure(_ cause: PersistenceError.Cause) -> Result<(value: Value, file: Data), PersistenceError> {
            let error = PersistenceError(
                key: persisted.name, file: folder.fileURL(persisted.file), cause: cause, movedTo: nil)
            note(error, for: key.key)
            return .failure(error)
        }
        if let lockFailure { return failure(lockFailure) }
        var value = key.defaultValue
        switch restore(persisted) {
        case .success(let saved?): value = saved as! Value  // decoded as the key's own type
        case .success(nil): break
        case .failure(let error):
            note(error, for: key.key)
            if error.keepsFile { return .failure(error) }
        }
        transform(&value)
        let file: Data
        do {
            file = PersistedFileFormat.file(schema: persisted.schema, payload: try persisted.encode(value))
        } catch {
            return failure(.encodingFailed("\(error)"))
        }
        if let cause = folder.write(persisted.file, file) { return failure(cause) }
        state.withLock { $0.fileWrites += 1 }
        return .success((value, file))
    }

    /// Runs `handle`, the handling of an update's action, in the store's turn: its write of the key
    /// is not saved again when it holds the value the update saved (`savedFile`), which may be
    /// older than what another process saved since; any other write of it is saved as usual.
    func handleUpdateAction(of key: Key, savedFile: Data, takes: Int, _ handle: () -> Void) {
        guard let core, let persisted = keys[key] else { return handle() }
        let (isWritten, value, takesNow) = core.withWritesUnmarked(of: key, handle)
        guard isWritten else { return }
        // A save took the key since the update wrote its file: it wrote an earlier write's value.
        guard takesNow == takes else { return core.notePersistedWriteNow(of: key) }
        let file = value.flatMap { value in
            (try? persisted.encode(value)).map { PersistedFileFormat.file(schema: persisted.schema, payload: $0) }
        }
        if file != savedFile { core.notePersistedWriteNow(of: key) }
    }

    /// Saves what is pending now, and returns once it is saved.
    func flush() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                saveDirtyKeys()
                done.resume()
            }
        }
    }

    /// Saves what is pending now, before it returns: for a test store, whose checks are synchronous.
    func flushNow() {
        onQueue { saveDirtyKeys() }
    }

    /// Stops saving, and saves what is pending before it returns: the store is being released.
    func close() {
        onQueue { saveDirtyKeys() }
    }

    /// Every error so far, oldest first.
    var errors: [PersistenceError] { state.withLock { $0.errors } }

    /// How many files saves wrote or removed so far.
    var fileWrites: Int { state.withLock { $0.fileWrites } }
}
