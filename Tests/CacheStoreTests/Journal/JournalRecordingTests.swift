import Foundation
import Testing

@testable import CacheStore

/// Recording a journal: every action the handler runs, with its origin and the recorded keys it
/// changed, checkpoints, redaction, windows; and reading it back, a file cut short or damaged
/// included.
@Suite(.timeLimit(.minutes(2))) struct JournalRecordingTests {
    @Test func eachActionIsRecordedWithItsOriginSequenceAndChanges() async throws {
        try await inTemporaryJournal { file in
            let store = Store(initialValues: [NoteKey.count: 5], actionHandler: noteHandler)
            let recorder = try store.startRecording(noteJournal(file))
            store.handle(action: .type("hello"))
            store.handle(action: .echo)
            store.handle(action: .fetch)
            while store[.tags].isEmpty { await Task.yield() }
            store.handle(action: .clear)
            recorder.stop()
            #expect(recorder.recordedSteps == 6)

            let recorded = try RecordedJournal(contentsOf: file, journal: noteJournal(file))
            #expect(recorded.steps == 6)
            #expect(!recorded.isCutShort)
            let steps = try recorded.steps(0..<6)
            #expect(try steps.map(\.sequence) == (0..<6).map { try recorded.step($0).sequence })
            #expect(throws: JournalError.noSuchStep(6, steps: 6)) { try recorded.steps(2..<7) }
            #expect(steps.map(\.sequence) == [1, 2, 3, 4, 5, 6])
            #expect(steps.map(\.action) == [.type("hello"), .echo, .increment, .fetch, .tag("fetched"), .clear])
            #expect(steps.map(\.origin) == [.sent, .sent, .immediate, .sent, .effect(id: "\"fetch\""), .sent])
            #expect(steps.map(\.changedKeys) == [[".text"], [], [".count"], [], [".tags"], [".text"]])
            #expect(steps.map(\.time) == steps.map(\.time).sorted())
            #expect(try String(decoding: recorded.stateJSON(at: 0), as: UTF8.self) == #"{".count":5}"#)
            #expect(
                try String(decoding: recorded.stateJSON(at: 6), as: UTF8.self)
                    == #"{".count":6,".tags":["fetched"]}"#)
            #expect(try recorded.state(at: 1)[.text] as? String == "hello")
            #expect(try recorded.state(at: 6)[.text] == nil)
        }
    }

    @Test func theStateAtEveryStepIsTheLiveStateThen() async throws {
        try await inTemporaryJournal { file in
            let journal = noteJournal(file, checkpointInterval: 7)
            let store = Store(initialValues: [:], actionHandler: noteHandler)
            let recorder = try store.startRecording(journal)
            var live = [store.allValues]
            for index in 0..<50 {
                let actions: [NoteAction] = [.type("t\(index)"), .increment, .tag("\(index % 3)"), .clear]
                store.handle(action: actions[index % actions.count])
                live.append(store.allValues)
            }
            recorder.stop()
            let recorded = try RecordedJournal(contentsOf: file, journal: journal)
            #expect(recorded.steps == 50)
            for (step, state) in live.enumerated() {
                let jumped = try recorded.state(at: step)
                #expect(Set(jumped.keys) == Set(state.keys), "step \(step)")
                #expect(jumped[.text] as? String == state[.text] as? String, "step \(step)")
                #expect(jumped[.count] as? Int == state[.count] as? Int, "step \(step)")
                #expect(jumped[.tags] as? [String] == state[.tags] as? [String], "step \(step)")
            }
            #expect(throws: JournalError.noSuchStep(51, steps: 50)) { try recorded.state(at: 51) }
            #expect(throws: JournalError.noSuchStep(50, steps: 50)) { try recorded.step(50) }
        }
    }

    @Test func redactionRecordsAReplacementOrTheChangesAloneAndUnlistedKeysAreProblems() async throws {
        try await inTemporaryJournal { file in
            let journal = noteJournal(file).redacting { action in
                switch action {
                case .type, .setSecret: .changesOnly
                case .tag: .replace(.tag("redacted"))
                default: .keep
                }
            }
            let store = Store(initialValues: [:], actionHandler: noteHandler)
            let recorder = try store.startRecording(journal)
            store.handle(action: .type("password"))
            store.handle(action: .tag("private"))
            store.handle(action: .setSecret("x"))
            store.handle(action: .setSecret("y"))
            recorder.stop()
            #expect(
                recorder.problems == [".secret changed, but the journal does not record it: a replay starts without it"]
            )
            let recorded = try RecordedJournal(contentsOf: file, journal: journal)
            #expect(try recorded.step(0).action == nil)
            #expect(try recorded.step(0).origin == .changesOnly)
            #expect(try recorded.step(0).changedKeys == [".text"])
            #expect(try recorded.step(1).action == .tag("redacted"))
            #expect(try recorded.step(1).changedKeys == [".tags"])
            #expect(try recorded.step(2).origin == .changesOnly)
            #expect(try recorded.step(2).changedKeys == [])
            // The secret is neither an action in the file nor a recorded key; the tag's value is.
            let bytes = try Data(contentsOf: file)
            #expect(bytes.firstRange(of: Data("setSecret".utf8)) == nil)
            #expect(bytes.firstRange(of: Data("\"x\"".utf8)) == nil)
            #expect(bytes.firstRange(of: Data("\"private\"".utf8)) != nil)
        }
    }

    @Test func stoppingDetachesTheRecorderAndReleasingTheStoreEndsTheFile() async throws {
        try await inTemporaryJournal { file in
            var store: Store<NoteKey, NoteAction, Void>? = Store(initialValues: [:], actionHandler: noteHandler)
            let recorder = try store!.startRecording(noteJournal(file, checkpointInterval: 100))
            store!.handle(action: .increment)
            store = nil
            let recorded = try RecordedJournal(contentsOf: file, journal: noteJournal(file))
            #expect(recorded.steps == 1)
            #expect(try String(decoding: recorded.stateJSON(at: 1), as: UTF8.self) == #"{".count":1}"#)
            recorder.stop()  // after the store: nothing to do

            let second = Store(initialValues: [:], actionHandler: noteHandler)
            let secondRecorder = try second.startRecording(noteJournal(file))
            #expect(second.engine.observer != nil)
            secondRecorder.stop()
            second.handle(action: .increment)
            #expect(second.engine.observer == nil)
            #expect(try RecordedJournal(contentsOf: file, journal: noteJournal(file)).steps == 0)
        }
    }

    /// A value's `encode(to:)` runs with no lock held: it may read the recorder, send the store an
    /// action (handled after the one being recorded) and stop the recording.
    @Test(.serialized, arguments: [false, true]) func aValueThatCallsBackWhileItIsRecorded(stopping: Bool) async throws
    {
        try await inTemporaryJournal { file in
            let journal = Journal<ReenteringKey, Int>(file: file).recording(.value)
            let store = Store(initialValues: [:], actionHandler: reenteringHandler)
            let recorder = try store.startRecording(journal)
            var problems: [[String]] = []
            ReenteringValue.hook = {
                problems.append(recorder.problems)
                if store[.value]?.number == 1 { store.handle(action: 2) }
                if stopping { recorder.stop() }
            }
            defer { ReenteringValue.hook = nil }
            store.handle(action: 1)
            ReenteringValue.hook = nil
            recorder.stop()
            #expect(store[.value]?.number == 2)
            #expect(problems.count == (stopping ? 1 : 2))
            let recorded = try RecordedJournal(contentsOf: file, journal: journal)
            #expect(recorded.steps == (stopping ? 0 : 2))
        }
    }

    @Test func aWindowOfActionsKeepsAtLeastTheWindowAndAtMostAnIntervalMore() async throws {
        try await inTemporaryJournal { file in
            let journal = noteJournal(file, checkpointInterval: 5, window: .actions(20))
            let store = Store(initialValues: [:], actionHandler: noteHandler)
            let recorder = try store.startRecording(journal)
            for index in 1...500 {
                store.handle(action: index.isMultiple(of: 2) ? .increment : .type("\(index)"))
                let recorded = try RecordedJournal(contentsOf: file, journal: journal)
                #expect((min(index, 20)...25).contains(recorded.steps), "after \(index) actions")
                #expect(try recorded.step(recorded.steps - 1).sequence == UInt64(index))
            }
            recorder.stop()
            #expect(recorder.problems.isEmpty)
            let recorded = try RecordedJournal(contentsOf: file, journal: journal)
            #expect(try recorded.state(at: recorded.steps)[.count] as? Int == 250)
            let folder = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
            #expect(folder.filter { $0.hasPrefix(file.lastPathComponent + ".") } == [], "files left beside the journal")
        }
    }

    @Test func aWindowOfTimeDropsWhatIsOlder() async throws {
        try await inTemporaryJournal { file in
            let journal = noteJournal(file, checkpointInterval: 2, window: .duration(.milliseconds(40)))
            let store = Store(initialValues: [:], actionHandler: noteHandler)
            let recorder = try store.startRecording(journal)
            for _ in 0..<40 { store.handle(action: .increment) }
            try await Task.sleep(for: .milliseconds(100))
            for _ in 0..<4 { store.handle(action: .increment) }
            recorder.stop()
            let recorded = try RecordedJournal(contentsOf: file, journal: journal)
            #expect(recorded.steps < 44)
            #expect(try recorded.step(recorded.steps - 1).sequence == 44)
            #expect(try recorded.state(at: recorded.steps)[.count] as? Int == 44)
        }
    }

    @Test func aValueThatCannotBeEncodedWhenRecordingStartsIsAnErrorAndNoFileIsMade() async throws {
        await inTemporaryJournal { file in
            let store = Store(initialValues: [NoteKey.count: "not a number"], actionHandler: noteHandler)
            #expect(throws: JournalError.unencodableValue(key: ".count", message: "it holds a String, not a Int")) {
                try store.startRecording(noteJournal(file))
            }
            #expect(!FileManager.default.fileExists(atPath: file.path))
            store.handle(action: .increment)
            #expect(store.engine.observer == nil)
            let missing = file.appendingPathComponent("no-such-folder/journal")
            #expect(throws: JournalError.file(missing.path, "open", code: ENOENT)) {
                try Store(initialValues: [:], actionHandler: noteHandler).startRecording(noteJournal(missing))
            }
        }
    }
}

