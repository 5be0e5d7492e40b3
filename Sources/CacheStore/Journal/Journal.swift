import Foundation

/// What a store records of the actions it handles, and where: an append-only journal file that
/// ``RecordedJournal`` replays, travels through and turns into a test.
///
/// ```swift
/// let journal = Journal<PostsKey, PostsAction>(file: sessionURL)
///     .recording(.posts)
///     .recording(.query)
///
/// let recorder = try store.startRecording(journal)
/// store.handle(action: .search("swift"))  // appended to sessionURL before `handle` returns
/// recorder.stop()
/// ```
///
/// - **Every action the handler runs** is a record: sent, immediate, or delivered by an effect
///   (with the effect's id), with a sequence number and the time, the recorded keys it changed and
///   a hash of the recorded keys' state after it.
/// - **Checkpoints**: every `checkpointInterval` actions, the recorded keys' values; a replay or a
///   jump starts from the nearest one.
/// - **Crash-safe**: each record is length-prefixed and checksummed, and written to the file before
///   the store's turn ends; a process killed at any instant leaves a journal that reads back to its
///   last whole record.
/// - **Bounded** by a ``JournalWindow`` (the last N actions, or the last T seconds), and by
///   ``redacting(_:)``, which records an action in another form, or only its changes.
/// - **The recorder owns its file**: a second recorder of the same file is refused, and a reader
///   of it reads a copy the recorder never changes under it. The file is written through a memory
///   map, so another process must not truncate it while it is recorded (`logrotate`'s
///   `copytruncate` would stop the app with `SIGBUS`): bound it with a window instead.
/// - **Recorded keys** are the typed keys you list; their values are saved as JSON. A key the
///   handler changes that is not listed is not recorded (``JournalRecorder/problems`` names it):
///   list every key the handler reads, or a replay may differ.
///
/// ## Topics
///
/// ### Choosing what to record
///
/// - ``init(file:checkpointInterval:window:)``
/// - ``recording(_:)``
/// - ``redacting(_:)``
/// - ``JournalWindow``
/// - ``JournalRedaction``
///
/// ### Settings
///
/// - ``file``
/// - ``checkpointInterval``
/// - ``window``
public struct Journal<Key: Hashable & SendableMetatype, Action: Codable>: Sendable {
    /// The journal's file: made (or replaced) when recording starts.
    public let file: URL
    /// How many actions come between two checkpoints.
    public let checkpointInterval: Int
    /// How much of the session the file keeps.
    public let window: JournalWindow
    /// The recorded keys, in the order they were added.
    let keys: [JournalKey<Key>]
    /// What is recorded of each action.
    let redaction: (@Sendable (Action) -> JournalRedaction<Action>)?

    /// A journal of no key yet, in `file`.
    ///
    /// - Parameters:
    ///   - file: The journal's file: made, or replaced, when recording starts.
    ///   - checkpointInterval: How many actions come between two checkpoints: a jump replays at most
    ///     this many. At least 1.
    ///   - window: How much of the session the file keeps: all of it unless you say.
    public init(file: URL, checkpointInterval: Int = 1000, window: JournalWindow = .unbounded) {
        precondition(
            checkpointInterval >= 1, "Journal: the checkpoint interval must be at least 1, not \(checkpointInterval)")
        if case .actions(let count) = window {
            precondition(count >= 1, "Journal: a window of .actions(\(count)) keeps no action; give 1 or more")
        }
        if case .duration(let duration) = window {
            precondition(duration > .zero, "Journal: a window of .duration(\(duration)) keeps no action; give more")
        }
        self.init(file: file, checkpointInterval: checkpointInterval, window: window, keys: [], redaction: nil)
    }

    private init(
        file: URL, checkpointInterval: Int, window: JournalWindow, keys: [JournalKey<Key>],
        redaction: (@Sendable (Action) -> JournalRedaction<Action>)?
    ) {
        self.file = file
        self.checkpointInterval = checkpointInterval
        self.window = window
        self.keys = keys
        self.redaction = redaction
    }

    /// This journal, with `key`'s value recorded too: in each checkpoint, and in each action that
    /// changes it.
    ///
    /// ```swift
    /// let journal = Journal<PostsKey, PostsAction>(file: url).recording(.posts).recording(.query)
    /// ```
    ///
    /// - Parameter key: The typed key; its values are recorded as JSON.
    /// - Returns: The journal. A key recorded twice, or two keys of one name, stop the program with a
    ///   message naming them.
    public func recording<Value: Codable & SendableMetatype>(_ key: TypedKey<Key, Value>) -> Self {
        let added = JournalKey(key)
        if let same = keys.first(where: { $0.key == added.key || $0.name == added.name }) {
            preconditionFailure(
                "Journal: the keys \(same.name) and \(added.name) "
                    + (same.key == added.key ? "are one key (a key is recorded once)" : "have one name"))
        }
        return Journal(
            file: file, checkpointInterval: checkpointInterval, window: window, keys: keys + [added],
            redaction: redaction)
    }

