import Foundation

/// A journal read back from its file: its steps, the recorded state at any step, and a replay of
/// its actions through a handler.
///
/// ```swift
/// let recorded = try RecordedJournal(contentsOf: sessionURL, journal: journal)
/// let middle = try recorded.state(at: recorded.steps / 2)  // the nearest checkpoint, then forward
/// let replay = try recorded.replay(actionHandler: postsHandler, dependency: .unimplemented)
/// if let divergence = replay.divergence { print(divergence) }  // the first step that differs
/// ```
///
/// Reading checks every record's length and checksum, the types that recorded the journal, its
/// keys, and that every action still decodes, so that each of these is a ``JournalError`` before
/// any state is made. A file cut off inside its last record (a process killed while writing it)
/// reads up to the record before it, and says so in ``isCutShort``; so does a record whose length
/// reads as zero, which is what a record being written has. The file is read with `pread`, never
/// mapped, and every record's checksum is checked each time it is read: a file changed or cut
/// under a reader is a ``JournalError``, never a crash. What stays in memory is an offset per
/// checkpoint, and the state a call decodes.
///
/// ## Topics
///
/// ### Reading a journal
///
/// - ``init(contentsOf:journal:)``
/// - ``journal``
/// - ``steps``
/// - ``step(_:)``
/// - ``steps(_:)``
/// - ``JournalStep``
/// - ``isCutShort``
/// - ``recordedBytes``
///
/// ### Travelling in time
///
/// - ``state(at:)``
/// - ``stateJSON(at:)``
///
/// ### Replaying
///
/// - ``replay(actionHandler:dependency:skipping:)``
/// - ``replay(actionHandler:skipping:)``
/// - ``JournalReplay``
/// - ``JournalDivergence``
public final class RecordedJournal<Key: Hashable & SendableMetatype, Action: Codable>: @unchecked Sendable {
    /// The journal's settings it is read with: its keys' types.
    public let journal: Journal<Key, Action>
    /// Whether the file ends inside a record, which is left out: a process was killed while writing it.
    public let isCutShort: Bool
    private let file: JournalFileReader
    /// How many actions the file holds.
    public let steps: Int
    /// Where the last whole record ends.
    private let end: Int

    /// The bytes of the journal's whole records: its size without the zeros a recorder reserves past
    /// them, or a record cut short.
    public var recordedBytes: Int { end }
    /// Each checkpoint: the number of steps before it, and its record's offset.
    private let checkpoints: [(step: Int, offset: Int)]
    let keyIndex: [String: Int]

    /// Reads the journal at `url`, with the key types of `journal`.
    ///
    /// - Parameters:
    ///   - url: The journal's file.
    ///   - journal: The settings it was recorded with (its file is not read): every recorded key
    ///     must be listed, with the type it was recorded with.
    /// - Throws: ``JournalError``: a file that cannot be read, is not a journal, is of a later
    ///   format, was recorded by other types, records an unlisted key, has a damaged record before its
    ///   last, or holds an action that no longer decodes.
    public init(contentsOf url: URL, journal: Journal<Key, Action>) throws(JournalError) {
        self.journal = journal
        let path = url.path
        let keyIndex = Dictionary(uniqueKeysWithValues: journal.keys.indices.map { (journal.keys[$0].name, $0) })
        self.keyIndex = keyIndex
        let file = try JournalFileReader(path: path)
        var steps = 0
        var checkpoints: [(step: Int, offset: Int)] = []
        let scan = try Self.scan(file, path: path, keyIndex: keyIndex, journal: journal) {
            kind, offset, payload throws(JournalError) in
            switch kind {
            case .header: break
            case .checkpoint:
                checkpoints.append((steps, offset))
            case .action:
                let step = try RawStep.parse(payload, at: offset)
                if step.origin != .changesOnly {
                    _ = try Self.decodeAction(step.action, step: steps)
                }
                for change in step.changes where keyIndex[change.name] == nil { throw .unknownKey(change.name) }
                steps += 1
            }
        }
        guard checkpoints.first?.step == 0 else {
            throw .corruptRecord(offset: scan.end, reason: "the journal ends before its first checkpoint")
        }
        isCutShort = scan.isCutShort
        self.file = file
        self.steps = steps
        self.checkpoints = checkpoints
        end = scan.end
    }

    /// The action at `index` (from 0), and where it came from.
    ///
    /// - Parameter index: The step, from 0.
    /// - Returns: The step's action, origin, number, time and changed keys.
    /// - Throws: ``JournalError/noSuchStep(_:steps:)`` for an index out of the journal.
    public func step(_ index: Int) throws(JournalError) -> JournalStep<Action> {
        guard (0..<steps).contains(index) else { throw .noSuchStep(index, steps: steps) }
        var found: RawStep?
        try forEachStep(from: index) { _, raw in
            found = raw
            return false
        }
        let raw = found!
        let action = raw.origin == .changesOnly ? nil : try Self.decodeAction(raw.action, step: index)
        return JournalStep(raw: raw, action: action)
    }

