import CacheStore
import Foundation
import PostsFeature
import Testing

/// A session of the posts screen recorded to its journal (``postsJournal(file:)``), and read back as
/// a ``RecordedSession``: every action codes, and the recorded state draws the screen as it was.
@Suite(.timeLimit(.minutes(1))) struct SessionJournalTests {
    @Test(arguments: [
        AppAction.list(.load), .list(.cancel), .list(.loaded(.success(threePosts))),
        .list(.loaded(.failure(.http(status: 503, host: "example.com")))),
        .list(.loaded(.failure(.decoding(path: "$[0].id", reason: "not a number")))), .list(.nextPage),
        .list(.previousPage), .list(.firstPage), .list(.setPageSize(7)), .list(.selectNext), .list(.selectPrevious),
        .list(.selectFirst), .list(.selectLast), .list(.open), .list(.showHelp), .list(.back), .list(.scroll(to: 4)),
        .userFilter(.selectNextUser), .userFilter(.selectUser(3)), .userFilter(.selectUser(nil)),
    ])
    func everyActionReadsBackAsItself(action: AppAction) throws {
        let json = try JSONEncoder().encode(action)
        let decoded = try JSONDecoder().decode(AppAction.self, from: json)
        #expect(decoded == action, "\(String(decoding: json, as: UTF8.self))")
    }

    @Test func aPostsActionIsWrittenAsTheCompilerWritesAnEnum() throws {
        let json = String(decoding: try JSONEncoder().encode(PostsAction.scroll(to: 3)), as: UTF8.self)
        #expect(json == #"{"scroll":{"to":3}}"#)
    }

    /// The screen after each step of the session is the screen the live store showed then, and the
    /// last step's is the live screen at the end.
    @Test func eachRecordedStepDrawsTheScreenAsItWas() throws {
        try inSessionFile { file in
            let live = liveStore()
            let recorder = try live.startRecording(postsJournal(file: file))
            var shown = [PostsScreen(store: live, source: "test")]
            for action in sessionActions {
                live.handle(action: action)
                shown.append(PostsScreen(store: live, source: "test"))
            }
            recorder.stop()
            #expect(recorder.problems.isEmpty)

            let session = try RecordedSession(contentsOf: file)
            #expect(session.steps == sessionActions.count + 1, "the filter's .firstPage is a step of its own")
            // The filter's immediate `.firstPage` is handled inside its action's `handle`: both are
            // shown by the screen after the filter.
            let stepsShown = [0, 1, 2, 3, 4, 6, 7]
            for (index, step) in stepsShown.enumerated() {
                #expect(try session.screen(at: step) == shown[index], "step \(step)")
            }
            #expect(try session.screen(at: 2).lines(width: 30, height: 7, spinnerFrame: 0)[2] == "> #1  a")
        }
    }

    /// Today's handler, run over the recorded actions with effects dropped, reaches the same state at
    /// every step.
    @Test func theSessionReplaysThroughTodaysHandler() throws {
        try inSessionFile { file in
            let live = liveStore()
            let recorder = try live.startRecording(postsJournal(file: file))
            for action in sessionActions { live.handle(action: action) }
            recorder.stop()
            let replay = try RecordedSession(contentsOf: file).recording
                .replay(actionHandler: appHandler, dependency: client(.failure(.http(status: 599, host: "unused"))))
            #expect(replay.divergence == nil)
        }
    }

    /// A recorded step's store handles nothing: a `.load` sent to it starts no fetch.
    @Test func aRecordedStepCannotFetch() throws {
        try inSessionFile { file in
            let live = liveStore()
            let recorder = try live.startRecording(postsJournal(file: file))
            live.handle(action: .list(.loaded(.success(threePosts))))
            recorder.stop()
            let step = try RecordedSession(contentsOf: file).store(at: 1)
            step.handle(action: .list(.load))
            #expect(step.runningEffectIDs.isEmpty)
            #expect(!step.isLoading)
            #expect(step.posts == threePosts)
            #expect(step.source == "test")
        }
    }
}

/// The actions of a short session of ``liveStore()``: posts arrive, the list pages, the filter
/// changes, a post is read.
let sessionActions: [AppAction] = [
    .list(.setPageSize(2)), .list(.loaded(.success(threePosts))), .list(.nextPage), .list(.selectPrevious),
    .userFilter(.selectNextUser), .list(.open),
]

/// A store of the whole screen whose client is never asked in these tests: the session's posts are
/// sent as the `.loaded` action a fetch would deliver.
func liveStore() -> Store<PostsKey, AppAction, PostsClient> {
    Store(initialValues: [.pageSize: 10, .source: "test"], actionHandler: appHandler, dependency: client(.success([])))
}

/// A journal file of the test's own, removed after `body`.
func inSessionFile(_ body: (URL) throws -> Void) throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("PostsDemoSession-\(UUID()).journal")
    defer { try? FileManager.default.removeItem(at: file) }
    try body(file)
}
