import CacheStore
import CacheStoreTesting
import Foundation
import Testing

// The examples of the Recording and replaying article (Documentation.docc/RecordingAndReplaying.md).

nonisolated enum NotesKey { case draft, saved }

nonisolated extension TypedKey<NotesKey, String> {
    static var draft: Self { .init(.draft, default: "") }
}

nonisolated extension TypedKey<NotesKey, [String]> {
    static var saved: Self { .init(.saved, default: []) }
}

nonisolated enum NotesAction: Codable {
    case type(String)
    case save
}

nonisolated let notesHandler = StoreActionHandler<NotesKey, NotesAction, Void> { state, action, _ in
    switch action {
    case .type(let text):
        state[.draft] = text
    case .save:
        state[.saved].append(state[.draft])
        state[.draft] = ""
    }
    return .none
}

@Suite(.timeLimit(.minutes(2))) final class RecordingAndReplayingExamples {
    let sessionFile = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID().uuidString)")
    let journal: Journal<NotesKey, NotesAction>

    /// Records the article's session.
    init() throws {
        let notes = Store(initialValues: [:], actionHandler: notesHandler)

        let journal = Journal<NotesKey, NotesAction>(file: sessionFile)
            .recording(.draft)
            .recording(.saved)

        let recorder = try notes.startRecording(journal)
        notes.handle(action: .type("Buy tea"))
        notes.handle(action: .save)
        recorder.stop()  // a last checkpoint; the file is closed

        #expect(recorder.problems == [])
        self.journal = journal
    }

    deinit {
        try? FileManager.default.removeItem(at: sessionFile)
    }

    @Test func travellingAndReplaying() throws {
        let recorded = try RecordedJournal(contentsOf: sessionFile, journal: journal)
        let first = try recorded.step(0)  // .type("Buy tea"), sent
        let afterTyping = try recorded.state(at: 1)  // the values after step 0
        guard case .type("Buy tea")? = first.action, first.origin == .sent else {
            Issue.record("step 0 is \(first)")
            return
        }
        #expect(afterTyping[.draft] as? String == "Buy tea")
        #expect(try recorded.state(at: 2)[.saved] as? [String] == ["Buy tea"])

        let replay = try recorded.replay(actionHandler: notesHandler)
        if let divergence = replay.divergence {
            print(divergence)  // the first step whose state differs, key by key
        }
        #expect(replay.divergence == nil)

        let withoutTyping = try recorded.replay(
            actionHandler: notesHandler, skipping: [0])
        #expect(withoutTyping.state[.saved] as? [String] == [""])
        #expect(withoutTyping.divergence?.step == 0)
    }

    @Test func yesterdaysSessionStillReplays() throws {
        let recorded = try RecordedJournal(
            contentsOf: sessionFile, journal: journal)
        recorded.assertReplays(actionHandler: notesHandler)
    }

    @Test func aBoundedJournalWithoutTheTypedText() throws {
        let bounded = Journal<NotesKey, NotesAction>(
            file: sessionFile, window: .actions(10_000)
        )
        .recording(.draft)
        .recording(.saved)
        .redacting { action in
            switch action {
            case .type: .changesOnly
            case .save: .keep
            }
        }
        let notes = Store(initialValues: [:], actionHandler: notesHandler)
        let recorder = try notes.startRecording(bounded)
        notes.handle(action: .type("my password"))
        recorder.stop()
        let recorded = try RecordedJournal(contentsOf: sessionFile, journal: bounded)
        #expect(try recorded.step(0).action.map { _ in true } == nil)
        #expect(try recorded.step(0).changedKeys == [".draft"])
    }
}
