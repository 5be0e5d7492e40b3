import Foundation

extension RecordedJournal {
    /// Handles the journal's actions again, in order, through `actionHandler`, from the state the
    /// journal starts with, and compares the recorded keys' state after each step with the
    /// recording's.
    ///
    /// ```swift
    /// let replay = try recorded.replay(actionHandler: postsHandler, dependency: .unimplemented)
    /// #expect(replay.divergence == nil)
    /// ```
    ///
    /// Effects are not run: the handler's effects are dropped, and the actions they delivered are
    /// handled where the recording has them, so `dependency` is used only by the handler itself
    /// (pass `unimplemented` clients to prove that nothing is called). An action recorded by its
    /// changes alone has them applied as recorded.
    ///
    /// - Parameters:
    ///   - actionHandler: The handler to replay through: today's, which may differ from the one that
    ///     recorded.
    ///   - dependency: Passed to the handler with each action.
    ///   - skipping: Steps (from 0) to leave out: time travel's "what if this action had not
    ///     happened". The state is then expected to differ from the recording after the first one.
    /// - Returns: The state after the last step, and the first step whose state differs from the
    ///   recording's, if one does.
    /// - Throws: ``JournalError`` when a recorded value does not decode or a replayed one does not
    ///   encode.
    public func replay<Dependency>(
        actionHandler: StoreActionHandler<Key, Action, Dependency>, dependency: Dependency, skipping: Set<Int> = []
    ) throws(JournalError) -> JournalReplay<Key, Action> {
        var recorded = try encodedState(at: 0)
        var replayed = recorded
        let store = Store(initialValues: try decode(recorded), actionHandler: actionHandler, dependency: dependency)
        let keyIndex = Dictionary(uniqueKeysWithValues: journal.keys.indices.map { (journal.keys[$0].key, $0) })
        let encoder = JSONEncoder.canonical()
        var divergence: JournalDivergence<Key, Action>?
        var hash = stateHash(of: replayed)
        try forEachStep(from: 0) { index, raw throws(JournalError) in
            for change in raw.changes { recorded[try keyPosition(of: change.name)] = change.value }
            if !skipping.contains(index) {
                var changed: [(index: Int, value: [UInt8]?)] = []
                if raw.origin == .changesOnly {
                    for change in raw.changes { changed.append((try keyPosition(of: change.name), change.value)) }
                    try apply(changed, to: store)
                } else {
                    let action = try Self.decodeAction(raw.action, step: index)
                    for change in store.inTurn({ store.engine.apply(action, recordingChanges: true).changes }) {
                        guard let keyIndex = keyIndex[change.key] else { continue }
                        changed.append((keyIndex, try encode(change.after, of: journal.keys[keyIndex], encoder)))
                    }
                }
                for (keyIndex, value) in changed {
                    let key = journal.keys[keyIndex]
                    hash =
                        hash &- JournalRecorder<Key, Action>.share(of: key, replayed[keyIndex])
                        &+ JournalRecorder<Key, Action>.share(of: key, value)
                    replayed[keyIndex] = value
                }
            }
            if divergence == nil, hash != raw.stateHash {
                try settleEqualValues(recorded: recorded, replayed: &replayed, hash: &hash)
            }
            if divergence == nil, hash != raw.stateHash {
                divergence = try JournalDivergence(
                    step: index, raw: raw,
                    action: raw.origin == .changesOnly ? nil : Self.decodeAction(raw.action, step: index),
                    differences: differences(recorded: recorded, replayed: replayed))
            }
            return true
        }
        return JournalReplay(
            state: store.allValues, stateJSON: Self.canonicalJSON(replayed, keys: journal.keys), divergence: divergence,
            steps: steps - skipping.count { (0..<steps).contains($0) })
    }

