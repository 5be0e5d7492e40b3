import Foundation

/// Which of a store's keys outlive the process, and where: each persisted key is restored from its
/// file when the store is made, and saved to it, off the handler's thread, after it changes.
///
/// ```swift
/// let persistence = Persistence<SettingsKey>(folder: settingsFolder)
///     .persisting(.theme)
///     .persisting(.fontSize, schema: 2, migrations: [.init(from: 1) { (points: Double) in Int(points) }])
///
/// let store = Store(initialValues: [:], actionHandler: settingsHandler, dependency: .live, persistence: persistence)
/// store.handle(action: .setTheme("dark"))  // saved to settingsFolder/theme.json within saveInterval
/// await store.flush()                      // saved now
/// ```
///
/// - **One file per key**, named after the key (`theme.json`, or the `file:` you give): a save
///   writes only the key that changed, a bad file costs one key, and each key has its own schema.
/// - **Crash-atomic**: a save writes a temporary file in the folder, flushes it, renames it over the
///   key's file and flushes the folder; a process killed at any instant leaves the old value or the
///   new one. Temporary files of processes that ended are removed when a store is made.
/// - **Coalesced, off the caller's thread**: the writes of `saveInterval` are one save, made on a
///   queue of the store's own. ``Store/flush()`` saves now; releasing the store saves what is pending
///   before the release returns.
/// - **Bad files**: a missing file is the key's default, and no file is made until the key is
///   written. An empty, truncated, corrupt or wrong-type file, a folder at the path, or a file that
///   cannot be read is moved aside as `NAME.corrupt-TIMESTAMP`, never overwritten, and the key holds
///   its default; a file of a later schema (or layout) is left byte for byte as it is, and the key is
///   not saved over it. Each is a ``PersistenceError`` in ``Store/persistenceErrors``.
/// - **Schemas**: each value is saved with its key's `schema`; a file of an earlier one is read
///   through the registered ``PersistenceMigration`` steps, one schema at a time.
/// - **Several processes**: the stores of every process on the folder read and save its files
///   holding the folder's advisory lock (`flock` of its `.cachestore.lock`); the last save wins,
///   and ``Store/update(_:sending:_:)`` changes a value from what every process saved, losing none.
///
/// ## Topics
///
/// ### Choosing the keys
///
/// - ``init(folder:saveInterval:durability:)``
/// - ``persisting(_:file:schema:migrations:)``
///
/// ### Settings
///
/// - ``folder``
/// - ``saveInterval``
/// - ``durability``
/// - ``Durability``
public struct Persistence<Key: Hashable & SendableMetatype>: Sendable {
    /// How far a save flushes before it counts as done.
    ///
    /// ## Topics
    ///
    /// ### Durabilities
    ///
    /// - ``flushed``
    /// - ``full``
    public enum Durability: Sendable, Equatable {
        /// The file and its folder are flushed (`fsync`): a save survives a crash of the app or of
        /// the system.
        case flushed
        /// As ``flushed``, and on Apple platforms `F_FULLFSYNC`, which also empties the drive's own
        /// cache, so that a save survives a power loss; slower. Elsewhere the same as ``flushed``.
        case full
    }

    /// The folder of the keys' files; made when a key is first saved.
    public let folder: URL
    /// How long a save waits for more writes to save with it.
    public let saveInterval: Duration
    /// How far a save flushes.
    public let durability: Durability
    /// The persisted keys, in the order they were added.
    let keys: [PersistedKey<Key>]
    /// Where the app's notifications that it ends are posted: a test's own center, for a test.
    package var notificationCenter = NotificationCenter.default

    /// A persistence of no key yet, in `folder`.
    ///
    /// - Parameters:
    ///   - folder: Where the keys' files are: on Apple platforms, the app's choice under
    ///     `Application Support`; on Linux, under `$XDG_STATE_HOME` (`~/.local/state`).
    ///   - saveInterval: How long a save waits for more writes to save with it: a quarter of a second
    ///     unless you say.
    ///   - durability: How far a save flushes (see ``Durability``).
    public init(folder: URL, saveInterval: Duration = .milliseconds(250), durability: Durability = .flushed) {
        self.init(folder: folder, saveInterval: saveInterval, durability: durability, keys: [])
    }

    private init(folder: URL, saveInterval: Duration, durability: Durability, keys: [PersistedKey<Key>]) {
        self.folder = folder
        self.saveInterval = saveInterval
        self.durability = durability
        self.keys = keys
    }

    /// This persistence, with `key` persisted too.
    ///
    /// ```swift
    /// let persistence = Persistence<SettingsKey>(folder: folder).persisting(.theme).persisting(.fontSize)
    /// ```
    ///
    /// - Parameters:
    ///   - key: The typed key; its value type is saved as JSON.
    ///   - file: The file's name in the folder; the key's name with `.json` unless you say.
    ///   - schema: The schema of the values saved now: raise it when the value's JSON changes, and
    ///     register the step from the one before.
    ///   - migrations: The steps that bring a file of an earlier schema to `schema`, one each.
    /// - Returns: The persistence. Two keys given one file name stop the program with a message
    ///   naming both.
    public func persisting<Value: Codable & SendableMetatype>(
        _ key: TypedKey<Key, Value>, file: String? = nil, schema: Int = 1, migrations: [PersistenceMigration] = []
    ) -> Self {
        let added = PersistedKey(key, file: file, schema: schema, migrations: migrations)
        if let problem = PersistedKey<Key>.problem(withFileName: added.file) {
            preconditionFailure("Persistence: the file name \"\(added.file)\" of \(added.name) \(problem)")
        }
        if let same = keys.first(where: { $0.file == added.file || $0.key == added.key }) {
            preconditionFailure(
                "Persistence: the keys \(same.name) and \(added.name) are both saved to \(added.file)"
                    + (same.key == added.key ? " (a key is persisted once)" : "; give one another file:"))
        }
        var persistence = Persistence(
            folder: folder, saveInterval: saveInterval, durability: durability, keys: keys + [added])
        persistence.notificationCenter = notificationCenter
        return persistence
    }
}

