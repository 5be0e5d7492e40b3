import CacheStore
import Foundation

/// A test store's persisted keys' files, kept in memory: a test of a persisted store never touches
/// the disk. A bad file it is given is moved aside in memory, as the disk's would be.
final class PersistedMemory: PersistenceBackend, @unchecked Sendable {
    /// The files, by name.
    private let files: Locked<[String: Data]>

    init(files: [String: Data] = [:]) {
        self.files = Locked(files)
    }

    func fileURL(_ name: String) -> URL { URL(fileURLWithPath: "/test-store-memory").appendingPathComponent(name) }

    func read(_ name: String) -> Result<Data?, PersistenceError.Cause> {
        .success(files.withLock { $0[name] })
    }

    func write(_ name: String, _ data: Data) -> PersistenceError.Cause? {
        files.withLock { $0[name] = data }
        return nil
    }

    func remove(_ name: String) -> PersistenceError.Cause? {
        files.withLock { $0[name] = nil }
        return nil
    }

    func moveAside(_ name: String, at date: Date) -> URL? {
        files.withLock { files in
            guard let data = files.removeValue(forKey: name) else { return nil }
            var target = "\(name).corrupt-\(Int(date.timeIntervalSince1970 * 1000))"
            while files[target] != nil { target += "-2" }
            files[target] = data
            return fileURL(target)
        }
    }

    /// Nothing to remove: a replacement in memory is never half done.
    func removeAbandonedTemporaryFiles(of names: [String]) {}

    /// Runs `body`: one test store's saves already run one at a time, and no other process shares
    /// its memory.
    func withFolderLock<T>(creatingFolder: Bool, _ body: (PersistenceError.Cause?) -> T) -> T { body(nil) }

    /// Every file's name, sorted.
    var names: [String] { files.withLock { $0.keys.sorted() } }
}