/// A journal read back: cut short at every byte, damaged, of a later format, of other types, or
/// holding an action that no longer decodes; each is a typed error or a journal up to its last whole
/// record, never a crash.
@Suite(.timeLimit(.minutes(2))) struct JournalReadingTests {
    /// A journal of 5 actions, its bytes.
    static func recordedBytes(_ file: URL) throws -> [UInt8] {
        let store = Store(initialValues: [:], actionHandler: noteHandler)
        let recorder = try store.startRecording(noteJournal(file, checkpointInterval: 2))
        for action in [NoteAction.type("a"), .increment, .tag("t"), .increment, .type("b")] {
            store.handle(action: action)
        }
        recorder.stop()
        return Array(try Data(contentsOf: file))
    }

    @Test func aJournalCutAtAnyByteReadsBackToItsLastWholeRecord() async throws {
        try await inTemporaryJournal { file in
            let bytes = try Self.recordedBytes(file)
            let layout = JournalFileRecords(bytes)
            #expect(
                layout.records.map(\.kind) == [
                    .header, .checkpoint, .action, .action, .checkpoint, .action, .action, .checkpoint, .action,
                    .checkpoint,
                ])
            let firstCheckpointEnd = layout.recordEnds[1]
            for length in firstCheckpointEnd...bytes.count {
                try Data(bytes[..<length]).write(to: file)
                let recorded = try RecordedJournal(contentsOf: file, journal: noteJournal(file))
                let whole = layout.recordEnds.filter { $0 <= length }
                let actions = zip(layout.records, layout.recordEnds).filter { $0.0.kind == .action && $0.1 <= length }
                    .count
                #expect(recorded.steps == actions, "cut at \(length)")
                #expect(recorded.isCutShort == (whole.last != length), "cut at \(length)")
                _ = try recorded.state(at: recorded.steps)
            }
            for length in 0..<firstCheckpointEnd {
                try Data(bytes[..<length]).write(to: file)
                #expect(throws: JournalError.self, "cut at \(length)") {
                    try RecordedJournal(contentsOf: file, journal: noteJournal(file))
                }
            }
        }
    }

    @Test func theZerosAKilledRecorderLeavesAreTheEndAndARecordWithoutItsFrameIsCutShort() async throws {
        try await inTemporaryJournal { file in
            let bytes = try Self.recordedBytes(file)
            try Data(bytes + [UInt8](repeating: 0, count: 4_096)).write(to: file)
            let reserved = try RecordedJournal(contentsOf: file, journal: noteJournal(file))
            #expect(reserved.steps == 5)
            #expect(!reserved.isCutShort)

            // The recorder copies a record's payload before its frame: a kill between leaves this.
            let layout = JournalFileRecords(bytes)
            let last = layout.records.count - 2
            var unframed = Array(bytes[..<layout.recordEnds[last - 1]])
            unframed += [UInt8](repeating: 0, count: JournalFileFormat.frameSize) + [JournalRecordKind.action.rawValue]
            unframed += layout.records[last].payload + [UInt8](repeating: 0, count: 100)
            try Data(unframed).write(to: file)
            let cut = try RecordedJournal(contentsOf: file, journal: noteJournal(file))
            #expect(cut.steps == 4)
            #expect(cut.isCutShort)
        }
    }

    @Test func aDamagedRecordBeforeTheLastIsATypedErrorAndTheLastIsCutShort() async throws {
        try await inTemporaryJournal { file in
            var bytes = try Self.recordedBytes(file)
            let layout = JournalFileRecords(bytes)
            var damaged = bytes
            damaged[layout.recordEnds[2] - 3] ^= 0xFF
            try Data(damaged).write(to: file)
            #expect(
                throws: JournalError.corruptRecord(
                    offset: layout.recordEnds[1], reason: "its checksum does not match its contents")
            ) { try RecordedJournal(contentsOf: file, journal: noteJournal(file)) }

            bytes[bytes.count - 2] ^= 0xFF
            try Data(bytes).write(to: file)
            let recorded = try RecordedJournal(contentsOf: file, journal: noteJournal(file))
            #expect(recorded.isCutShort)
            #expect(recorded.steps == 5)

            // A record whose length reads as zero is one being written: the journal ends before it.
            var length = layout.bytes
            length.replaceSubrange(layout.recordEnds[3]..<(layout.recordEnds[3] + 4), with: [0, 0, 0, 0])
            try Data(length).write(to: file)
            let shortened = try RecordedJournal(contentsOf: file, journal: noteJournal(file))
            #expect(shortened.isCutShort)
            #expect(shortened.steps == 2)

            var huge = layout.bytes
            huge.replaceSubrange(layout.recordEnds[3]..<(layout.recordEnds[3] + 4), with: [0xFF, 0xFF, 0xFF, 0x7F])
            huge += [UInt8](repeating: 1, count: 1 << 20)
            try Data(huge).write(to: file)
            #expect(
                throws: JournalError.corruptRecord(offset: layout.recordEnds[3], reason: "its length is 2147483647")
            ) { try RecordedJournal(contentsOf: file, journal: noteJournal(file)) }
        }
    }

    @Test func aLaterFormatOtherTypesAndOtherFilesAreTypedErrors() async throws {
        try await inTemporaryJournal { file in
            let bytes = try Self.recordedBytes(file)
            var layout = JournalFileRecords(bytes)
            layout.firstLine = Array("CacheStore journal 2\n".utf8)
            try Data(layout.bytes).write(to: file)
            #expect(throws: JournalError.newerFormat(2)) {
                try RecordedJournal(contentsOf: file, journal: noteJournal(file))
            }

            try Data("{\"theme\":\"dark\"}".utf8).write(to: file)
            #expect(throws: JournalError.notAJournal(path: file.path)) {
                try RecordedJournal(contentsOf: file, journal: noteJournal(file))
            }
            let missing = #expect(throws: JournalError.self) {
                try RecordedJournal(
                    contentsOf: URL(fileURLWithPath: file.path + "-missing"), journal: noteJournal(file))
            }
            guard case .file(file.path + "-missing", "read", _) = missing else {
                Issue.record("\(String(describing: missing))")
                return
            }

            try Data(bytes).write(to: file)
            #expect(
                throws: JournalError.otherTypes(
                    recorded: "Store<CacheStoreTests.NoteKey, CacheStoreTests.NoteAction>",
                    expected: "Store<CacheStoreTests.PrefsKey, CacheStoreTests.NoteAction>")
            ) {
                try RecordedJournal(contentsOf: file, journal: Journal<PrefsKey, NoteAction>(file: file))
            }
            #expect(throws: JournalError.unknownKey(".tags")) {
                try RecordedJournal(
                    contentsOf: file,
                    journal: Journal<NoteKey, NoteAction>(file: file).recording(.text).recording(.count))
            }
        }
    }

    @Test func anActionThatNoLongerDecodesIsATypedErrorBeforeAnyState() async throws {
        try await inTemporaryJournal { file in
            var layout = JournalFileRecords(try Self.recordedBytes(file))
            let third = layout.records.indices.filter { layout.records[$0].kind == .action }[2]
            let payload = layout.records[third].payload
            let old = Array(#"{"tag":{"_0":"t"}}"#.utf8)
            let start = payload.indices.first { payload[$0...].starts(with: old) }!
            var rewritten = Array(payload[..<(start - 4)])
            rewritten.appendField(#"{"explode":{}}"#.utf8)
            rewritten.append(contentsOf: payload[(start + old.count)...])
            layout.records[third].payload = rewritten
            try Data(layout.bytes).write(to: file)
            let error = #expect(throws: JournalError.self) {
                try RecordedJournal(contentsOf: file, journal: noteJournal(file))
            }
            guard case .undecodableAction(2, "CacheStoreTests.NoteAction", _) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(
                error?.description.hasPrefix("step 2's action is not a CacheStoreTests.NoteAction any more: ") == true)
        }
    }
}

