import Foundation

/// Where a store's persisted keys' files are: a folder on the disk, or a test store's memory.
/// Each reads a key's file, replaces it whole, removes it, and moves a bad one aside under a name no
/// file has.
package protocol PersistenceBackend: Sendable {
    /// The file's place, for messages.
    func fileURL(_ name: String) -> URL
    /// The file's bytes, `nil` when there is none, or why it cannot be read.
    func read(_ name: String) -> Result<Data?, PersistenceError.Cause>
    /// Replaces the file with `data`.
    func write(_ name: String, _ data: Data) -> PersistenceError.Cause?
    /// Removes the file, for a key that no longer has a value.
    func remove(_ name: String) -> PersistenceError.Cause?
    /// Moves the file aside as `NAME.corrupt-TIMESTAMP`; returns where, or `nil` when it could not.
    func moveAside(_ name: String, at date: Date) -> URL?
    /// Removes what a killed process left of its replacements of the files `names`.
    func removeAbandonedTemporaryFiles(of names: [String])
    /// Runs `body` holding the folder's lock, which every store of every process on the folder
    /// takes to read, save or update its files; `body` gets why the lock could not be taken, if it
    /// could not (a folder that may not be written, or that does not exist and is not to be made).
    func withFolderLock<T>(creatingFolder: Bool, _ body: (PersistenceError.Cause?) -> T) -> T
}

/// The folder of a store's persisted keys on the disk, written through ``DurableFile``.
struct PersistenceFolder: PersistenceBackend {
    let url: URL
    let durability: DurableFile.Durability

    func fileURL(_ name: String) -> URL { url.appendingPathComponent(name) }

    func durableFile(_ name: String) -> DurableFile {
        DurableFile(url: fileURL(name), durability: durability)
    }

    /// The file's bytes, `nil` when there is none, or why it cannot be read.
    func read(_ name: String) -> Result<Data?, PersistenceError.Cause> {
        let file = durableFile(name)
        var status = stat()
        if stat(file.url.path, &status) == 0, status.st_mode & S_IFMT != S_IFREG { return .failure(.notAFile) }
        do {
            return .success(try file.contents())
        } catch {
            return .failure(.system(error.reason))
        }
    }

    /// Replaces the file with `data`, making the folder first if needed.
    func write(_ name: String, _ data: Data) -> PersistenceError.Cause? {
        if let cause = makeFolder() { return cause }
        do {
            try durableFile(name).replace(with: data)
            return nil
        } catch {
            return .system(error.description)
        }
    }

    /// Makes the folder, and the folders it is in, unless it exists.
    private func makeFolder() -> PersistenceError.Cause? {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return nil
        } catch {
            return .system("could not make the folder \(url.path): \(error.localizedDescription)")
        }
    }

    func removeAbandonedTemporaryFiles(of names: [String]) {
        DurableFile.removeAbandonedTemporaryFiles(in: url, of: Set(names))
    }

    /// The file whose advisory lock (`flock`) is the folder's: made with the folder, never removed.
    static let lockFileName = ".cachestore.lock"

    /// Runs `body` holding an exclusive `flock` of the folder's lock file, which the stores of every
    /// process on the folder take; the lock is let go when `body` returns, or when the process ends.
    func withFolderLock<T>(creatingFolder: Bool, _ body: (PersistenceError.Cause?) -> T) -> T {
        if creatingFolder, let cause = makeFolder() { return body(cause) }
        let path = fileURL(Self.lockFileName).path
        var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        // A folder this process may only read: its lock file, if there is one, locks as well read-only.
        if descriptor < 0, errno == EACCES || errno == EROFS { descriptor = open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            return body(.system("could not open the folder's lock file \(path): \(String(cString: strerror(errno)))"))
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                return body(.system("could not lock \(path): \(String(cString: strerror(errno)))"))
            }
        }
        return body(nil)
    }

    /// Removes the file, for a key that no longer has a value.
    func remove(_ name: String) -> PersistenceError.Cause? {
        guard unlink(fileURL(name).path) == 0 || errno == ENOENT else {
            return .system(String(cString: strerror(errno)))
        }
        return nil
    }

    /// Moves the file aside as `NAME.corrupt-TIMESTAMP` (with `-2`, `-3`, … when that name is
    /// taken); returns where, or `nil` when it could not be moved.
    func moveAside(_ name: String, at date: Date) -> URL? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withYear, .withMonth, .withDay, .withTime, .withFractionalSeconds, .withTimeZone]
        let stamp = formatter.string(from: date).replacingOccurrences(of: ":", with: "")
            .replacingOccurrences(of: "-", with: "")
        for attempt in 1...1_000 {
            let target = fileURL("\(name).corrupt-\(stamp)" + (attempt == 1 ? "" : "-\(attempt)"))
            // moveItem fails when the target exists: an earlier copy is never replaced.
            do {
                try FileManager.default.moveItem(at: fileURL(name), to: target)
                return target
            } catch {
                guard FileManager.default.fileExists(atPath: target.path) else { return nil }
            }
        }
        return nil
    }
}

extension DurableFileError {
    /// The failed step and the system's reason, without the path (the error names the file).
    var reason: String { "could not \(operation): \(String(cString: strerror(code)))" }
}
