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
public final class JournalRecorder<Key: Hashable & SendableMetatype, Action: Codable>: @unchecked Sendable {
    /// Guards every `var` but those the store's turn guards: the turn records, any thread may stop or
    /// read. No user code runs while it is held.
    private let lock = Lock()
    /// Runs the recording's end in the store's turn and takes the recorder off the store, when the
    /// store still lives.
    private let endInTurn: UncheckedSendable<(@escaping () -> Void) -> Void>
    let journal: Journal<Key, Action>
    private let path: String
    /// The open file; `nil` once the recording stopped.
    private var file: JournalFile?
    private let encoder = JSONEncoder.canonical()
    private let keyIndex: [Key: Int]
    /// The recorded keys' names, hash seeds and encoders, by index: what each action reads of them,
    /// in arrays of their own, so that the hot path handles no value of a generic type.
    private let names: [String]
    private let hashSeeds: [UInt64]
    private let encoders: [(Any, JSONEncoder) throws -> [UInt8]]
    /// Each recorded key's value's JSON, and its share of the state's hash.
    private var values: [[UInt8]?]
    private var valueHashes: [UInt64]
    /// The wrapping sum of the recorded keys' shares: a hash of the state that does not depend on
    /// the order of the keys.
    private var stateHash: UInt64 = 0
    /// The number of the last recorded action: the first is 1.
    private var sequence: UInt64 = 0
    private var noted: [String] = []
    /// The keys changed that the journal does not record, each said once. Guarded by the store's turn.
    private var unrecordedKeys: Set<Key> = []
    /// The recorded keys with a value that did not encode, and whether an action did not: each said
    /// once. Guarded by the store's turn.
    private var notedKeys: Set<Int> = []
    private var hasNotedAnAction = false
    /// The changes of the action being recorded, encoded before the lock is taken, by key index: a
    /// buffer reused from action to action. Guarded by the store's turn.
    private var pendingChanges: [(index: Int, value: [UInt8]?)] = []
    private var buffer: [UInt8] = []
    /// The header's bytes, first line included: what a windowed file starts again with.
    private var headerBytes: [UInt8] = []
    /// The checkpoints in the file now: the number of actions before each, its time and its offset.
    private var checkpoints: [(sequence: UInt64, time: Int64, offset: Int)] = []

    /// Makes the file, and writes its header and a checkpoint of `state`.
    init(
        journal: Journal<Key, Action>, state: [Key: Any], endInTurn: UncheckedSendable<(@escaping () -> Void) -> Void>
    ) throws(JournalError) {
        self.journal = journal
        self.endInTurn = endInTurn
        path = journal.file.path
        keyIndex = Dictionary(uniqueKeysWithValues: journal.keys.indices.map { (journal.keys[$0].key, $0) })
        names = journal.keys.map(\.name)
        hashSeeds = journal.keys.map(\.hashSeed)
        encoders = journal.keys.map(\.encode)
        values = Array(repeating: nil, count: journal.keys.count)
        valueHashes = Array(repeating: 0, count: journal.keys.count)
        for (index, key) in journal.keys.enumerated() {
            guard let value = state[key.key] else { continue }
            do {
                values[index] = try key.encode(value, encoder)
            } catch {
                throw .unencodableValue(key: key.name, message: "\(error)")
            }
            valueHashes[index] = Self.share(of: key, values[index])
            stateHash &+= valueHashes[index]
        }
        headerBytes = JournalFileFormat.firstLine
        let header = JournalHeader(journal: journal, startedAt: Self.now())
        let headerJSON = (try? encoder.encode(header)) ?? Data()
        JournalFileFormat.appendRecord(.header, to: &headerBytes) { $0.append(contentsOf: headerJSON) }
        let file = try JournalFile(path: path)
        self.file = file
        buffer = headerBytes
        write(isRecord: false)
        appendCheckpoint()
        guard self.file != nil else {
            throw .file(path: path, operation: "write", message: noted.joined(separator: "; "))
        }
        try file.install()
    }

