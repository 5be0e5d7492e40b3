import Foundation

/// Why a journal cannot be recorded or read. Every one is thrown before a replay changes any state.
///
/// ```swift
/// do {
///     let recorded = try RecordedJournal(contentsOf: url, journal: journal)
/// } catch .newerFormat(let version) {
///     print("made by a later CacheStore (format \(version))")
/// } catch {
///     print(error)  // names the file, the record and the cause
/// }
/// ```
///
/// ## Topics
///
/// ### The file
///
/// - ``file(path:operation:message:)``
/// - ``notAJournal(path:)``
/// - ``newerFormat(_:)``
/// - ``corruptRecord(offset:reason:)``
///
/// ### What the journal holds
///
/// - ``otherTypes(recorded:expected:)``
/// - ``unknownKey(_:)``
/// - ``undecodableAction(step:actionType:message:)``
/// - ``undecodableValue(key:valueType:message:)``
/// - ``unencodableValue(key:message:)``
/// - ``noSuchStep(_:steps:)``
///
/// ### Describing
///
/// - ``description``
public enum JournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be made, written, read or replaced: the path, the step and the system's
    /// error.
    case file(path: String, operation: String, message: String)
    /// The file is not a CacheStore journal.
    case notAJournal(path: String)
    /// The file was written in a later format than this CacheStore reads.
    case newerFormat(Int)
    /// A record in the middle of the file is damaged (a torn last record is not an error: the
    /// journal ends before it).
    case corruptRecord(offset: Int, reason: String)
    /// The journal was recorded by a store of other key or action types.
    case otherTypes(recorded: String, expected: String)
    /// The journal records a key that the ``Journal`` it is read with does not list.
    case unknownKey(String)
    /// A recorded action that the action type cannot decode: a case it no longer has.
    case undecodableAction(step: Int, actionType: String, message: String)
    /// A recorded value that its key's type cannot decode.
    case undecodableValue(key: String, valueType: String, message: String)
    /// A value of a recorded key that cannot be encoded when recording starts.
    case unencodableValue(key: String, message: String)
    /// The step asked for is not in the journal.
    case noSuchStep(Int, steps: Int)

    /// What went wrong, naming the file, the step or the key.
    public var description: String {
        switch self {
        case .file(let path, let operation, let message): "cannot \(operation) the journal \(path): \(message)"
        case .notAJournal(let path): "\(path) is not a CacheStore journal"
        case .newerFormat(let version):
            "the journal is of format \(version), later than this CacheStore reads (\(JournalFileFormat.version))"
        case .corruptRecord(let offset, let reason): "the journal's record at byte \(offset) is damaged: \(reason)"
        case .otherTypes(let recorded, let expected): "the journal was recorded by a \(recorded), not a \(expected)"
        case .unknownKey(let name):
            "the journal records the key \(name), which the Journal it is read with does not list"
        case .undecodableAction(let step, let actionType, let message):
            "step \(step)'s action is not a \(actionType) any more: \(message)"
        case .undecodableValue(let key, let valueType, let message):
            "a recorded value of \(key) is not a \(valueType): \(message)"
        case .unencodableValue(let key, let message): "the value of \(key) cannot be recorded: \(message)"
        case .noSuchStep(let step, let steps): "the journal has no step \(step); its steps are 0..<\(steps)"
        }
    }

    /// The error of a failed system call on `path`.
    static func file(_ path: String, _ operation: String, code: Int32) -> JournalError {
        .file(path: path, operation: operation, message: String(cString: strerror(code)))
    }
}
