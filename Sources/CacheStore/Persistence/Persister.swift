import Dispatch
import Foundation

/// Keeps a store's persisted keys in their files: restores them when the store is made, and saves
/// each change on a queue of its own, the changes of one save interval together.
///
/// It learns of changes as a subscriber of the store's key space (told after the writing thread
/// left the store's lock), and reads the values to save when it saves: a key written a thousand
/// times in an interval is encoded and written once, with its last value.
final class Persister<Key: Hashable & SendableMetatype>: @unchecked Sendable {
    /// What a persister keeps between saves, inside its lock.
    struct State {
        /// The keys changed since the last save.
        var dirty: Set<Key> = []
        /// Whether a save is scheduled on the queue.
        var isSaveScheduled = false
        /// Every error so far, oldest first.
        var errors: [PersistenceError] = []
        /// The keys whose file is left as it is (see ``PersistenceError/keepsFile``).
        var keptFiles: Set<Key> = []
        /// How many files saves wrote or removed.
        var fileWrites = 0
    }

    let persistence: Persistence<Key>
    let folder: any PersistenceBackend
    let keys: [Key: PersistedKey<Key>]
    let state = Locked(State())
    /// Where saves run, one at a time.
    let queue = DispatchQueue(label: "CacheStore.Persister")
    /// The store's key space, read when saving; set by ``start(_:)``.
    private(set) var access: CoreAccess<Key>?
    private var subscription: Subscription?

    /// A persister of `persistence`'s keys in `backend`: its folder on the disk unless you say.
    init(_ persistence: Persistence<Key>, backend: (any PersistenceBackend)? = nil) {
        self.persistence = persistence
        folder =
            backend
            ?? PersistenceFolder(
                url: persistence.folder, durability: persistence.durability == .full ? .full : .flushed)
        keys = Dictionary(persistence.keys.map { ($0.key, $0) }) { first, _ in first }
    }

    // MARK: - Restoring

    /// The values of the keys whose files hold one, read (and migrated) now; bad files moved aside,
    /// and each problem kept as an error.
    func restoredValues() -> [Key: Any] {
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

    private func note(_ error: PersistenceError, for key: Key) {
        state.withLock { state in
            state.errors.append(error)
            if error.keepsFile { state.keptFiles.insert(key) }
        }
    }

    // MARK: - Saving

    /// Starts saving the changes of `access`'s persisted keys.
    func start(_ access: CoreAccess<Key>) {
        self.access = access
        subscription = access.core.subscribe(
            Subscriber(
                onChange: { [weak self] changed in self?.noteChanges(changed) },
                onEnd: {}))
    }

    /// Marks the persisted keys among `changed` for the next save, and schedules it.
    private func noteChanges(_ changed: Set<Key>) {
        let persistedChanges = changed.filter { keys[$0] != nil }
        guard !persistedChanges.isEmpty else { return }
        let schedules = state.withLock { state in
            state.dirty.formUnion(persistedChanges)
            defer { state.isSaveScheduled = true }
            return !state.isSaveScheduled
        }
        guard schedules else { return }
        let interval = persistence.saveInterval
        let delay = DispatchTimeInterval.nanoseconds(
            Int(interval.components.seconds * 1_000_000_000 + interval.components.attoseconds / 1_000_000_000))
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in self?.saveDirtyKeys() }
    }

    /// Saves the keys changed since the last save, with their values now. On the queue.
    private func saveDirtyKeys() {
        let (dirty, kept) = state.withLock { state in
            defer {
                state.dirty = []
                state.isSaveScheduled = false
            }
            return (state.dirty, state.keptFiles)
        }
        guard let access else { return }
        for key in dirty where !kept.contains(key) {
            guard let persisted = keys[key] else { continue }
            let cause: PersistenceError.Cause?
            if let value = access.read(key, false) {
                do {
                    let payload = try persisted.encode(value)
                    cause = folder.write(
                        persisted.file, PersistedFileFormat.file(schema: persisted.schema, payload: payload))
                } catch {
                    cause = .encodingFailed("\(error)")
                }
            } else {
                cause = folder.remove(persisted.file)
            }
            state.withLock { $0.fileWrites += 1 }
            if let cause {
                note(
                    PersistenceError(
                        key: persisted.name, file: folder.fileURL(persisted.file), cause: cause, movedTo: nil),
                    for: key)
            }
        }
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
        queue.sync { saveDirtyKeys() }
    }

    /// Stops saving, and saves what is pending before it returns: the store is being released.
    func close() {
        subscription?.cancel()
        queue.sync { saveDirtyKeys() }
    }

    /// Every error so far, oldest first.
    var errors: [PersistenceError] { state.withLock { $0.errors } }

    /// How many files saves wrote or removed so far.
    var fileWrites: Int { state.withLock { $0.fileWrites } }
}
