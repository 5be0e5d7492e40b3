import Foundation

/// A journal's file, open for appending through a shared memory map: an append is a copy, no
/// system call, and what was copied is the kernel's the moment it is, so it survives the process
/// being killed.
///
/// The file is grown in steps, its space reserved first (`posix_fallocate`), so that a full disk is
/// an error here rather than a `SIGBUS` on a later copy. Past the last record it holds zeros until
/// ``close()`` truncates it, which a reader takes for the end. A record's frame (its length and
/// checksum) is copied after its payload: a record cut off by a kill has no length yet, or a length
/// whose checksum fails, and zeros after it.
///
/// The file is made beside its path and renamed onto it once it holds what a reader needs
/// (``install()``), so a reader of the file it replaces keeps reading that one; and it is locked
/// (`flock`) while it is open, so a second recorder of the same path is refused.
final class JournalFile {
    /// Where the file is installed.
    let path: String
    /// Where it is made, until it is installed.
    let temporaryPath: String
    private let descriptor: Int32
    private var map: UnsafeMutableRawPointer?
    private var capacity = 0
    /// The bytes appended: where the next one goes.
    private(set) var size = 0
    /// Whether the file was renamed onto its path; one that never was is removed when it closes.
    private var isInstalled = false

    /// Makes a file to be installed at `path`, locked.
    ///
    /// - Parameter replacingOwn: The file at `path` is this recorder's own (a window's new start),
    ///   not possibly another recorder's.
    /// - Throws: ``JournalError/file(path:operation:message:)`` when another recorder holds the file
    ///   at `path`, or the file cannot be made.
    init(path: String, replacingOwn: Bool = false) throws(JournalError) {
        self.path = path
        temporaryPath = path + ".recording-" + UUID().uuidString
        let claimed = replacingOwn ? -1 : try Self.claim(path)
        descriptor = open(temporaryPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0, flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            if descriptor >= 0 {
                Foundation.close(descriptor)
                unlink(temporaryPath)
            }
            if claimed >= 0 { Foundation.close(claimed) }
            throw .file(path, "open", code: code)
        }
        claim = claimed
    }

    /// Renames the file onto its path, replacing what was there, and lets go of the claim on it.
    func install() throws(JournalError) {
        defer { releaseClaim() }
        guard rename(temporaryPath, path) == 0 else { throw .file(path, "replace", code: errno) }
        isInstalled = true
    }

    /// The lock held on the file at the path until this one replaces it: another recorder starting
    /// at the same moment finds it, or this one's.
    private var claim: Int32 = -1

    private func releaseClaim() {
        if claim >= 0 { Foundation.close(claim) }
        claim = -1
    }

    /// Locks the file at `path` (made empty if there is none) for as long as the descriptor returned
    /// stays open; a file another recorder holds, or a file that is not a regular one, is refused.
    private static func claim(_ path: String) throws(JournalError) -> Int32 {
        while true {
            // Without waiting: a FIFO's open would wait for a reader.
            let descriptor = open(path, O_RDONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw .file(path, "open", code: errno) }
            var held = stat()
            guard fstat(descriptor, &held) == 0, (held.st_mode & S_IFMT) == S_IFREG else {
                Foundation.close(descriptor)
                throw .file(path: path, operation: "record", message: "it is not a regular file")
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                Foundation.close(descriptor)
                throw .file(path: path, operation: "record", message: "another recorder is recording it")
            }
            // The file locked may have been replaced at the path meanwhile (by a recorder that
            // installed its own and let go of this one): then claim the one there now.
            var current = stat()
            if stat(path, &current) == 0, current.st_ino == held.st_ino, current.st_dev == held.st_dev {
                return descriptor
            }
            Foundation.close(descriptor)
        }
    }

    deinit {
        close()
    }

    /// Appends `bytes`; with `isRecord`, one framed record, its frame copied last.
    func append(_ bytes: [UInt8], isRecord: Bool) throws(JournalError) {
        guard descriptor >= 0 else { throw .file(path: path, operation: "write", message: "it is closed") }
        if size + bytes.count > capacity { try grow(toHold: size + bytes.count) }
        let destination = map! + size
        bytes.withUnsafeBytes { source in
            let frame = isRecord ? JournalFileFormat.frameSize : 0
            (destination + frame).copyMemory(from: source.baseAddress! + frame, byteCount: source.count - frame)
            destination.copyMemory(from: source.baseAddress!, byteCount: frame)
        }
        size += bytes.count
    }

    /// Whether the file at its path is still this one: not removed, nor replaced (by another
    /// program's save, say). Only for an installed file.
    var isAtItsPath: Bool {
        var open = stat()
        var atPath = stat()
        guard fstat(descriptor, &open) == 0, stat(path, &atPath) == 0 else { return false }
        return open.st_ino == atPath.st_ino && open.st_dev == atPath.st_dev
    }

    /// The bytes appended from `offset` on.
    func bytes(from offset: Int) -> [UInt8] {
        guard let map, offset < size else { return [] }
        return Array(UnsafeRawBufferPointer(start: map + offset, count: size - offset))
    }

    /// Unmaps the file, cuts it to the bytes appended (readers read it with `pread`, which a cut
    /// does not trap), and closes it, which lets go of its lock. Calling it again does nothing.
    func close() {
        guard descriptor >= 0, capacity >= 0 else { return }
        if let map { munmap(map, capacity) }
        map = nil
        _ = ftruncate(descriptor, off_t(size))
        if !isInstalled { unlink(temporaryPath) }
        releaseClaim()
        Foundation.close(descriptor)
        capacity = -1
    }

    /// Reserves and maps room for `needed` bytes, and a half again as much (at least 1 MiB,
    /// at most 64 MiB more).
    private func grow(toHold needed: Int) throws(JournalError) {
        let step = min(max(capacity / 2, 1 << 20), 64 << 20)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let newCapacity = (max(needed, capacity + step) + page - 1) / page * page
        if let map { munmap(map, capacity) }
        map = nil
        capacity = 0
        try reserve(newCapacity)
        guard let mapped = mmap(nil, newCapacity, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
            mapped != MAP_FAILED
        else { throw .file(path, "map", code: errno) }
        map = mapped
        capacity = newCapacity
    }

    /// Gives the file `length` bytes whose disk space is allocated.
    private func reserve(_ length: Int) throws(JournalError) {
        #if os(Linux)
            let result = posix_fallocate(descriptor, 0, off_t(length))
            guard result == 0 else { throw .file(path, "reserve room in", code: result) }
        #else
            var store = fstore_t(
                fst_flags: UInt32(F_ALLOCATEALL), fst_posmode: F_PEOFPOSMODE, fst_offset: 0,
                fst_length: off_t(length), fst_bytesalloc: 0)
            _ = fcntl(descriptor, F_PREALLOCATE, &store)  // the disk's room, where the file system can
            guard ftruncate(descriptor, off_t(length)) == 0 else { throw .file(path, "reserve room in", code: errno) }
        #endif
    }
}