    /// Takes the recording's JSON for each key whose replayed value differs from it in its bytes but
    /// not as a value: a `Set`, or a dictionary `JSONEncoder` writes as an array, may list equal
    /// elements in another order from one process to the next.
    private func settleEqualValues(recorded: [[UInt8]?], replayed: inout [[UInt8]?], hash: inout UInt64)
        throws(JournalError)
    {
        let decoder = JSONDecoder()
        for index in journal.keys.indices where recorded[index] != replayed[index] {
            guard let recordedValue = recorded[index], let replayedValue = replayed[index] else { continue }
            let key = journal.keys[index]
            let values: (Any, Any)
            do {
                values = (try key.decode(Data(recordedValue), decoder), try key.decode(Data(replayedValue), decoder))
            } catch {
                throw .undecodableValue(key: key.name, valueType: "\(key.valueType)", message: "\(error)")
            }
            guard firstDifference(values.0, values.1) == nil else { continue }
            hash =
                hash &- JournalRecorder<Key, Action>.share(of: key, replayedValue)
                &+ JournalRecorder<Key, Action>.share(of: key, recordedValue)
            replayed[index] = recordedValue
        }
    }

    /// The hash the recorder writes after each step, of the values `values`.
    func stateHash(of values: [[UInt8]?]) -> UInt64 {
        journal.keys.indices.reduce(0) { $0 &+ JournalRecorder<Key, Action>.share(of: journal.keys[$1], values[$1]) }
    }

    /// Writes changes recorded without their action to the replaying store.
    private func apply(_ changes: [(index: Int, value: [UInt8]?)], to store: Store<Key, Action, some Any>)
        throws(JournalError)
    {
        var written = [[UInt8]?](repeating: nil, count: journal.keys.count)
        var keys: [Key] = []
        for (index, value) in changes {
            written[index] = value
            keys.append(journal.keys[index].key)
        }
        let decoded = try decode(written)
        var newValues = keys.map { decoded[$0] }
        store.inTurn { store.engine.state.writeAll(keys, &newValues) }
    }

    private func encode(_ value: Any?, of key: JournalKey<Key>, _ encoder: JSONEncoder) throws(JournalError) -> [UInt8]?
    {
        guard let value else { return nil }
        do {
            return try key.encode(value, encoder)
        } catch {
            throw .unencodableValue(key: key.name, message: "\(error)")
        }
    }

    /// The recorded keys whose values differ, sorted by name.
    private func differences(recorded: [[UInt8]?], replayed: [[UInt8]?]) throws(JournalError) -> [JournalKeyDifference<
        Key
    >] {
        let decodedRecorded = try decode(recorded)
        let decodedReplayed = try decode(replayed)
        return journal.keys.indices.filter { recorded[$0] != replayed[$0] }.sorted {
            journal.keys[$0].name < journal.keys[$1].name
        }
        .map { index in
            let key = journal.keys[index]
            return JournalKeyDifference(
                key: key.key, name: key.name, recorded: decodedRecorded[key.key], replayed: decodedReplayed[key.key],
                recordedJSON: recorded[index].map { String(decoding: $0, as: UTF8.self) },
                replayedJSON: replayed[index].map { String(decoding: $0, as: UTF8.self) })
        }
    }
}

extension RecordedJournal {
    /// ``replay(actionHandler:dependency:skipping:)`` for a handler that needs no dependency.
    ///
    /// - Parameters:
    ///   - actionHandler: The handler to replay through.
    ///   - skipping: Steps (from 0) to leave out.
    /// - Returns: The state after the last step, and the first step that differs, if one does.
    /// - Throws: ``JournalError``.
    public func replay(
        actionHandler: StoreActionHandler<Key, Action, Void>, skipping: Set<Int> = []
    ) throws(JournalError) -> JournalReplay<Key, Action> {
        try replay(actionHandler: actionHandler, dependency: (), skipping: skipping)
    }
}