/// A store of one `Double` key: `JSONEncoder` refuses a non-finite `Double`.
enum ScoreKey: Hashable, Sendable { case scores }

extension TypedKey<ScoreKey, [Double]> {
    static var scores: Self { .init(.scores, default: []) }
}

/// `.tag("n")` sets n scores, the last of them not a number.
let scoreHandler = StoreActionHandler<ScoreKey, NoteAction, Void> { state, action, _ in
    if case .tag(let count) = action, let count = Int(count) {
        state[.scores] = (0..<count).map(Double.init) + [.nan]
    }
    return .none
}

extension JournalRecordingTests {
    /// Two recorders on one file: the second is refused (or the first's file is its own), never two
    /// writers interleaving records in one file.
    @Test func aSecondRecorderOnTheSameFileIsRefused() async throws {
        try await inTemporaryJournal { file in
            let first = Store(initialValues: [:], actionHandler: noteHandler)
            let second = Store(initialValues: [:], actionHandler: noteHandler)
            let firstRecorder = try first.startRecording(noteJournal(file))
            for _ in 0..<20 { first.handle(action: .type("first")) }
            let secondRecorder = try? second.startRecording(noteJournal(file))
            #expect(secondRecorder == nil, "a second recorder opened a file another recorder writes")
            for index in 0..<20 {
                first.handle(action: .increment)
                second.handle(action: .tag("\(index)"))
            }
            secondRecorder?.stop()
            firstRecorder.stop()
            // The first recorder's 40 actions are its file's, or the second's 20 are: not a file that
            // silently holds the second's and loses the first's.
            let recorded = try RecordedJournal(contentsOf: file, journal: noteJournal(file))
            let final = String(decoding: try recorded.stateJSON(at: recorded.steps), as: UTF8.self)
            #expect(recorded.steps == 40, "the file reads as \(recorded.steps) steps: \(final)")
            #expect(
                !firstRecorder.problems.isEmpty || recorded.steps == 40,
                "the first recorder lost its actions and says nothing")
        }
    }

    /// The store's release ends the recording, as `startRecording` says, though the caller still
    /// holds the recorder (to call `stop()`): the file is cut to its records.
    @Test func releasingTheStoreEndsTheFileThoughTheRecorderIsHeld() async throws {
        try await inTemporaryJournal { file in
            var store: Store<NoteKey, NoteAction, Void>? = Store(initialValues: [:], actionHandler: noteHandler)
            let recorder = try store!.startRecording(noteJournal(file))
            store!.handle(action: .increment)
            store = nil
            let recorded = try RecordedJournal(contentsOf: file, journal: noteJournal(file))
            let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int
            #expect(
                size == recorded.recordedBytes, "the file is \(size ?? -1) bytes, its records \(recorded.recordedBytes)"
            )
            withExtendedLifetime(recorder) {}
        }
    }

    /// A window that keeps no action stops the program with a message, as a checkpoint interval of
    /// 0 does; a duration longer than 292 years in nanoseconds is a window, not a trap.
    @Test func aWindowOfNoActionIsAMessageAndAVeryLongOneIsNoTrap() async throws {
        let refused = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = noteJournal(URL(fileURLWithPath: "/tmp/unused"), window: .actions(-1))
        }
        let message = String(decoding: refused?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Journal: a window of .actions(-1) keeps no action; give 1 or more"), "\(message)")
        await #expect(processExitsWith: .success) {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("journal-window-\(getpid())")
            defer { try? FileManager.default.removeItem(at: file) }
            let store = Store(initialValues: [:], actionHandler: noteHandler)
            let recorder = try! store.startRecording(
                noteJournal(file, checkpointInterval: 2, window: .duration(.seconds(Int64.max / 2))))
            for _ in 0..<4 { store.handle(action: .increment) }
            recorder.stop()
            let recorded = try! RecordedJournal(contentsOf: file, journal: noteJournal(file))
            precondition(recorded.steps == 4)
        }
    }
}