    /// Ends the recording: writes a checkpoint of the state after the last action and closes the
    /// file. Calling it again does nothing.
    ///
    /// It waits for the store's turn, so every action handled before it (one an effect is delivering
    /// on another thread, whose change may already be visible) is in the file when it returns; later
    /// actions are not recorded. Called inside a handler, or another store's handler, it ends the
    /// recording at once.
    public func stop() {
        endInTurn.value { [self] in finish() }
    }

    /// Writes the last checkpoint and closes the file, leaving the store as it is: the store's
    /// release.
    func finish() {
        lock.withLock { close() }
    }

    /// How many actions are recorded (in the file and before it, when a window dropped some).
    public var recordedSteps: Int {
        lock.withLock { Int(sequence) }
    }

    /// What could not be recorded as asked: a changed key the journal does not list, a value of a
    /// key that does not encode, an action that does not encode (recorded by its changes), a write
    /// that failed (which stops the recording). Each key, and the actions, are said once.
    public var problems: [String] {
        lock.withLock { noted }
    }

    deinit {
        close()
    }

    /// Records one action the store handled; in the store's turn.
    func record(_ observed: ObservedAction<Key, Action>) {
        // The user's code first, with no lock held: the redaction, the action's and the values'
        // `encode(to:)`, the effect id's description, any of which may call back into the store.
        var problems: [String] = []
        let action: Data?
        if let redaction = journal.redaction {
            switch redaction(observed.action) {
            case .keep: action = encodedAction(observed.action, &problems)
            case .replace(let replacement): action = encodedAction(replacement, &problems)
            case .changesOnly: action = nil
            }
        } else {
            action = encodedAction(observed.action, &problems)
        }
        var effectID: [UInt8] = []
        if case .effect = observed.origin, let id = observed.effectID { effectID = Array(ValueDump.inline(id).utf8) }
        pendingChanges.removeAll(keepingCapacity: true)
        for change in observed.changes {
            guard let index = keyIndex[change.key] else {
                if unrecordedKeys.insert(change.key).inserted {
                    problems.append(
                        "\(ValueDump.inline(change.key)) changed, but the journal does not record it: a replay starts "
                            + "without it")
                }
                continue
            }
            guard let value = encodedValue(change.after, of: index, &problems) else { continue }
            pendingChanges.append((index, value))
        }

        lock.lock()
        defer { lock.unlock() }
        for problem in problems { note(problem) }
        guard file != nil else { return }
        sequence += 1
        let start = JournalFileFormat.beginRecord(.action, in: &buffer)
        buffer.appendInteger(sequence)
        buffer.appendInteger(Self.now())
        buffer.append(JournalOrigin(observed.origin, hasAction: action != nil).rawValue)
        buffer.appendField(effectID)
        buffer.appendField(action ?? Data())
        let countOffset = buffer.count
        buffer.appendInteger(UInt32(0))
        var count: UInt32 = 0
        for (index, value) in pendingChanges where value != values[index] {
            stateHash &-= valueHashes[index]
            valueHashes[index] = value.map { JournalFileFormat.fnv1a64($0, from: hashSeeds[index]) } ?? 0
            stateHash &+= valueHashes[index]
            values[index] = value
            buffer.appendField(names[index].utf8)
            buffer.append(value == nil ? 0 : 1)
            buffer.appendField(value ?? [])
            count += 1
        }
        buffer.withUnsafeMutableBytes {
            $0.storeBytes(of: count.littleEndian, toByteOffset: countOffset, as: UInt32.self)
        }
        buffer.appendInteger(stateHash)
        JournalFileFormat.endRecord(startingAt: start, in: &buffer)
        write()
        if sequence % UInt64(journal.checkpointInterval) == 0 {
            appendCheckpoint()
            noteIfReplaced()
            keepWindow()
        }
    }

    /// Writes a last checkpoint, unless the last action wrote one, and closes the file. With the lock.
    private func close() {
        guard file != nil else { return }
        if sequence % UInt64(journal.checkpointInterval) != 0 {
            appendCheckpoint()
        }
        noteIfReplaced()
        file?.close()
        file = nil
    }

    /// Says so when the file is no longer at its path (removed, or replaced by another program),
    /// and stops recording: what it records is in no file anyone can open. At each checkpoint, and
    /// at the end.
    private func noteIfReplaced() {
        guard let file, !file.isAtItsPath else { return }
        note("the journal \(path) was removed or replaced while it was recorded; the recording stopped")
        file.close()
        self.file = nil
    }