extension Persistence {
    /// The files that hold `values` as a save would write them, by file name: a test store's
    /// preloaded memory; and why each value that cannot be saved (of a key not persisted here, or
    /// that does not encode) is left out.
    package func files(holding values: [Key: Any]) -> (files: [String: Data], problems: [String]) {
        var files: [String: Data] = [:]
        var problems: [String] = []
        for (key, value) in values {
            guard let persisted = keys.first(where: { $0.key == key }) else {
                problems.append("\(ValueDump.inline(key)) is not a persisted key")
                continue
            }
            do {
                let payload = try persisted.encode(value)
                files[persisted.file] = PersistedFileFormat.file(schema: persisted.schema, payload: payload)
            } catch {
                problems.append("\(persisted.name) cannot be saved: \(error)")
            }
        }
        return (files, problems.sorted())
    }
}

/// A step that brings a persisted value's JSON from one schema to the next.
///
/// ```swift
/// // Schema 1 saved the font size in points as a Double; schema 2 saves whole points.
/// PersistenceMigration(from: 1) { (points: Double) in Int(points.rounded()) }
/// ```
///
/// ## Topics
///
/// ### Creating a step
///
/// - ``init(from:_:)``
/// - ``init(from:json:)``
/// - ``from``
public struct PersistenceMigration: Sendable {
    /// The schema it reads; it writes `from + 1`.
    public let from: Int
    let transform: @Sendable (Data) throws -> Data

    /// A step that decodes the schema `from`'s value as `Old` and encodes `transform`'s result.
    ///
    /// - Parameters:
    ///   - from: The schema it reads.
    ///   - transform: Makes the next schema's value of the old one.
    public init<Old: Decodable & SendableMetatype, New: Encodable & SendableMetatype>(
        from: Int, _ transform: @escaping @Sendable (Old) throws -> New
    ) {
        self.from = from
        self.transform = { data in try JSONEncoder().encode(transform(JSONDecoder().decode(Old.self, from: data))) }
    }

    /// A step on the JSON itself, for changes no type describes.
    ///
    /// - Parameters:
    ///   - from: The schema it reads.
    ///   - json: Makes the next schema's JSON of the old one.
    public init(from: Int, json: @escaping @Sendable (Data) throws -> Data) {
        self.from = from
        self.transform = json
    }
}

/// One persisted key: its file, schema and migrations, and how its value is encoded and decoded.
struct PersistedKey<Key: Hashable & SendableMetatype>: @unchecked Sendable {
    let key: Key
    /// The key as the debug output writes it (`.theme`).
    let name: String
    let file: String
    let schema: Int
    /// The typed key's value type.
    let valueType: Any.Type
    let migrations: [Int: PersistenceMigration]
    let encode: @Sendable (Any) throws -> Data
    let decode: @Sendable (Data) throws -> Any

    init<Value: Codable & SendableMetatype>(
        _ typedKey: TypedKey<Key, Value>, file: String?, schema: Int, migrations: [PersistenceMigration]
    ) {
        key = typedKey.key
        name = ValueDump.inline(typedKey.key)
        self.file = file ?? Self.fileName(for: name)
        self.schema = schema
        valueType = Value.self
        self.migrations = Dictionary(migrations.map { ($0.from, $0) }) { first, _ in
            preconditionFailure(
                "Persistence: two migrations of \(ValueDump.inline(typedKey.key)) from schema \(first.from)")
        }
        encode = { value in
            guard let value = value as? Value else { throw ValueTypeMismatch(held: type(of: value), key: Value.self) }
            return try JSONEncoder().encode(value)
        }
        decode = { data in try JSONDecoder().decode(Value.self, from: data) }
    }

    /// A file name of a key's name: its letters, digits, `-` and `_` (others as `_`), at most 100
    /// bytes of them, with `.json`.
    static func fileName(for name: String) -> String {
        var kept = ""
        for character in name.drop(while: { $0 == "." }) {
            let allowed = character.isLetter || character.isNumber || character == "-" || character == "_"
            let next = allowed ? character : "_"
            guard kept.utf8.count + String(next).utf8.count <= 100 else { break }
            kept.append(next)
        }
        return kept + ".json"
    }

    /// Why `name` cannot be a file's name in the folder, or `nil`: a name leaves room for the
    /// temporary and set-aside files beside it, within the 255 bytes a file name may have.
    static func problem(withFileName name: String) -> String? {
        if name.isEmpty || name == "." || name == ".." { return "is not a file's name" }
        if name.contains("/") || name.contains("\0") { return "has a / or a NUL: it would not be in the folder" }
        if name.utf8.count > 180 { return "is longer than 180 bytes" }
        return nil
    }
}

/// A persisted key's value of another type than the key's, met when saving it.
struct ValueTypeMismatch: Error, CustomStringConvertible {
    let held: Any.Type
    let key: Any.Type

    var description: String { "it holds a \(held), not a \(key)" }
}