extension JournalReadingTests {
    /// A journal read while its file is recorded again (the next session, same path): the reader
    /// keeps what it read, or throws; it never traps on the bytes changed under its map.
    @Test func aJournalReadWhileItsFileIsRecordedAgainNeverTraps() async throws {
        await #expect(processExitsWith: .success) {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("journal-reread-\(getpid())")
            defer { try? FileManager.default.removeItem(at: file) }
            _ = try! JournalReadingTests.recordedBytes(file)
            let recorded = try! RecordedJournal(contentsOf: file, journal: noteJournal(file))
            let next = Store(initialValues: [:], actionHandler: noteHandler)
            let recorder = try! next.startRecording(noteJournal(file))
            next.handle(action: .type("next session"))
            _ = try? recorded.state(at: recorded.steps)
            _ = try? recorded.step(recorded.steps - 1)
            _ = try? recorded.replay(actionHandler: noteHandler)
            recorder.stop()
        }
    }

    /// A journal truncated while a reader holds it: the reader throws or keeps what it read, never
    /// a SIGBUS.
    @Test func aJournalTruncatedWhileReadIsNeverASignal() async throws {
        await #expect(processExitsWith: .success) {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("journal-cut-\(getpid())")
            defer { try? FileManager.default.removeItem(at: file) }
            _ = try! JournalReadingTests.recordedBytes(file)
            let recorded = try! RecordedJournal(contentsOf: file, journal: noteJournal(file))
            _ = truncate(file.path, 0)
            _ = try? recorded.state(at: recorded.steps)
            _ = try? recorded.replay(actionHandler: noteHandler)
        }
    }
}