    /// The action's JSON; `nil`, said once, when it does not encode.
    private func encodedAction(_ action: Action, _ problems: inout [String]) -> Data? {
        do {
            return try encoder.encode(action)
        } catch {
            if !hasNotedAnAction {
                hasNotedAnAction = true
                problems.append(
                    Self.shortened(
                        "an action \(ValueDump.inline(action)) cannot be recorded (recorded by its changes): \(error)"))
            }
            return nil
        }
    }

    /// `problem`, cut to 500 characters: a problem names a value, which may be of any size.
    private static func shortened(_ problem: String) -> String {
        problem.count <= 500 ? problem : String(problem.prefix(499)) + "…"
    }

    /// The new value's JSON: `.some(nil)` for a removed key; `nil` (said) when it does not encode.
    private func encodedValue(_ value: Any?, of index: Int, _ problems: inout [String]) -> [UInt8]?? {
        guard let value else { return .some(nil) }
        do {
            return .some(try encoders[index](value, encoder))
        } catch {
            if notedKeys.insert(index).inserted {
                problems.append(Self.shortened("a value of \(names[index]) cannot be recorded: \(error)"))
            }
            return nil
        }
    }

    private func note(_ problem: String) {
        if !noted.contains(problem) { noted.append(problem) }
    }

    /// Writes a checkpoint of the recorded keys.
    private func appendCheckpoint() {
        guard let offset = file?.size else { return }
        let time = Self.now()
        let start = JournalFileFormat.beginRecord(.checkpoint, in: &buffer)
        buffer.appendInteger(sequence)
        buffer.appendInteger(time)
        buffer.appendInteger(stateHash)
        let present = journal.keys.indices.filter { values[$0] != nil }.sorted {
            journal.keys[$0].name < journal.keys[$1].name
        }
        buffer.appendInteger(UInt32(present.count))
        for index in present {
            buffer.appendField(journal.keys[index].name.utf8)
            buffer.appendField(values[index]!)
        }
        JournalFileFormat.endRecord(startingAt: start, in: &buffer)
        checkpoints.append((sequence, time, offset))
        write()
    }

    /// For a windowed journal whose first checkpoint is no longer needed to keep the window: starts
    /// the file again from the newest checkpoint that keeps it, replacing the file atomically (a
    /// rename).
    private func keepWindow() {
        let keep: Int?
        switch journal.window {
        case .unbounded:
            keep = nil
        case .actions(let count):
            keep = checkpoints.lastIndex { $0.sequence + UInt64(count) <= sequence }
        case .duration(let duration):
            let (seconds, overflow) = duration.components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
            let nanoseconds =
                overflow
                ? Int64.max
                : seconds.addingReportingOverflow(duration.components.attoseconds / 1_000_000_000).partialValue
            let now = Self.now()
            keep = checkpoints.lastIndex { $0.time <= now - nanoseconds }
        }
        guard let keep, keep > 0 else { return }
        guard let old = file else { return }
        let from = checkpoints[keep].offset
        do throws(JournalError) {
            let replacement = try JournalFile(path: path, replacingOwn: true)
            try replacement.append(headerBytes + old.bytes(from: from), isRecord: false)
            try replacement.install()
            old.close()
            file = replacement
            let shift = headerBytes.count - from
            checkpoints = checkpoints[keep...].map { ($0.sequence, $0.time, $0.offset + shift) }
        } catch {
            note("the journal could not drop the actions before its window: \(error)")
        }
    }

    /// Appends the buffer to the file, and empties it; a failure is a problem, and ends the recording.
    private func write(isRecord: Bool = true) {
        guard let file else { return }
        do {
            try file.append(buffer, isRecord: isRecord)
        } catch {
            note("\(error); the recording stopped")
            file.close()
            self.file = nil
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// A key's share of the state's hash: of its name and its value's JSON.
    static func share(of key: JournalKey<Key>, _ value: [UInt8]?) -> UInt64 {
        guard let value else { return 0 }
        return JournalFileFormat.fnv1a64(value, from: key.hashSeed)
    }

    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
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
