import CacheStore
import Foundation

/// Which step of a recorded session the screen shows, as `[` (back) and `]` (forward) move it.
///
/// Replaying a finished session, every step from 0 to the last can be shown, and one always is.
/// In a session being recorded, the screen starts live (``screen`` is `nil`); `[` shows the step
/// before the last one recorded, and `]` past the step before the last comes back to the live
/// screen, which the last step is. Travelling reads the journal, never the live store: no action
/// is sent and no effect starts.
///
/// ```swift
/// var travel = TimeTravel(recordingIn: sessionURL)  // or TimeTravel(replaying: RecordedSession(contentsOf: url))
/// try travel.stepBack()  // the screen one action ago
/// draw(travel.screen ?? PostsScreen(store: store, source: source))
/// ```
public struct TimeTravel: Sendable {
    /// The session is still being recorded: the live screen is one of the places to be.
    public var isLive: Bool {
        if case .recording = steps { true } else { false }
    }
    /// The step shown; `nil`: the live screen.
    public private(set) var step: Int?
    /// The screen of the step shown, saying which step it is; `nil`: the live screen.
    public private(set) var screen: PostsScreen?
    private let steps: StepSource

    /// Where the steps come from.
    private enum StepSource {
        /// A finished session, read once.
        case replayed(RecordedSession)
        /// The file of a session being recorded, read at each move, as it grows.
        case recording(URL)
    }

    /// Travel through a finished session, from its last step.
    ///
    /// - Throws: ``JournalError`` when the session's last state cannot be read.
    public init(replaying session: RecordedSession) throws(JournalError) {
        steps = .replayed(session)
        step = session.steps
        screen = try session.screen(at: session.steps, travel: true)
    }

    /// Travel through the session being recorded into `file`, starting on the live screen.
    public init(recordingIn file: URL) {
        steps = .recording(file)
    }

    /// Shows the step before the one shown (the last but one, from the live screen); at step 0, stays.
    ///
    /// - Throws: ``JournalError`` when the journal cannot be read; nothing moves then.
    public mutating func stepBack() throws(JournalError) {
        try move(by: -1)
    }

    /// Shows the step after the one shown; in a live session, from the last but one, the live
    /// screen. At the end, stays.
    ///
    /// - Throws: ``JournalError`` when the journal cannot be read; nothing moves then.
    public mutating func stepForward() throws(JournalError) {
        try move(by: 1)
    }

    /// Back to the live screen, in a live session; a replay has none and stays where it is.
    public mutating func returnToLive() {
        guard isLive else { return }
        (step, screen) = (nil, nil)
    }

    private mutating func move(by offset: Int) throws(JournalError) {
        if step == nil && offset > 0 { return }
        let session: RecordedSession
        switch steps {
        case .replayed(let replayed): session = replayed
        case .recording(let file): session = try RecordedSession(contentsOf: file)
        }
        let next = max(0, min((step ?? session.steps) + offset, session.steps))
        if isLive && next >= session.steps {
            returnToLive()
            return
        }
        screen = try session.screen(at: next, travel: true, isLive: isLive)
        step = next
    }
}