extension JournalRecordingTests {
    /// A handler that ends one recording and starts the next (a new session on `.clear`), the
    /// recorder reached through its dependency: the second start sees the first stopped.
    @Test func aRecordingStoppedAndStartedAgainInsideAHandlerDoesNotStopTheProgram() async throws {
        await #expect(processExitsWith: .success) {
            final class Session: @unchecked Sendable {
                var store: Store<NoteKey, NoteAction, Void>?
                var recorder: JournalRecorder<NoteKey, NoteAction>?
            }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("journal-restart-\(getpid())")
            defer { try? FileManager.default.removeItem(at: file) }
            let session = Session()
            let handler = StoreActionHandler<NoteKey, NoteAction, Void> { state, action, _ in
                if case .clear = action {
                    session.recorder?.stop()
                    session.recorder = try? session.store?.startRecording(noteJournal(file))
                }
                return noteHandler.handle(store: &state, action: action, dependency: ())
            }
            let store = Store(initialValues: [:], actionHandler: handler)
            session.store = store
            session.recorder = try! store.startRecording(noteJournal(file))
            store.handle(action: .increment)
            store.handle(action: .clear)
            store.handle(action: .increment)
            session.recorder?.stop()
        }
    }

    /// "Each is said once": a key whose values do not encode is one problem, of a bounded length,
    /// however many actions write such a value, and however large the value.
    @Test func aValueThatDoesNotEncodeIsOneShortProblemHoweverOftenItIsWritten() async throws {
        try await inTemporaryJournal { file in
            let journal = Journal<ScoreKey, NoteAction>(file: file).recording(.scores)
            let store = Store(initialValues: [:], actionHandler: scoreHandler)
            let recorder = try store.startRecording(journal)
            for count in 1...300 { store.handle(action: .tag("\(count)")) }
            store.handle(action: .tag("100000"))
            recorder.stop()
            let problems = recorder.problems
            #expect(problems.count == 1, "\(problems.count) problems")
            #expect(
                problems.map(\.utf8.count).max() ?? 0 <= 4_096,
                "the longest problem is \(problems.map(\.utf8.count).max() ?? 0) bytes")
        }
    }

    /// Several threads send while another reads the recorder and stops it: every action handled
    /// before `stop()` returned is in the file, in order, and the file reads back.
    @Test func recordingFromSeveralThreadsWhileAnotherStopsIt() async throws {
        try await inTemporaryJournal { file in
            let store = Store(initialValues: [:], actionHandler: noteHandler)
            let recorder = try store.startRecording(noteJournal(file, checkpointInterval: 16, window: .actions(64)))
            let senders = (0..<4).map { index in
                Thread {
                    for step in 0..<2_000 {
                        store.handle(action: step.isMultiple(of: 3) ? .tag("\(index)") : .increment)
                    }
                }
            }
            for sender in senders { sender.start() }
            var seen = 0
            while seen < 3_000 {
                seen = recorder.recordedSteps
                _ = recorder.problems
            }
            recorder.stop()
            let stoppedAt = recorder.recordedSteps
            while store[.count] + store[.tags].count < 8_000 { try await Task.sleep(for: .milliseconds(5)) }
            #expect(recorder.recordedSteps == stoppedAt)
            #expect(recorder.problems.isEmpty)
            let recorded = try RecordedJournal(contentsOf: file, journal: noteJournal(file))
            #expect(try recorded.step(recorded.steps - 1).sequence == UInt64(stoppedAt))
            #expect((64...80).contains(recorded.steps), "\(recorded.steps) steps")
        }
    }
}

