import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A file that is only ever replaced whole: a process killed at any instant of ``replace(with:)``,
/// or a power loss after it returned, leaves the file's old contents or its new ones, never a mix.
///
/// A replacement writes a temporary file in the same folder, flushes it to the disk, renames it
/// over the file, and flushes the folder, so that the rename itself is on the disk when
/// ``replace(with:)`` returns. A temporary file a killed process left behind is removed by
/// ``removeAbandonedTemporaryFiles()``; one of a live process is left alone.
///
/// ```swift
/// let file = DurableFile(url: folder.appendingPathComponent("settings.json"))
/// try file.replace(with: Data(#"{"theme":"dark"}"#.utf8))
/// let saved = try file.contents()  // the new bytes, or the old ones after a crash: never a mix
/// ```
struct DurableFile: Sendable {
    /// How far a replacement flushes before it returns.
    enum Durability: Sendable, Equatable {
        /// `fsync` of the file and of its folder: the replacement survives a crash of the process
        /// or of the system.
        case flushed
        /// As ``flushed``, and on Apple platforms `F_FULLFSYNC`, which also empties the drive's own
        /// cache, so that the replacement survives a power loss; slower. Elsewhere the same as
        /// ``flushed``.
        case full
    }

    /// The file.
    let url: URL
    let durability: Durability

    init(url: URL, durability: Durability = .flushed) {
        self.url = url
        self.durability = durability
    }

    /// What marks a temporary file of this file: `.NAME.durable-PID-RUN-RANDOM`.
    private var temporaryPrefix: String { "." + url.lastPathComponent + ".durable-" }

    /// A number this process drew at random: the temporary file of an earlier process that had this
    /// process's id (as a container's app often has at each launch) is told from its own by it.
    static let run = UInt32.random(in: 0...UInt32.max)

    /// The file's bytes, or `nil` when there is no file.
    ///
    /// - Throws: ``DurableFileError`` when the path exists and cannot be read: a folder, or a file
    ///   this process may not read.
    func contents() throws(DurableFileError) -> Data? {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw DurableFileError(path: url.path, operation: "open for reading", code: code)
        }
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw DurableFileError(path: url.path, operation: "read", code: code)
            }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    /// Replaces the file's contents with `data`, durably (see the type's discussion).
    ///
    /// - Parameter data: The new contents.
    /// - Throws: ``DurableFileError`` naming the step that failed; the file then keeps its old
    ///   contents, and no temporary file is left.
    func replace(with data: Data) throws(DurableFileError) {
        let folder = url.deletingLastPathComponent().path
        let temporary =
            (folder as NSString).appendingPathComponent(temporaryPrefix)
            + "\(getpid())-\(Self.run)-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw DurableFileError(path: temporary, operation: "create a temporary file", code: errno)
        }
        do throws(DurableFileError) {
            try writeAll(data, to: descriptor, path: temporary)
            try flush(descriptor, path: temporary)
            close(descriptor)
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, url.path) == 0 else {
            let code = errno
            unlink(temporary)
            throw DurableFileError(path: url.path, operation: "rename the temporary file over", code: code)
        }
        try flushFolder(folder)
    }

    /// Removes the temporary files that processes which no longer run left beside the file, and
    /// returns them.
    @discardableResult
    func removeAbandonedTemporaryFiles() -> [URL] {
        Self.removeAbandonedTemporaryFiles(in: url.deletingLastPathComponent(), of: [url.lastPathComponent])
    }

    /// Removes the temporary files that processes which no longer run left beside the files named
    /// `names` in `folder`, listing the folder once, and returns them.
    @discardableResult
    static func removeAbandonedTemporaryFiles(in folder: URL, of names: Set<String>) -> [URL] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var removed: [URL] = []
        for entry in entries where entry.hasPrefix(".") {
            // `.NAME.durable-PID-RUN-RANDOM`
            guard let marker = entry.range(of: ".durable-", options: .backwards),
                names.contains(String(entry[entry.index(after: entry.startIndex)..<marker.lowerBound]))
            else { continue }
            let parts = entry[marker.upperBound...].split(separator: "-")
            guard parts.count == 3, let pid = pid_t(parts[0]), let run = UInt32(parts[1]) else { continue }
            if pid == getpid() {
                guard run != Self.run else { continue }  // this process's own: it may be writing it
            } else {
                // `kill(pid, 0)` fails with ESRCH only when no process has that id.
                guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            }
            let file = folder.appendingPathComponent(entry)
            if unlink(file.path) == 0 { removed.append(file) }
        }
        return removed
    }

    private func writeAll(_ data: Data, to descriptor: Int32, path: String) throws(DurableFileError) {
        var failure: Int32 = 0
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += count
            }
        }
        if failure != 0 { throw DurableFileError(path: path, operation: "write", code: failure) }
    }

    private func flush(_ descriptor: Int32, path: String) throws(DurableFileError) {
        #if canImport(Darwin)
            if durability == .full, fcntl(descriptor, F_FULLFSYNC) == 0 { return }
        #endif
        guard fsync(descriptor) == 0 else { throw DurableFileError(path: path, operation: "flush", code: errno) }
    }

    private func flushFolder(_ folder: String) throws(DurableFileError) {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw DurableFileError(path: folder, operation: "open the folder", code: errno) }
        defer { close(descriptor) }
        try flush(descriptor, path: folder)
    }
}

/// A file operation that failed: which, on what path, and the system's reason.
struct DurableFileError: Error, Equatable, CustomStringConvertible {
    /// The path the operation was on.
    let path: String
    /// What was being done: "write", "flush", "rename the temporary file over", ….
    let operation: String
    /// The `errno` the system gave.
    let code: Int32

    var description: String {
        "could not \(operation) \(path): \(String(cString: strerror(code))) (errno \(code))"
    }
}
