import CacheStore
import Foundation
import PostsFeature
import Testing

/// `[` and `]` through a recorded session (``TimeTravel``): a finished one, and one still being
/// recorded, whose live store travel never touches.
@Suite(.timeLimit(.minutes(1))) struct TimeTravelTests {
    @Test func aReplayStartsAtTheLastStepAndStaysWithinTheSession() throws {
        try inSessionFile { file in
            let live = liveStore()
            let recorder = try live.startRecording(postsJournal(file: file))
            for action in sessionActions { live.handle(action: action) }
            recorder.stop()
            let session = try RecordedSession(contentsOf: file)
            var travel = try TimeTravel(replaying: session)
            #expect(travel.step == 7)
            #expect(travel.screen?.travel == TravelPosition(step: 7, steps: 7, isLive: false))
            let footer = travel.screen?.lines(width: 60, height: 7, spinnerFrame: 0).last
            #expect(footer == "step 7 of 7 · [ ] step · q quit")

            try travel.stepForward()
            #expect(travel.step == 7, "the last step is the end")
            try travel.stepBack()
            #expect(travel.step == 6)
            #expect(travel.screen?.view == .list, "the post was opened at step 7")
            var back = try session.screen(at: 6)
            back.travel = TravelPosition(step: 6, steps: 7, isLive: false)
            #expect(travel.screen == back)
            for _ in 0..<10 { try travel.stepBack() }
            #expect(travel.step == 0)
            #expect(travel.screen?.posts == [])
            travel.returnToLive()
            #expect(travel.step == 0, "a replay has no live screen")
            try travel.stepForward()
            try travel.stepForward()
            #expect(travel.screen?.posts.map(\.id) == [1, 2])
        }
    }

    /// Travelling in a live session reads the journal as it grows; the live store goes on, and
    /// `]` past the last recorded step, or Esc, is its screen again.
    @Test func aLiveSessionTravelsThroughWhatIsRecordedSoFar() throws {
        try inSessionFile { file in
            let live = liveStore()
            let recorder = try live.startRecording(postsJournal(file: file))
            defer { recorder.stop() }
            for action in sessionActions.prefix(3) { live.handle(action: action) }
            let liveScreen = PostsScreen(store: live, source: "test")
            var travel = TimeTravel(recordingIn: file)
            #expect(travel.screen == nil)
            try travel.stepForward()
            #expect(travel.screen == nil, "nothing is after the live screen")

            try travel.stepBack()
            #expect(travel.step == 2)
            #expect(travel.screen?.page == 0 && live.page == 1)
            let footer = travel.screen?.lines(width: 60, height: 7, spinnerFrame: 0).last
            #expect(footer == "step 2 of 3 · [ ] step · Esc live")
            #expect(PostsScreen(store: live, source: "test") == liveScreen, "travel leaves the live store as it was")

            live.handle(action: .list(.selectPrevious))  // the session goes on while a step is shown
            try travel.stepForward()
            #expect(travel.screen?.travel == TravelPosition(step: 3, steps: 4, isLive: true))
            try travel.stepForward()
            #expect(travel.screen == nil, "the last step is the live screen")

            try travel.stepBack()
            #expect(travel.step == 3)
            travel.returnToLive()
            #expect(travel.step == nil && travel.screen == nil)
        }
    }

    @Test func aTravelledStepSaysWhatWasHappening() throws {
        try inSessionFile { file in
            let live = liveStore()
            let recorder = try live.startRecording(postsJournal(file: file))
            live.handle(action: .list(.loaded(.failure(.http(status: 503, host: "example.com")))))
            recorder.stop()
            let travel = try TimeTravel(replaying: RecordedSession(contentsOf: file))
            #expect(
                travel.screen?.lines(width: 80, height: 7, spinnerFrame: 0).last
                    == "step 1 of 1 · [ ] step · q quit · error: example.com answered HTTP 503")
        }
    }
}