    /// The steps of `range`, read in one pass: cheaper than ``step(_:)`` for each.
    ///
    /// ```swift
    /// let delivered = try recorded.steps(0..<recorded.steps).filter { step in
    ///     if case .effect = step.origin { true } else { false }
    /// }
    /// ```
    ///
    /// - Parameter range: The steps, from 0.
    /// - Returns: Each step's action, origin, number, time and changed keys, in order.
    /// - Throws: ``JournalError/noSuchStep(_:steps:)`` for a range out of the journal.
    public func steps(_ range: Range<Int>) throws(JournalError) -> [JournalStep<Action>] {
        guard range.lowerBound >= 0, range.upperBound <= steps else {
            throw .noSuchStep(range.lowerBound < 0 ? range.lowerBound : range.upperBound - 1, steps: steps)
        }
        var found: [JournalStep<Action>] = []
        guard !range.isEmpty else { return found }
        found.reserveCapacity(range.count)
        try forEachStep(from: range.lowerBound) { index, raw throws(JournalError) in
            guard index < range.upperBound else { return false }
            let action = raw.origin == .changesOnly ? nil : try Self.decodeAction(raw.action, step: index)
            found.append(JournalStep(raw: raw, action: action))
            return true
        }
        return found
    }

    /// The recorded keys' values after the first `steps` steps (`0`: the state the journal starts
    /// from): the nearest checkpoint, then the recorded changes, with no handler run.
    ///
    /// - Parameter steps: How many steps have been handled, from 0 to ``steps``.
    /// - Returns: Each recorded key's value then, by key; a key with no value is absent.
    /// - Throws: ``JournalError/noSuchStep(_:steps:)`` past the end; ``JournalError/undecodableValue(key:valueType:message:)``.
    public func state(at steps: Int) throws(JournalError) -> [Key: Any] {
        try decode(encodedState(at: steps))
    }

    /// The recorded keys' values after the first `steps` steps, as one JSON object whose keys are
    /// the keys' names, sorted: byte for byte what a replay to that step holds.
    ///
    /// - Parameter steps: How many steps have been handled, from 0 to ``steps``.
    /// - Returns: `{"name":value,…}`, the names sorted.
    /// - Throws: ``JournalError/noSuchStep(_:steps:)`` past the end.
    public func stateJSON(at steps: Int) throws(JournalError) -> Data {
        Self.canonicalJSON(try encodedState(at: steps), keys: journal.keys)
    }

    // MARK: - Records

    /// The state's values' JSON after `steps` steps, by key index.
    func encodedState(at steps: Int) throws(JournalError) -> [[UInt8]?] {
        guard (0...self.steps).contains(steps) else { throw .noSuchStep(steps, steps: self.steps) }
        let checkpoint = checkpoints[nearestCheckpoint(to: steps)]
        var values = try checkpointValues(at: checkpoint.offset)
        try forEachStep(from: checkpoint.step) { index, raw throws(JournalError) in
            guard index < steps else { return false }
            for change in raw.changes { values[try keyPosition(of: change.name)] = change.value }
            return true
        }
        return values
    }

    /// The index of the recorded key named `name`: read again after the scan, a file changed since
    /// may name one the journal does not list.
    func keyPosition(of name: String) throws(JournalError) -> Int {
        guard let index = keyIndex[name] else { throw .unknownKey(name) }
        return index
    }

