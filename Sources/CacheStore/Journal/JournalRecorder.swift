import Foundation

/// A store's recording of a ``Journal``: every action the store handles is appended to the file
/// in the store's turn, until ``stop()`` or the store's release.
///
/// ```swift
/// let recorder = try store.startRecording(journal)
/// // … the session …
/// recorder.stop()  // a last checkpoint, and the file closed
/// ```
///
/// ## Topics
///
/// ### Ending
///
/// - ``stop()``
///
/// ### Reading the state of the recording
///
/// - ``recordedSteps``
/// - ``problems``
public final class JournalRecorder<Key: Hashable & SendableMetatype, Action: Codable>: Sendable {
    private let writer: Locked<JournalWriter<Key, Action>>
    /// Takes the recorder off the store, when the store still lives.
    private let detach: UncheckedSendable<() -> Void>

    init(writer: JournalWriter<Key, Action>, detach: UncheckedSendable<() -> Void>) {
        self.writer = Locked(writer)
        self.detach = detach
    }

    /// Records one action the store handled; in the store's turn.
    func record(_ observed: ObservedAction<Key, Action>) {
        writer.withLock { $0.record(observed) }
    }

    /// Ends the recording: writes a checkpoint of the state after the last action and closes the
    /// file. Later actions are not recorded. Calling it again does nothing.
    public func stop() {
        writer.withLock { $0.stop() }
        detach.value()
    }

    /// How many actions are recorded (in the file and before it, when a window dropped some).
    public var recordedSteps: Int {
        writer.withLock { Int($0.sequence) }
    }

    /// What could not be recorded as asked: a changed key the journal does not list, an action or
    /// a value that does not encode (the action is then recorded by its changes), a write that
    /// failed (which stops the recording). Each is said once.
    public var problems: [String] {
        writer.withLock { $0.problems }
    }

    deinit {
        writer.withLock { $0.stop() }
    }
}

/// The recording's file and the state it has written: guarded by the recorder's lock.
struct JournalWriter<Key: Hashable & SendableMetatype, Action: Codable> {
    let journal: Journal<Key, Action>
    private let path: String
    private var descriptor: Int32
    private let encoder = JSONEncoder.canonical()
    private let keyIndex: [Key: Int]
    /// Each recorded key's value's JSON, and its share of the state's hash.
    private var values: [[UInt8]?]
    private var valueHashes: [UInt64]
    /// The wrapping sum of the recorded keys' shares: a hash of the state that does not depend on
    /// the order of the keys.
    private var stateHash: UInt64 = 0
    /// The number of the last recorded action: the first is 1.
    private(set) var sequence: UInt64 = 0
    private(set) var problems: [String] = []
    private var unrecordedKeys: Set<Key> = []
    private var buffer: [UInt8] = []
    private var fileSize = 0
    /// The header's bytes, first line included: what a windowed file starts again with.
    private var headerBytes: [UInt8] = []
    /// The checkpoints in the file now: the number of actions before each, its time and its offset.
    private var checkpoints: [(sequence: UInt64, time: Int64, offset: Int)] = []

    /// Makes the file, and writes its header and a checkpoint of `state`.
    init(journal: Journal<Key, Action>, state: [Key: Any]) throws(JournalError) {
        self.journal = journal
        path = journal.file.path
        keyIndex = Dictionary(uniqueKeysWithValues: journal.keys.indices.map { (journal.keys[$0].key, $0) })
        values = Array(repeating: nil, count: journal.keys.count)
        valueHashes = Array(repeating: 0, count: journal.keys.count)
        for (index, key) in journal.keys.enumerated() {
            guard let value = state[key.key] else { continue }
            do {
                values[index] = Array(try key.encode(value, encoder))
            } catch {
                throw .unencodableValue(key: key.name, message: "\(error)")
            }
            valueHashes[index] = Self.share(of: key.name, values[index])
            stateHash &+= valueHashes[index]
        }
        headerBytes = JournalFileFormat.firstLine
        let header = JournalHeader(journal: journal, startedAt: Self.now())
        let headerJSON = (try? encoder.encode(header)) ?? Data()
        JournalFileFormat.appendRecord(.header, to: &headerBytes) { $0.append(contentsOf: headerJSON) }
        descriptor = try Self.open(path, truncating: true)
        buffer = headerBytes
        write()
        appendCheckpoint()
    }