/// Runs `body` on a thread of its own and waits up to `seconds` for it; when it has not returned
/// by then, records an issue naming `what`, calls `unblock`, and waits for it to end.
private func finishesWithin(
    _ seconds: Double, _ what: String, unblock: () -> Void, _ body: @escaping @Sendable () -> Void
) {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }.start()
    if done.wait(timeout: .now() + seconds) == .timedOut {
        Issue.record("\(what) still waits after \(seconds) s")
        unblock()
        done.wait()
    }
}

/// A FIFO at `path`'s place, removed after `body`; `unblock` opens and closes its other end, so
/// that an `open` of it waiting for a writer (or a reader) returns.
private func inFIFO(_ body: (_ file: URL, _ unblock: () -> Void) throws -> Void) rethrows {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("journal-fifo-\(UUID().uuidString)")
    precondition(mkfifo(file.path, 0o644) == 0)
    defer { unlink(file.path) }
    try body(file) {
        let writer = open(file.path, O_WRONLY | O_NONBLOCK)
        let reader = writer < 0 ? open(file.path, O_RDONLY | O_NONBLOCK) : -1
        if writer >= 0 { close(writer) }
        if reader >= 0 { close(reader) }
    }
}

extension JournalReadingTests {
    /// A FIFO given as a journal (`--replay <(…)`, a named pipe left in a folder) is "not a journal"
    /// or a file error at once: the reader opens it with `open(O_RDONLY)`, which waits for a writer
    /// that never comes, before its `fstat` would refuse it.
    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() {
        inFIFO { file, unblock in
            finishesWithin(3, "RecordedJournal(contentsOf: a FIFO)", unblock: unblock) {
                _ = try? RecordedJournal(contentsOf: file, journal: noteJournal(file))
            }
        }
    }