    /// This journal, recording each action as `redaction` says: as it is, in another form (a
    /// password replaced), or only by the changes it made.
    ///
    /// ```swift
    /// let journal = Journal<LoginKey, LoginAction>(file: url)
    ///     .recording(.user)
    ///     .redacting { action in
    ///         switch action {
    ///         case .typePassword: .changesOnly
    ///         default: .keep
    ///         }
    ///     }
    /// ```
    ///
    /// A replay applies an action recorded by its changes as it was recorded, without the handler;
    /// a replaced action is handled as the replacement.
    ///
    /// - Parameter redaction: What to record of each action.
    /// - Returns: The journal.
    public func redacting(_ redaction: @escaping @Sendable (Action) -> JournalRedaction<Action>) -> Self {
        Journal(file: file, checkpointInterval: checkpointInterval, window: window, keys: keys, redaction: redaction)
    }
}

/// How much of a session a journal's file keeps.
///
/// A windowed journal keeps at least the window, and at most a checkpoint interval more: at each
/// checkpoint, it starts again from the newest checkpoint that keeps the window, so its file and the
/// recorder's memory stay bounded however long the session. Each such start copies the window's
/// records once, in the store's turn.
///
/// ```swift
/// let lastTenMinutes = Journal<PostsKey, PostsAction>(file: url, window: .duration(.seconds(600)))
/// ```
///
/// ## Topics
///
/// ### Windows
///
/// - ``unbounded``
/// - ``actions(_:)``
/// - ``duration(_:)``
public enum JournalWindow: Sendable, Equatable {
    /// Every action from the start of the recording.
    case unbounded
    /// At least the last `count` actions.
    case actions(Int)
    /// At least the actions of the last `duration`.
    case duration(Duration)
}

/// What a journal records of one action (see ``Journal/redacting(_:)``).
///
/// ```swift
/// journal.redacting { action in
///     if case .login = action { return .replace(.login(password: "")) }
///     return .keep
/// }
/// ```
///
/// ## Topics
///
/// ### Redactions
///
/// - ``keep``
/// - ``replace(_:)``
/// - ``changesOnly``
public enum JournalRedaction<Action>: @unchecked Sendable {
    /// The action, as it is.
    case keep
    /// This action instead: a replay handles it in the action's place.
    case replace(Action)
    /// The changes the action made, not the action: a replay applies them as recorded.
    case changesOnly
}

/// A recorded key: its name in the journal, and how its values are written and read.
struct JournalKey<Key: Hashable & SendableMetatype>: @unchecked Sendable {
    let key: Key
    /// The key as the debug output writes it (`.posts`): its name in the file.
    let name: String
    let valueType: Any.Type
    /// The hash of the name, where the hash of the key's value starts (see ``JournalRecorder/share(of:_:)``).
    let hashSeed: UInt64
    /// The value's JSON, keys sorted: one value has one encoding, and so one hash.
    let encode: (Any, JSONEncoder) throws -> [UInt8]
    let decode: (Data, JSONDecoder) throws -> Any

    init<Value: Codable & SendableMetatype>(_ typedKey: TypedKey<Key, Value>) {
        key = typedKey.key
        name = ValueDump.inline(typedKey.key)
        valueType = Value.self
        hashSeed = JournalFileFormat.fnv1a64(name.utf8 + [0])
        encode = Self.encoder(of: Value.self)
        decode = { data, decoder in try decoder.decode(Value.self, from: data) }
    }

    /// Encodes a value of the key's type as `JSONEncoder` does; an `Int`, a `Bool` and a `String`
    /// with nothing to escape without it, to the same bytes.
    static func encoder<Value: Encodable>(of _: Value.Type) -> (Any, JSONEncoder) throws -> [UInt8] {
        func mismatch(_ value: Any) -> ValueTypeMismatch { ValueTypeMismatch(held: type(of: value), key: Value.self) }
        if Value.self == Int.self {
            return { value, _ in
                guard let value = value as? Int else { throw mismatch(value) }
                return decimalDigits(of: value)
            }
        }
        if Value.self == Bool.self {
            return { value, _ in
                guard let value = value as? Bool else { throw mismatch(value) }
                return Array((value ? "true" : "false").utf8)
            }
        }
        if Value.self == String.self {
            return { value, encoder in
                guard let value = value as? String else { throw mismatch(value) }
                let plain = value.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
                guard plain else { return Array(try encoder.encode(value)) }
                var bytes: [UInt8] = [UInt8(ascii: "\"")]
                bytes.reserveCapacity(value.utf8.count + 2)
                bytes.append(contentsOf: value.utf8)
                bytes.append(UInt8(ascii: "\""))
                return bytes
            }
        }
        return { value, encoder in
            guard let value = value as? Value else { throw mismatch(value) }
            return Array(try encoder.encode(value))
        }
    }
}

/// `value` in decimal, as `String(value)` writes it.
func decimalDigits(of value: Int) -> [UInt8] {
    var digits: [UInt8] = []
    digits.reserveCapacity(20)
    var rest = value.magnitude
    repeat {
        digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
        rest /= 10
    } while rest > 0
    if value < 0 { digits.append(UInt8(ascii: "-")) }
    digits.reverse()
    return digits
}

extension JSONEncoder {
    /// The encoder of a journal's values and actions: keys sorted, so that equal values encode alike.
    static func canonical() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
