import Foundation

/// A persisted key's file that could not be read or written: which key, which file, why, and where
/// the bad file was moved.
///
/// The store then holds the key's default (or its last value, for a failed save) and goes on; the
/// errors are kept in ``Store/persistenceErrors``, oldest first.
///
/// ```swift
/// for error in store.persistenceErrors {
///     print(error)  // the key .theme: settings/theme.json is truncated (3 of its 17 bytes of value); moved to …
/// }
/// ```
///
/// ## Topics
///
/// ### What failed
///
/// - ``key``
/// - ``file``
/// - ``cause``
/// - ``movedTo``
/// - ``description``
/// - ``Cause``
public struct PersistenceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why a file could not be used.
    ///
    /// ## Topics
    ///
    /// ### Bad files, moved aside
    ///
    /// - ``empty``
    /// - ``truncated(_:)``
    /// - ``corrupt(_:)``
    /// - ``wrongType(_:)``
    /// - ``notAFile``
    /// - ``system(_:)``
    ///
    /// ### Files left as they are
    ///
    /// - ``newerFormat(_:)``
    /// - ``newerSchema(file:key:)``
    /// - ``missingMigration(from:)``
    /// - ``migrationFailed(from:_:)``
    ///
    /// ### Saving
    ///
    /// - ``encodingFailed(_:)``
    public enum Cause: Error, Sendable, Equatable {
        /// The file is empty.
        case empty
        /// The file ends before its value does: the detail says where.
        case truncated(String)
        /// The file is not a value this package wrote, or a byte of it changed: the detail says how
        /// it shows.
        case corrupt(String)
        /// The file's value does not decode as the key's value type: the decoder's message.
        case wrongType(String)
        /// The path is not a regular file (a folder, for example).
        case notAFile
        /// The system refused an operation on the file: its message.
        case system(String)
        /// The file was written in a later layout of this package (its version): it is left as it
        /// is, and the key is not saved over it.
        case newerFormat(Int)
        /// The file's value has a later schema than the key's (the file's, the key's): it is left as
        /// it is, and the key is not saved over it.
        case newerSchema(file: Int, key: Int)
        /// No migration step leads from the file's schema to the next: the file is left as it is,
        /// and the key is not saved over it.
        case missingMigration(from: Int)
        /// A migration step threw: its error's description.
        case migrationFailed(from: Int, String)
        /// The value could not be encoded for saving: the encoder's message.
        case encodingFailed(String)
    }

    /// The key, as the debug output writes it (`.theme`).
    public let key: String
    /// The file.
    public let file: URL
    /// Why.
    public let cause: Cause
    /// Where the bad file was moved (`theme.json.corrupt-20261128T101502.123Z`), or `nil` when it
    /// was left in place.
    public let movedTo: URL?

    /// Whether the file stays where it is and the key is not saved over it: a file of a later
    /// format or schema, or of a schema no migration leads from.
    var keepsFile: Bool {
        switch cause {
        case .newerFormat, .newerSchema, .missingMigration, .migrationFailed: true
        default: false
        }
    }

    /// One sentence: the key, the file, the cause, and where the file went.
    public var description: String {
        let what: String
        switch cause {
        case .empty: what = "is empty"
        case .truncated(let detail): what = "is truncated (\(detail))"
        case .corrupt(let detail): what = "is corrupt (\(detail))"
        case .wrongType(let detail): what = "does not hold the key's type (\(detail))"
        case .notAFile: what = "is not a file"
        case .system(let detail): what = "could not be used: \(detail)"
        case .newerFormat(let version): what = "was written in a later layout (\(version)) of CacheStore"
        case .newerSchema(let file, let key): what = "holds schema \(file), later than the key's \(key)"
        case .missingMigration(let from): what = "holds schema \(from), and no migration leads from it"
        case .migrationFailed(let from, let detail): what = "could not be migrated from schema \(from): \(detail)"
        case .encodingFailed(let detail): what = "could not be saved: the value does not encode (\(detail))"
        }
        let fate =
            movedTo.map { "; moved to \($0.lastPathComponent), the key holds its default" }
            ?? (keepsFile ? "; left as it is, and the key is not saved over it" : "")
        return "the key \(key): \(file.path) \(what)\(fate)"
    }
}
