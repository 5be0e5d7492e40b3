import Foundation

/// The bytes of a journal file: a first line that names the format and its version, then records,
/// each framed so that a file cut off at any byte reads back to its last whole record.
///
/// ```text
/// CacheStore journal 1\n
/// [length: UInt32 LE][checksum of kind and payload: UInt64 LE][kind: UInt8][payload] …
/// ```
///
/// The first record is the header (``JournalRecordKind/header``), the second a checkpoint of the
/// state the recording started from; then actions, with a checkpoint every so often.
enum JournalFileFormat {
    /// The first line, up to the format's version.
    static let magic = "CacheStore journal "
    /// The version of this layout; a file of a later one is an error before anything is read.
    static let version = 1
    /// The bytes before a record's kind: its length and its checksum.
    static let frameSize = 12
    /// The longest record a reader accepts: a longer length is a torn or corrupt frame.
    static let maximumRecordSize = 1 << 30

    /// The file's first line.
    static var firstLine: [UInt8] { Array("\(magic)\(version)\n".utf8) }

    /// Appends one framed record of `kind` whose payload `writePayload` appends to `bytes`.
    static func appendRecord(
        _ kind: JournalRecordKind, to bytes: inout [UInt8], _ writePayload: (inout [UInt8]) -> Void
    ) {
        let start = beginRecord(kind, in: &bytes)
        writePayload(&bytes)
        endRecord(startingAt: start, in: &bytes)
    }

    /// Appends the frame of a record of `kind`, to be filled in by ``endRecord(startingAt:in:)`` once
    /// its payload follows it.
    ///
    /// - Returns: Where the record starts.
    static func beginRecord(_ kind: JournalRecordKind, in bytes: inout [UInt8]) -> Int {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: frameSize))
        bytes.append(kind.rawValue)
        return start
    }

    /// Fills in the length and the checksum of the record that starts at `start` and ends at the
    /// end of `bytes`.
    static func endRecord(startingAt start: Int, in bytes: inout [UInt8]) {
        let length = UInt32(bytes.count - start - frameSize)
        bytes.withUnsafeMutableBytes { buffer in
            let sum = checksum(UnsafeRawBufferPointer(rebasing: buffer[(start + frameSize)...]))
            buffer.storeBytes(of: length.littleEndian, toByteOffset: start, as: UInt32.self)
            buffer.storeBytes(of: sum.littleEndian, toByteOffset: start + 4, as: UInt64.self)
        }
    }

    /// A record's checksum: FNV-1a's step over 8 bytes at a time (little-endian words, the last one
    /// padded with zeros), then the length. It tells a changed byte, not an attacker; a word at a
    /// time, its chain of multiplications is an eighth of FNV-1a's by byte.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let words = bytes.count / 8
        for index in 0..<words {
            hash ^= UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
            hash = hash &* 0x0000_0100_0000_01b3
        }
        var tail: UInt64 = 0
        for (shift, byte) in bytes[(words * 8)...].enumerated() { tail |= UInt64(byte) << (8 * shift) }
        hash ^= tail
        hash = hash &* 0x0000_0100_0000_01b3
        hash ^= UInt64(bytes.count)
        return hash &* 0x0000_0100_0000_01b3
    }

    /// FNV-1a, 64 bits: it tells a changed byte, not an attacker.
    @inlinable
    static func fnv1a64<Bytes: Sequence<UInt8>>(_ bytes: Bytes, from seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = seed
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}

/// What a journal record holds.
enum JournalRecordKind: UInt8 {
    /// The recording's settings: the key and action types, the recorded keys, the checkpoint interval.
    case header = 0x48  // H
    /// The recorded keys' values after a number of actions.
    case checkpoint = 0x43  // C
    /// An action the store handled, where it came from, what it changed, the state's hash after it.
    case action = 0x41  // A
}

/// Appends the fields of a record's payload, little-endian.
extension Array where Element == UInt8 {
    mutating func appendInteger<Integer: FixedWidthInteger>(_ value: Integer) {
        for shift in stride(from: 0, to: Integer.bitWidth, by: 8) { append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    /// A length (`UInt32`), then the bytes.
    mutating func appendField<Bytes: Collection<UInt8>>(_ field: Bytes) {
        appendInteger(UInt32(field.count))
        append(contentsOf: field)
    }

    /// A length (`UInt32`), then the bytes, copied at once.
    mutating func appendField(_ field: Data) {
        appendInteger(UInt32(field.count))
        field.withUnsafeBytes { append(contentsOf: $0) }
    }
}

/// Reads the fields of a record's payload, in the order they were appended; a field that runs past
/// the end is `nil`, never a crash.
struct JournalPayloadReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func integer<Integer: FixedWidthInteger>(_: Integer.Type = Integer.self) -> Integer? {
        let size = MemoryLayout<Integer>.size
        guard bytes.count - offset >= size else { return nil }
        defer { offset += size }
        return Integer(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Integer.self))
    }

    mutating func field() -> UnsafeRawBufferPointer? {
        guard let length = integer(UInt32.self).map(Int.init), bytes.count - offset >= length else { return nil }
        defer { offset += length }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
    }

    mutating func text() -> String? {
        field().map { String(decoding: $0, as: UTF8.self) }
    }
}
