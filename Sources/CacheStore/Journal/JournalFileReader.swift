import Foundation

/// A journal file open for reading with `pread`, never mapped: a recorder cuts its file short when
/// it stops, another may replace it, anyone may truncate it, and a mapped page past a file's end
/// raises `SIGBUS` when touched. Read, a file that changed is at worst a record that fails its
/// checksum: a typed error.
final class JournalFileReader: Sendable {
    let path: String
    private let descriptor: Int32

    /// Opens the file at `path`.
    init(path: String) throws(JournalError) {
        self.path = path
        // Without waiting: a FIFO's open would wait for a writer.
        descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw .file(path, "read", code: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw .file(path, "read", code: code)
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw .file(path: path, operation: "read", message: "it is not a regular file")
        }
        size = Int(status.st_size)
    }

    /// The file's size when it was opened: no read asks for more than it holds.
    private let size: Int

    deinit {
        close(descriptor)
    }

    /// Up to `count` bytes from `offset`: fewer where the file ends.
    func read(at offset: Int, count: Int) -> [UInt8] {
        // A damaged length may claim a gigabyte: no more is allocated than the file held when opened,
        // or than a recorder appended since, read in steps.
        let count = max(0, min(count, max(size - offset, 65_536)))
        var result = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let read = result.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset + done))
            }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { break }
            done += read
        }
        if done < count { result.removeSubrange(done...) }
        return result
    }

    /// Whether every byte from `offset` to the file's end is zero: the space a recorder reserves past
    /// its last record.
    func isZero(from offset: Int) -> Bool {
        let zeros = [UInt8](repeating: 0, count: 65_536)
        var position = offset
        while true {
            let chunk = read(at: position, count: zeros.count)
            guard !chunk.isEmpty else { return true }
            guard memcmp(chunk, zeros, chunk.count) == 0 else { return false }
            position += chunk.count
        }
    }
}

/// Reads a journal's records in order through a window of the file read ahead, so that a record
/// costs no system call of its own.
struct JournalCursor {
    /// What is at an offset of the file.
    enum Found {
        /// A whole record whose checksum holds: its kind's byte, its payload, and where it ends.
        case record(kind: UInt8, payload: [UInt8], end: Int)
        /// No record: the file ends (with only zeros, or with a record cut short).
        case end(isCutShort: Bool)
        /// A record that cannot be one: its length, or a checksum that fails with more after it.
        case damaged(String)
    }

    let file: JournalFileReader
    private var window: [UInt8] = []
    private var windowStart = 0

    init(_ file: JournalFileReader) {
        self.file = file
    }

    /// The record at `offset`.
    mutating func record(at offset: Int) -> Found {
        var isCutShort: Bool { !file.isZero(from: offset) }
        let frame = bytes(at: offset, count: JournalFileFormat.frameSize)
        guard frame.count == JournalFileFormat.frameSize else { return .end(isCutShort: isCutShort) }
        let (length, checksum) = frame.withUnsafeBytes {
            (
                Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))),
                UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 4, as: UInt64.self))
            )
        }
        guard length >= 1 else { return .end(isCutShort: isCutShort) }
        guard length <= JournalFileFormat.maximumRecordSize else { return .damaged("its length is \(length)") }
        let covered = bytes(at: offset + JournalFileFormat.frameSize, count: length)
        guard covered.count == length else { return .end(isCutShort: true) }
        let end = offset + JournalFileFormat.frameSize + length
        guard covered.withUnsafeBytes({ JournalFileFormat.checksum($0) }) == checksum else {
            // A frame is written after its payload: one whose checksum fails with only zeros after
            // it is a write cut short.
            if file.isZero(from: end) { return .end(isCutShort: true) }
            return .damaged("its checksum does not match its contents")
        }
        return .record(kind: covered[covered.startIndex], payload: Array(covered.dropFirst()), end: end)
    }

    /// Up to `count` bytes from `offset`, from the window, read again from `offset` when it does not
    /// hold them.
    private mutating func bytes(at offset: Int, count: Int) -> ArraySlice<UInt8> {
        if offset < windowStart || offset + count > windowStart + window.count {
            window = file.read(at: offset, count: max(count, 65_536))
            windowStart = offset
        }
        let start = offset - windowStart
        return window[min(start, window.count)..<min(start + count, window.count)]
    }
}