    /// The index of the last checkpoint at or before `step`.
    private func nearestCheckpoint(to step: Int) -> Int {
        var low = 0
        var high = checkpoints.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if checkpoints[middle].step <= step { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Hands each step from `first` on to `body`, in order, with its record, until `body` returns
    /// `false` or the journal ends: from the nearest checkpoint, skipping the records before `first`.
    func forEachStep(from first: Int, _ body: (Int, RawStep) throws(JournalError) -> Bool) throws(JournalError) {
        let checkpoint = checkpoints[nearestCheckpoint(to: first)]
        var cursor = JournalCursor(file)
        var offset = checkpoint.offset
        var index = checkpoint.step
        while offset < end, index < steps {
            guard case .record(let kind, let payload, let recordEnd) = cursor.record(at: offset) else {
                throw .corruptRecord(offset: offset, reason: "the file changed since the journal was read")
            }
            if kind == JournalRecordKind.action.rawValue {
                if index >= first {
                    let raw = try withBytes(of: payload) { bytes throws(JournalError) in
                        try RawStep.parse(bytes, at: offset)
                    }
                    guard try body(index, raw) else { return }
                }
                index += 1
            }
            offset = recordEnd
        }
    }

    /// The values of the checkpoint at `offset`, by key index.
    func checkpointValues(at offset: Int) throws(JournalError) -> [[UInt8]?] {
        try withPayload(at: offset) { payload throws(JournalError) in
            var reader = JournalPayloadReader(payload)
            guard reader.integer(UInt64.self) != nil, reader.integer(Int64.self) != nil,
                reader.integer(UInt64.self) != nil, let count = reader.integer(UInt32.self)
            else { throw .corruptRecord(offset: offset, reason: "a checkpoint ends early") }
            var values = [[UInt8]?](repeating: nil, count: journal.keys.count)
            for _ in 0..<count {
                guard let name = reader.text(), let value = reader.field() else {
                    throw .corruptRecord(offset: offset, reason: "a checkpoint ends early")
                }
                guard let index = keyIndex[name] else { throw .unknownKey(name) }
                values[index] = Array(value)
            }
            return values
        }
    }

    private func withPayload<Value>(
        at offset: Int, _ body: (UnsafeRawBufferPointer) throws(JournalError) -> Value
    ) throws(JournalError) -> Value {
        var cursor = JournalCursor(file)
        guard case .record(_, let payload, _) = cursor.record(at: offset) else {
            throw .corruptRecord(offset: offset, reason: "the file changed since the journal was read")
        }
        return try withBytes(of: payload, body)
    }

    /// Decodes each value by its key's type.
    func decode(_ values: [[UInt8]?]) throws(JournalError) -> [Key: Any] {
        let decoder = JSONDecoder()
        var state: [Key: Any] = [:]
        for (index, value) in values.enumerated() {
            guard let value else { continue }
            let key = journal.keys[index]
            do {
                state[key.key] = try key.decode(Data(value), decoder)
            } catch {
                throw .undecodableValue(key: key.name, valueType: "\(key.valueType)", message: "\(error)")
            }
        }
        return state
    }

    static func decodeAction(_ bytes: [UInt8], step: Int) throws(JournalError) -> Action {
        do {
            return try JSONDecoder().decode(Action.self, from: Data(bytes))
        } catch {
            throw .undecodableAction(step: step, actionType: String(reflecting: Action.self), message: "\(error)")
        }
    }

    /// `{"name":value,…}`, names sorted.
    static func canonicalJSON(_ values: [[UInt8]?], keys: [JournalKey<Key>]) -> Data {
        var json = Data("{".utf8)
        let present = keys.indices.filter { values[$0] != nil }.sorted { keys[$0].name < keys[$1].name }
        for (position, index) in present.enumerated() {
            if position > 0 { json.append(UInt8(ascii: ",")) }
            json.append((try? JSONEncoder.canonical().encode(keys[index].name)) ?? Data())
            json.append(UInt8(ascii: ":"))
            json.append(contentsOf: values[index]!)
        }
        json.append(UInt8(ascii: "}"))
        return json
    }

    // MARK: - Scanning

    /// Walks the file's records, checking each frame, and hands each record's kind, offset and
    /// payload to `visit`.
    ///
    /// - Returns: Where the last whole record ends, and whether bytes of a torn record follow it.
    private static func scan(
        _ file: JournalFileReader, path: String, keyIndex: [String: Int], journal: Journal<Key, Action>,
        _ visit: (JournalRecordKind, Int, UnsafeRawBufferPointer) throws(JournalError) -> Void
    ) throws(JournalError) -> (end: Int, isCutShort: Bool) {
        let magic = Array(JournalFileFormat.magic.utf8)
        let firstLine = file.read(at: 0, count: magic.count + 24)
        guard firstLine.starts(with: magic), let lineEnd = firstLine[magic.count...].firstIndex(of: UInt8(ascii: "\n")),
            let version = Int(String(decoding: firstLine[magic.count..<lineEnd], as: UTF8.self)), version >= 1
        else { throw .notAJournal(path: path) }
        guard version <= JournalFileFormat.version else { throw .newerFormat(version) }
        var cursor = JournalCursor(file)
        var offset = lineEnd + 1
        var isFirst = true
        while true {
            let found = cursor.record(at: offset)
            switch found {
            case .end(let isCutShort):
                if isFirst { throw .notAJournal(path: path) }
                return (offset, isCutShort)
            case .damaged(let reason):
                throw .corruptRecord(offset: offset, reason: reason)
            case .record(let kindByte, let payload, let end):
                guard let kind = JournalRecordKind(rawValue: kindByte), (kind == .header) == isFirst else {
                    throw .corruptRecord(
                        offset: offset, reason: isFirst ? "the journal has no header" : "its kind is unknown")
                }
                try withBytes(of: payload) { payload throws(JournalError) in
                    if kind == .header { try checkHeader(payload, offset: offset, keyIndex: keyIndex) }
                    try visit(kind, offset, payload)
                }
                isFirst = false
                offset = end
            }
        }
    }

    private static func checkHeader(_ payload: UnsafeRawBufferPointer, offset: Int, keyIndex: [String: Int])
        throws(JournalError)
    {
        guard let header = try? JSONDecoder().decode(JournalHeader.self, from: Data(payload)) else {
            throw .corruptRecord(offset: offset, reason: "its header is not readable")
        }
        let expected = (String(reflecting: Key.self), String(reflecting: Action.self))
        guard (header.keyType, header.actionType) == expected else {
            throw .otherTypes(
                recorded: "Store<\(header.keyType), \(header.actionType)>",
                expected: "Store<\(expected.0), \(expected.1)>")
        }
        if let unknown = header.keys.first(where: { keyIndex[$0] == nil }) { throw .unknownKey(unknown) }
    }
}

/// One recorded action, as a ``RecordedJournal`` gives it.
///
/// ```swift
/// let step = try recorded.step(41)
/// print(step.sequence, step.origin, step.action as Any)
/// ```
///
/// ## Topics
///
/// ### The action
///
/// - ``action``
/// - ``origin``
/// - ``Origin``
/// - ``sequence``
/// - ``time``
/// - ``changedKeys``
public struct JournalStep<Action>: @unchecked Sendable {
    /// Where a recorded action came from.
    ///
    /// ```swift
    /// if case .effect(let id) = try recorded.step(3).origin { print("delivered by \(id)") }
    /// ```
    ///
    /// ## Topics
    ///
    /// ### Origins
    ///
    /// - ``sent``
    /// - ``immediate``
    /// - ``effect(id:)``
    /// - ``changesOnly``
    public enum Origin: Sendable, Equatable {
        /// Sent with `handle(action:)`.
        case sent
        /// Returned by a handler as an immediate action.
        case immediate
        /// Sent by an effect; its id as the debug log writes it.
        case effect(id: String)
        /// Recorded by its changes alone (``JournalRedaction/changesOnly``).
        case changesOnly
    }

    /// Its number in the recording: the first action recorded is 1.
    public let sequence: UInt64
    /// When the store handled it.
    public let time: Date
    /// Where it came from.
    public let origin: Origin
    /// The action as recorded (its replacement, for a redacted one); `nil` when only its changes
    /// were recorded.
    public let action: Action?
    /// The names of the recorded keys whose values it changed.
    public let changedKeys: [String]

    init(raw: RawStep, action: Action?) {
        sequence = raw.sequence
        time = Date(timeIntervalSince1970: Double(raw.time) / 1_000_000_000)
        switch raw.origin {
        case .sent: origin = .sent
        case .immediate: origin = .immediate
        case .effect: origin = .effect(id: raw.effectID)
        case .changesOnly: origin = .changesOnly
        }
        self.action = action
        changedKeys = raw.changes.map(\.name)
    }
}

/// An action record's fields.
struct RawStep {
    var sequence: UInt64
    var time: Int64
    var origin: JournalOrigin
    var effectID: String
    var action: [UInt8]
    var changes: [(name: String, value: [UInt8]?)]
    var stateHash: UInt64

    static func parse(_ payload: UnsafeRawBufferPointer, at offset: Int) throws(JournalError) -> RawStep {
        var reader = JournalPayloadReader(payload)
        guard let sequence = reader.integer(UInt64.self), let time = reader.integer(Int64.self),
            let originByte = reader.integer(UInt8.self), let effectID = reader.text(), let action = reader.field(),
            let count = reader.integer(UInt32.self)
        else { throw .corruptRecord(offset: offset, reason: "an action ends early") }
        guard let origin = JournalOrigin(rawValue: originByte) else {
            throw .corruptRecord(offset: offset, reason: "an action's origin is unknown")
        }
        var changes: [(name: String, value: [UInt8]?)] = []
        for _ in 0..<count {
            guard let name = reader.text(), let present = reader.integer(UInt8.self), let value = reader.field() else {
                throw .corruptRecord(offset: offset, reason: "an action ends early")
            }
            changes.append((name, present == 0 ? nil : Array(value)))
        }
        guard let stateHash = reader.integer(UInt64.self), reader.isAtEnd else {
            throw .corruptRecord(offset: offset, reason: "an action's length does not match its fields")
        }
        return RawStep(
            sequence: sequence, time: time, origin: origin, effectID: effectID, action: Array(action), changes: changes,
            stateHash: stateHash)
    }
}

/// `body` over the bytes of `array`, with its typed error.
func withBytes<Value>(
    of array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(JournalError) -> Value
) throws(JournalError) -> Value {
    let result = array.withUnsafeBytes { bytes -> Result<Value, JournalError> in
        do throws(JournalError) {
            return .success(try body(bytes))
        } catch {
            return .failure(error)
        }
    }
    return try result.get()
}