    /// ``JournalRecorder/record(_:)``'s work.
    mutating func record(_ observed: ObservedAction<Key, Action>) {
        guard descriptor >= 0 else { return }
        sequence += 1
        var record = takeBuffer()
        let action: Data?
        switch journal.redaction?(observed.action) ?? .keep {
        case .keep: action = encodedAction(observed.action)
        case .replace(let replacement): action = encodedAction(replacement)
        case .changesOnly: action = nil
        }
        JournalFileFormat.appendRecord(.action, to: &record) { bytes in
            bytes.appendInteger(sequence)
            bytes.appendInteger(Self.now())
            bytes.append(JournalOrigin(observed.origin, hasAction: action != nil).rawValue)
            bytes.appendField(observed.effectID.map { Array(ValueDump.inline($0).utf8) } ?? [])
            bytes.appendField(action ?? Data())
            let countOffset = bytes.count
            bytes.appendInteger(UInt32(0))
            var count: UInt32 = 0
            for change in observed.changes {
                guard let index = keyIndex[change.key] else {
                    noteUnrecorded(change.key)
                    continue
                }
                guard let value = encodedValue(change.after, of: index), value != values[index] else { continue }
                let key = journal.keys[index]
                stateHash &-= valueHashes[index]
                valueHashes[index] = Self.share(of: key.name, value)
                stateHash &+= valueHashes[index]
                values[index] = value
                bytes.appendField(key.name.utf8)
                bytes.append(value == nil ? 0 : 1)
                bytes.appendField(value ?? [])
                count += 1
            }
            bytes.withUnsafeMutableBytes {
                $0.storeBytes(of: count.littleEndian, toByteOffset: countOffset, as: UInt32.self)
            }
            bytes.appendInteger(stateHash)
        }
        buffer = record
        write()
        if sequence % UInt64(journal.checkpointInterval) == 0 {
            appendCheckpoint()
            keepWindow()
        }
    }

    /// ``JournalRecorder/stop()``'s work.
    mutating func stop() {
        guard descriptor >= 0 else { return }
        if sequence % UInt64(journal.checkpointInterval) != 0 {
            appendCheckpoint()
        }
        close(descriptor)
        descriptor = -1
    }

