import Foundation

@testable import CacheStore

enum NoteKey: Hashable, Sendable { case text, count, tags, secret }

extension TypedKey<NoteKey, String> {
    static var text: Self { .init(.text, default: "") }
    static var secret: Self { .init(.secret, default: "") }
}

extension TypedKey<NoteKey, Int> {
    static var count: Self { .init(.count, default: 0) }
}

extension TypedKey<NoteKey, [String]> {
    static var tags: Self { .init(.tags, default: []) }
}

enum NoteAction: Codable, Equatable, Sendable {
    case type(String)
    case increment
    case tag(String)
    case clear
    case setSecret(String)
    /// Returns `.increment` as an immediate action.
    case echo
    /// Starts an effect with the id "fetch" that delivers `.tag("fetched")`.
    case fetch
}

let noteHandler = StoreActionHandler<NoteKey, NoteAction, Void> { state, action, _ in
    switch action {
    case .type(let text): state[.text] = text
    case .increment: state[.count] += 1
    case .tag(let tag): state[.tags].append(tag)
    case .clear: state.remove(NoteKey.text)
    case .setSecret(let secret): state[.secret] = secret
    case .echo: return ActionEffect(.increment)
    case .fetch: return ActionEffect(id: "fetch") { .tag("fetched") }
    }
    return .none
}

/// A journal of the notes' keys but the secret, in a file of its own.
func noteJournal(
    _ file: URL, checkpointInterval: Int = 1000, window: JournalWindow = .unbounded
) -> Journal<NoteKey, NoteAction> {
    Journal(file: file, checkpointInterval: checkpointInterval, window: window)
        .recording(.text)
        .recording(.count)
        .recording(.tags)
}

/// A file name of its own under the system's temporary folder, removed (with what a window left
/// beside it) when `body` returns.
func inTemporaryJournal<Result>(_ body: (URL) async throws -> Result) async rethrows -> Result {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)")
    defer {
        try? FileManager.default.removeItem(at: file)
        let folder = file.deletingLastPathComponent()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        where name.hasPrefix(file.lastPathComponent + ".") {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }
    return try await body(file)
}

/// The records of a journal file, unframed: to damage or rewrite one and frame them again.
struct JournalFileRecords {
    var firstLine: [UInt8]
    var records: [(kind: JournalRecordKind, payload: [UInt8])]

    init(_ bytes: [UInt8]) {
        let lineEnd = bytes.firstIndex(of: UInt8(ascii: "\n"))!
        firstLine = Array(bytes[...lineEnd])
        records = []
        var offset = lineEnd + 1
        while offset < bytes.count {
            let length = bytes[offset..<(offset + 4)].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            let start = offset + JournalFileFormat.frameSize
            records.append((JournalRecordKind(rawValue: bytes[start])!, Array(bytes[(start + 1)..<(start + length)])))
            offset = start + length
        }
    }

    /// The file's bytes: the first line, then each record framed.
    var bytes: [UInt8] {
        var bytes = firstLine
        for record in records {
            JournalFileFormat.appendRecord(record.kind, to: &bytes) { $0.append(contentsOf: record.payload) }
        }
        return bytes
    }

    /// Where each record ends in the file.
    var recordEnds: [Int] {
        var end = firstLine.count
        return records.map { record in
            end += JournalFileFormat.frameSize + 1 + record.payload.count
            return end
        }
    }
}

/// A value whose `encode(to:)` runs `ReenteringValue.hook` first: a value that calls back into the store or
/// the recorder while it is recorded.
struct ReenteringValue: Codable, Sendable {
    nonisolated(unsafe) static var hook: (() -> Void)?
    var number: Int

    init(_ number: Int) {
        self.number = number
    }

    init(from decoder: any Decoder) throws {
        number = try Int(from: decoder)
    }

    func encode(to encoder: any Encoder) throws {
        Self.hook?()
        try number.encode(to: encoder)
    }
}

enum ReenteringKey: Hashable, Sendable { case value }

extension TypedKey<ReenteringKey, ReenteringValue?> {
    static var value: Self { .init(.value, default: nil) }
}

let reenteringHandler = StoreActionHandler<ReenteringKey, Int, Void> { state, number, _ in
    state[.value] = ReenteringValue(number)
    return .none
}