    /// A damaged length near the 1 GiB limit, in a file of 42 bytes, costs what the file holds: the
    /// cursor allocates (and zeroes) the length the frame claims before it reads the few bytes there are.
    @Test func aDamagedLengthInATinyFileDoesNotAllocateWhatItClaims() async throws {
        try await inTemporaryJournal { file in
            var bytes = JournalFileFormat.firstLine
            bytes.appendInteger(UInt32((1 << 30) - 1))
            bytes.appendInteger(UInt64(12_345))
            bytes += Array("Hxxxxxxxx".utf8)
            try Data(bytes).write(to: file)
            func peakKilobytes() -> Int {
                var usage = rusage()
                getrusage(RUSAGE_SELF.rawValue, &usage)
                return usage.ru_maxrss
            }
            let before = peakKilobytes()
            #expect(throws: JournalError.self) { try RecordedJournal(contentsOf: file, journal: noteJournal(file)) }
            let grown = peakKilobytes() - before
            #expect(
                grown < 64 * 1024, "reading a \(bytes.count)-byte file raised the peak memory by \(grown / 1024) MiB")
        }
    }

    /// A journal overwritten in place (`cp other.journal this.journal`) while a reader holds it: the
    /// reader's "at worst a typed error" — not a trap on a key name its scan never saw
    /// (`keyIndex[change.name]!` in `encodedState(at:)`). Here the other journal records `.tags`
    /// where this one records `.text`: names of one length, so its records fall where the scan's did.
    @Test func aJournalOverwrittenInPlaceByAnotherIsATypedErrorNotATrap() async throws {
        let exit = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let folder = FileManager.default.temporaryDirectory
            let file = folder.appendingPathComponent("journal-inplace-\(getpid())")
            let other = folder.appendingPathComponent("journal-inplace-other-\(getpid())")
            defer {
                try? FileManager.default.removeItem(at: file)
                try? FileManager.default.removeItem(at: other)
            }
            let textOnly = Journal<NoteKey, NoteAction>(file: file).recording(.text)
            let store = Store(initialValues: [:], actionHandler: noteHandler)
            let recorder = try! store.startRecording(textOnly)
            store.handle(action: .type("hello"))
            store.handle(action: .type("world"))
            recorder.stop()
            let recorded = try! RecordedJournal(contentsOf: file, journal: textOnly)

            let tagsOnly = Journal<NoteKey, NoteAction>(file: other).recording(.tags)
            let otherStore = Store(initialValues: [:], actionHandler: noteHandler)
            let otherRecorder = try! otherStore.startRecording(tagsOnly)
            otherStore.handle(action: .tag("x"))
            otherRecorder.stop()
            let replacement = try! Data(contentsOf: other)
            let descriptor = open(file.path, O_WRONLY | O_TRUNC)
            precondition(descriptor >= 0)
            _ = replacement.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)

            _ = try? recorded.state(at: 1)  // the first checkpoint, then the step after it
        }
        let message = String(decoding: exit?.standardErrorContent ?? [], as: UTF8.self)
        #expect(!message.contains("Fatal error"), "\(message)")
        // A child that trapped left its two files.
        let folder = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        where name.hasPrefix("journal-inplace-") {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }
}

