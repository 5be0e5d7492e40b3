import Foundation
import Synchronization
import Testing

@testable import CacheStore

/// Counts what effects call: a replay calls nothing.
final class NoteClient: Sendable {
    let calls = Mutex(0)

    func fetch() -> NoteAction {
        calls.withLock { $0 += 1 }
        return .tag("fetched")
    }
}

/// The notes' handler with a client: `.fetch` starts an effect that calls it.
let clientNoteHandler = StoreActionHandler<NoteKey, NoteAction, NoteClient> { state, action, client in
    if case .fetch = action { return ActionEffect(id: "fetch") { client.fetch() } }
    return noteHandler.handle(store: &state, action: action, dependency: ())
}

/// Replaying a journal: through today's handler, effects suppressed, compared step by step with the
/// recording; and time travel by skipping a step.
@Suite(.timeLimit(.minutes(2))) struct JournalReplayTests {
    /// Records a session of sent, immediate, effect-delivered and changes-only actions.
    static func recordSession(_ file: URL) async throws -> (journal: Journal<NoteKey, NoteAction>, live: [NoteKey: Any])
    {
        let journal = noteJournal(file, checkpointInterval: 4).redacting {
            $0 == .type("secret") ? .changesOnly : .keep
        }
        let client = NoteClient()
        let store = Store(initialValues: [NoteKey.count: 1], actionHandler: clientNoteHandler, dependency: client)
        let recorder = try store.startRecording(journal)
        for round in 0..<5 {
            store.handle(action: .type(round == 2 ? "secret" : "round \(round)"))
            store.handle(action: .echo)
            store.handle(action: .fetch)
            while store[.tags].count < round + 1 { await Task.yield() }
            if round == 3 { store.handle(action: .clear) }
        }
        recorder.stop()
        #expect(client.calls.withLock { $0 } == 5)
        return (journal, store.allValues)
    }

    @Test func aReplayReachesTheRecordedStateByteForByteCallingNoEffect() async throws {
        try await inTemporaryJournal { file in
            let (journal, live) = try await Self.recordSession(file)
            let recorded = try RecordedJournal(contentsOf: file, journal: journal)
            #expect(recorded.steps == 26)
            let client = NoteClient()
            let replay = try recorded.replay(actionHandler: clientNoteHandler, dependency: client)
            #expect(replay.divergence == nil)
            #expect(client.calls.withLock { $0 } == 0)
            #expect(replay.steps == 26)
            #expect(replay.stateJSON == (try recorded.stateJSON(at: 26)))
            #expect(
                String(decoding: replay.stateJSON, as: UTF8.self)
                    == #"{".count":6,".tags":["fetched","fetched","fetched","fetched","fetched"],".text":"round 4"}"#)
            #expect(replay.state[.count] as? Int == live[.count] as? Int)
            #expect(replay.state[.text] as? String == live[.text] as? String)
            #expect(replay.state[.tags] as? [String] == live[.tags] as? [String])
        }
    }

    @Test func aChangedHandlerIsNamedAtTheFirstStepThatDiffers() async throws {
        try await inTemporaryJournal { file in
            let (journal, _) = try await Self.recordSession(file)
            let recorded = try RecordedJournal(contentsOf: file, journal: journal)
            let changed = StoreActionHandler<NoteKey, NoteAction, Void> { state, action, _ in
                if case .tag(let tag) = action, !state[.tags].isEmpty {
                    state[.tags].append(tag.uppercased())
                    return .none
                }
                return noteHandler.handle(store: &state, action: action, dependency: ())
            }
            let replay = try recorded.replay(actionHandler: changed)
            let divergence = try #require(replay.divergence)
            #expect(divergence.step == 9)
            #expect(divergence.sequence == 10)
            #expect(divergence.action == .tag("fetched"))
            #expect(divergence.origin == .effect(id: "\"fetch\""))
            #expect(divergence.differences.map(\.name) == [".tags"])
            #expect(divergence.differences.first?.recorded as? [String] == ["fetched", "fetched"])
            #expect(divergence.differences.first?.replayed as? [String] == ["fetched", "FETCHED"])
            #expect(
                divergence.description == """
                    step 9 (sequence 10, .tag("fetched") from the effect "fetch"): the state differs from the recording
                      .tags: recorded ["fetched","fetched"], replayed ["fetched","FETCHED"]
                    """)
            #expect(replay.steps == 26)
        }
    }

    @Test func skippingAStepRecomputesTheStepsAfterIt() async throws {
        try await inTemporaryJournal { file in
            let (journal, _) = try await Self.recordSession(file)
            let recorded = try RecordedJournal(contentsOf: file, journal: journal)
            let echo = try #require((0..<recorded.steps).first { try recorded.step($0).action == .echo })
            let replay = try recorded.replay(actionHandler: noteHandler, skipping: [echo, echo + 1, 1_000])
            #expect(replay.steps == 24)
            #expect(replay.state[.count] as? Int == 5)
            #expect(replay.divergence?.step == echo + 1)
            #expect(replay.divergence?.differences.map(\.name) == [".count"])
        }
    }

    @Test func aChangesOnlyStepIsAppliedAsRecorded() async throws {
        try await inTemporaryJournal { file in
            let (journal, _) = try await Self.recordSession(file)
            let recorded = try RecordedJournal(contentsOf: file, journal: journal)
            let secret = try #require((0..<recorded.steps).first { try recorded.step($0).origin == .changesOnly })
            let ignoring = StoreActionHandler<NoteKey, NoteAction, Void> { state, action, _ in
                if case .type = action { return .none }
                return noteHandler.handle(store: &state, action: action, dependency: ())
            }
            let replay = try recorded.replay(actionHandler: ignoring)
            // The handler ignores every typed text: the first typed step differs, the changes-only one does not.
            #expect(replay.divergence?.step == 0)
            let untilSecret = try recorded.replay(actionHandler: noteHandler, skipping: Set(0..<secret))
            #expect(untilSecret.state[.text] as? String == "round 4")
        }
    }
}

/// A store of one set-valued key: a set's JSON is its iteration order, which equal sets need not share.
enum MembersKey: Hashable, Sendable { case members }

extension TypedKey<MembersKey, Set<String>> {
    static var members: Self { .init(.members, default: []) }
}

let membersHandler = StoreActionHandler<MembersKey, NoteAction, Void> { state, action, _ in
    if case .tag(let member) = action { state[.members].insert(member) }
    return .none
}

extension JournalReplayTests {
    /// The handler that recorded a journal replays it without a divergence when a recorded key holds
    /// a `Set`: equal states are equal, whatever order their elements iterate in (the state hash is
    /// "over a canonical encoding").
    @Test func anUnchangedHandlerDoesNotDivergeOnASetValuedKey() async throws {
        try await inTemporaryJournal { file in
            let journal = Journal<MembersKey, NoteAction>(file: file).recording(.members)
            var members = Set<String>(minimumCapacity: 4_096)
            for index in 0..<20 { members.insert("member \(index)") }
            let store = Store(initialValues: [MembersKey.members: members], actionHandler: membersHandler)
            let recorder = try store.startRecording(journal)
            store.handle(action: .tag("new"))
            store.handle(action: .tag("newer"))
            recorder.stop()
            let recorded = try RecordedJournal(contentsOf: file, journal: journal)
            let replay = try recorded.replay(actionHandler: membersHandler)
            #expect(replay.state[.members] as? Set<String> == store[.members])
            #expect(replay.divergence == nil, "\(replay.divergence.map(String.init(describing:)) ?? "")")
        }
    }
}
