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
final class JournalFile {
    let path: String
    private let descriptor: Int32
    private var map: UnsafeMutableRawPointer?
    private var capacity = 0
    /// The bytes appended: where the next one goes.
    private(set) var size = 0

    /// Makes (or empties) the file at `path`.
    init(path: String) throws(JournalError) {
        self.path = path
        descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .file(path, "open", code: errno) }
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

    /// The bytes appended from `offset` on.
    func bytes(from offset: Int) -> [UInt8] {
        guard let map, offset < size else { return [] }
        return Array(UnsafeRawBufferPointer(start: map + offset, count: size - offset))
    }

    /// Unmaps the file, cuts it to the bytes appended, and closes it. Calling it again does nothing.
    func close() {
        guard descriptor >= 0, capacity >= 0 else { return }
        if let map { munmap(map, capacity) }
        map = nil
        _ = ftruncate(descriptor, off_t(size))
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
            guard result == 0 else { throw .file(path, "grow", code: result) }
        #else
            var store = fstore_t(
                fst_flags: UInt32(F_ALLOCATEALL), fst_posmode: F_PEOFPOSMODE, fst_offset: 0,
                fst_length: off_t(length), fst_bytesalloc: 0)
            _ = fcntl(descriptor, F_PREALLOCATE, &store)  // the disk's room, where the file system can
            guard ftruncate(descriptor, off_t(length)) == 0 else { throw .file(path, "grow", code: errno) }
        #endif
    }
}