extension JournalRecordingTests {
    /// Recording onto a FIFO (a path a user typed) is refused or made at once: the check for another
    /// recorder opens the path with `open(O_RDONLY)`, which waits for a writer that never comes, in
    /// the store's turn.
    @Test func recordingOntoAFIFODoesNotWaitForAWriter() {
        inFIFO { file, unblock in
            let store = Store(initialValues: [:], actionHandler: noteHandler)
            finishesWithin(3, "startRecording onto a FIFO", unblock: unblock) {
                (try? store.startRecording(noteJournal(file)))?.stop()
            }
        }
    }

    /// Two recorders of one file started at the same moment: at most one is accepted while the other
    /// records, never two whose second rename would unlink the first one's file unsaid.
    @Test func twoRecordersStartedAtOnceAreNotBothAccepted() async throws {
        var bothAccepted = 0
        for _ in 0..<40 {
            await inTemporaryJournal { file in
                let stores = (0..<2).map { _ in Store(initialValues: [:], actionHandler: noteHandler) }
                let started = Locked(0)
                let tried = Locked(0)
                let accepted = Locked(0)
                let done = DispatchGroup()
                for store in stores {
                    done.enter()
                    Thread {
                        started.withLock { $0 += 1 }
                        while started.withLock({ $0 }) < 2 {}
                        let recorder = try? store.startRecording(noteJournal(file))
                        if recorder != nil { accepted.withLock { $0 += 1 } }
                        // Both tries end before either recording does: a recording stopped may be
                        // followed by the next, which replaces its file.
                        tried.withLock { $0 += 1 }
                        while tried.withLock({ $0 }) < 2 {}
                        store.handle(action: .increment)
                        recorder?.stop()
                        done.leave()
                    }.start()
                }
                done.wait()
                if accepted.withLock({ $0 }) == 2 { bothAccepted += 1 }
            }
        }
        #expect(bothAccepted == 0, "both recorders were accepted in \(bothAccepted) of 40 starts")
    }

    /// A recording whose file is gone (its folder removed, `rm` of the file) records into an unlinked
    /// file to the end and says nothing: `stop()` leaves no file and no problem, and the session is lost.
    @Test func aRecordingWhoseFileVanishedSaysSo() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-folder-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("session.journal")
        let store = Store(initialValues: [:], actionHandler: noteHandler)
        let recorder = try store.startRecording(noteJournal(file))
        store.handle(action: .increment)
        try FileManager.default.removeItem(at: folder)
        store.handle(action: .increment)
        recorder.stop()
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(!recorder.problems.isEmpty, "the recording is gone, and the recorder says nothing")
    }
}