    /// The buffer's storage, emptied, taken out of `self` while a record is appended to it.
    private mutating func takeBuffer() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &buffer)
        return taken
    }

    /// The action's JSON; `nil`, said once, when it does not encode.
    private mutating func encodedAction(_ action: Action) -> Data? {
        do {
            return try encoder.encode(action)
        } catch {
            note("an action \(ValueDump.inline(action)) cannot be recorded (recorded by its changes): \(error)")
            return nil
        }
    }

    /// The new value's JSON: `.some(nil)` for a removed key; `nil` (said) when it does not encode.
    private mutating func encodedValue(_ value: Any?, of index: Int) -> [UInt8]?? {
        guard let value else { return .some(nil) }
        do {
            return .some(Array(try journal.keys[index].encode(value, encoder)))
        } catch {
            note("a value of \(journal.keys[index].name) cannot be recorded: \(error)")
            return nil
        }
    }

    private mutating func noteUnrecorded(_ key: Key) {
        guard unrecordedKeys.insert(key).inserted else { return }
        note("\(ValueDump.inline(key)) changed, but the journal does not record it: a replay starts without it")
    }

    private mutating func note(_ problem: String) {
        if !problems.contains(problem) { problems.append(problem) }
    }

    /// Writes a checkpoint of the recorded keys.
    private mutating func appendCheckpoint() {
        let offset = fileSize
        let time = Self.now()
        var record = takeBuffer()
        JournalFileFormat.appendRecord(.checkpoint, to: &record) { bytes in
            bytes.appendInteger(sequence)
            bytes.appendInteger(time)
            bytes.appendInteger(stateHash)
            let present = journal.keys.indices.filter { values[$0] != nil }.sorted {
                journal.keys[$0].name < journal.keys[$1].name
            }
            bytes.appendInteger(UInt32(present.count))
            for index in present {
                bytes.appendField(journal.keys[index].name.utf8)
                bytes.appendField(values[index]!)
            }
        }
        buffer = record
        checkpoints.append((sequence, time, offset))
        write()
    }

    /// For a windowed journal holding twice its window: starts the file again from the newest
    /// checkpoint that keeps the window, replacing it atomically (a rename).
    private mutating func keepWindow() {
        guard let first = checkpoints.first else { return }
        let keep: Int?
        switch journal.window {
        case .unbounded:
            keep = nil
        case .actions(let count):
            guard sequence - first.sequence >= 2 * UInt64(max(count, 1)) else { return }
            keep = checkpoints.lastIndex { $0.sequence + UInt64(count) <= sequence }
        case .duration(let duration):
            let nanoseconds =
                Int64(duration.components.seconds) * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
            let now = Self.now()
            guard now - first.time >= 2 * nanoseconds else { return }
            keep = checkpoints.lastIndex { $0.time + nanoseconds <= now }
        }
        guard let keep, keep > 0 else { return }
        let from = checkpoints[keep].offset
        let rotating = path + ".rotating"
        do {
            let kept = try Self.read(descriptor, path: path, from: from, count: fileSize - from)
            let replacement = try Self.open(rotating, truncating: true)
            buffer = headerBytes + kept
            let old = descriptor
            descriptor = replacement
            fileSize = 0
            write()
            guard descriptor >= 0 else {
                close(old)
                return
            }
            guard rename(rotating, path) == 0 else { throw JournalError.file(path, "replace", code: errno) }
            close(old)
            let shift = headerBytes.count - from
            checkpoints = checkpoints[keep...].map { ($0.sequence, $0.time, $0.offset + shift) }
        } catch {
            note("the journal could not drop the actions before its window: \(error)")
        }
    }

    /// Writes the buffer to the end of the file, and empties it; a failure is a problem, and ends the recording.
    private mutating func write() {
        let failure = buffer.withUnsafeBytes { bytes -> Int32 in
            var offset = 0
            while offset < bytes.count {
                let count = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += count
            }
            return 0
        }
        fileSize += buffer.count
        buffer.removeAll(keepingCapacity: true)
        guard failure != 0 else { return }
        note("\(JournalError.file(path, "write", code: failure)); the recording stopped")
        close(descriptor)
        descriptor = -1
    }

    /// A key's share of the state's hash: of its name and its value's JSON.
    static func share(of name: String, _ value: [UInt8]?) -> UInt64 {
        guard let value else { return 0 }
        return JournalFileFormat.fnv1a64(value, from: JournalFileFormat.fnv1a64(name.utf8 + [0]))
    }

    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    private static func open(_ path: String, truncating: Bool) throws(JournalError) -> Int32 {
        let descriptor = Foundation.open(
            path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (truncating ? O_TRUNC : 0), 0o644)
        guard descriptor >= 0 else { throw .file(path, "open", code: errno) }
        return descriptor
    }

    private static func read(_ descriptor: Int32, path: String, from offset: Int, count: Int) throws(JournalError)
        -> [UInt8]
    {
        let reading = Foundation.open(path, O_RDONLY | O_CLOEXEC)
        guard reading >= 0 else { throw .file(path, "read", code: errno) }
        defer { close(reading) }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let read = bytes.withUnsafeMutableBytes {
                pread(reading, $0.baseAddress! + done, count - done, off_t(offset + done))
            }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { throw .file(path, "read", code: read == 0 ? EIO : errno) }
            done += read
        }
        return bytes
    }
}

/// Where a recorded action came from, as the file says it.
enum JournalOrigin: UInt8 {
    case sent = 0
    case immediate = 1
    case effect = 2
    /// Recorded by its changes only (``JournalRedaction/changesOnly``): a replay applies them.
    case changesOnly = 3

    init(_ origin: ActionOrigin, hasAction: Bool) {
        guard hasAction else {
            self = .changesOnly
            return
        }
        switch origin {
        case .sent: self = .sent
        case .immediate: self = .immediate
        case .effect: self = .effect
        }
    }
}

/// The journal's first record: what recorded it.
struct JournalHeader: Codable {
    let keyType: String
    let actionType: String
    let keys: [String]
    let checkpointInterval: Int
    let startedAt: Int64

    init<Key, Action>(journal: Journal<Key, Action>, startedAt: Int64) {
        keyType = String(reflecting: Key.self)
        actionType = String(reflecting: Action.self)
        keys = journal.keys.map(\.name)
        checkpointInterval = journal.checkpointInterval
        self.startedAt = startedAt
    }
}