/// What a replay of a journal ended with (see ``RecordedJournal/replay(actionHandler:dependency:skipping:)``).
///
/// ```swift
/// let replay = try recorded.replay(actionHandler: handler, dependency: .unimplemented)
/// #expect(replay.stateJSON == (try recorded.stateJSON(at: recorded.steps)))
/// ```
///
/// ## Topics
///
/// ### The outcome
///
/// - ``divergence``
/// - ``state``
/// - ``stateJSON``
/// - ``steps``
public struct JournalReplay<Key: Hashable & SendableMetatype, Action>: @unchecked Sendable {
    /// Every key's value after the last step: the recorded keys, and any other the handler wrote.
    public let state: [Key: Any]
    /// The recorded keys' values after the last step, as ``RecordedJournal/stateJSON(at:)`` writes
    /// them: equal byte for byte to the recording's when the replay did not diverge.
    public let stateJSON: Data
    /// The first step after which the recorded keys' state differs from the recording's; `nil`
    /// when none does.
    public let divergence: JournalDivergence<Key, Action>?
    /// How many steps were handled or applied (those skipped are not).
    public let steps: Int
}

/// The first step of a replay whose state differs from the recording's: which step, its action,
/// and each recorded key that differs.
///
/// ```swift
/// if let divergence = replay.divergence {
///     print(divergence)
///     // step 41 (sequence 42, sent .search("swift")): the state differs from the recording
///     //   .query: recorded "swift", replayed "Swift"
/// }
/// ```
///
/// ## Topics
///
/// ### Where
///
/// - ``step``
/// - ``sequence``
/// - ``origin``
/// - ``action``
/// - ``stepDescription``
///
/// ### What differs
///
/// - ``differences``
/// - ``JournalKeyDifference``
/// - ``description``
public struct JournalDivergence<Key: Hashable & SendableMetatype, Action>: @unchecked Sendable, CustomStringConvertible
{
    /// The step's index in the journal, from 0.
    public let step: Int
    /// The step's number in the recording.
    public let sequence: UInt64
    /// Where its action came from.
    public let origin: JournalStep<Action>.Origin
    /// The action replayed (`nil` for one recorded by its changes).
    public let action: Action?
    /// Each recorded key whose value differs, sorted by name.
    public let differences: [JournalKeyDifference<Key>]

    init(step: Int, raw: RawStep, action: Action?, differences: [JournalKeyDifference<Key>]) {
        self.step = step
        sequence = raw.sequence
        origin = JournalStep<Action>(raw: raw, action: action).origin
        self.action = action
        self.differences = differences
    }

    /// The step, its sequence number and its action: `step 41 (sequence 42, sent .search("swift"))`.
    public var stepDescription: String {
        let what: String
        switch origin {
        case .sent: what = "sent \(ValueDump.inline(action as Any))"
        case .immediate: what = "immediate \(ValueDump.inline(action as Any))"
        case .effect(let id): what = "\(ValueDump.inline(action as Any)) from the effect \(id)"
        case .changesOnly: what = "changes recorded without their action"
        }
        return "step \(step) (sequence \(sequence), \(what))"
    }

    /// The step, then each key that differs with its recorded and replayed JSON.
    public var description: String {
        "\(stepDescription): the state differs from the recording\n"
            + differences.map {
                "  \($0.name): recorded \($0.recordedJSON ?? "nothing"), replayed \($0.replayedJSON ?? "nothing")"
            }
            .joined(separator: "\n")
    }
}

/// A recorded key whose value after a step differs between the recording and a replay.
///
/// ```swift
/// for difference in divergence.differences {
///     print(difference.name, difference.recordedJSON ?? "nothing", difference.replayedJSON ?? "nothing")
/// }
/// ```
///
/// ## Topics
///
/// ### The key
///
/// - ``key``
/// - ``name``
///
/// ### Its values
///
/// - ``recorded``
/// - ``replayed``
/// - ``recordedJSON``
/// - ``replayedJSON``
public struct JournalKeyDifference<Key: Hashable & SendableMetatype>: @unchecked Sendable {
    /// The key.
    public let key: Key
    /// The key's name in the journal (`.query`).
    public let name: String
    /// Its value in the recording; `nil` when it had none.
    public let recorded: Any?
    /// Its value in the replay; `nil` when it had none.
    public let replayed: Any?
    /// The recorded value's JSON.
    public let recordedJSON: String?
    /// The replayed value's JSON.
    public let replayedJSON: String?
}
