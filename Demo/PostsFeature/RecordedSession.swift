import CacheStore
import Foundation

/// A session of the posts screen read back from its journal (``postsJournal(file:)``): the screen
/// after any of its steps, drawn from the recorded state alone. No handler runs, no effect starts
/// and nothing is fetched: the posts shown are the ones the journal holds.
///
/// ```swift
/// let session = try RecordedSession(contentsOf: sessionURL)
/// let last = try session.screen(at: session.steps)
/// print(last.lines(width: 80, height: 24, spinnerFrame: 0).joined(separator: "\n"))
/// ```
public struct RecordedSession: Sendable {
    /// The journal, as read when the session was made: a journal still being recorded grows
    /// after it, which a new `RecordedSession` of the same file sees.
    public let recording: RecordedJournal<PostsKey, AppAction>

    /// Reads the session recorded in `file`.
    ///
    /// - Throws: ``JournalError``: a file that cannot be read, is not a journal, is of a later
    ///   format, or was recorded by another program's types.
    public init(contentsOf file: URL) throws(JournalError) {
        recording = try RecordedJournal(contentsOf: file, journal: postsJournal(file: file))
    }

    /// How many actions the session recorded.
    public var steps: Int { recording.steps }

    /// The state after the first `step` actions, in a store that handles nothing: a store that
    /// the screen's reads work on, and that no key can make fetch.
    ///
    /// - Throws: ``JournalError/noSuchStep(_:steps:)`` outside `0...steps`, or
    ///   ``JournalError/undecodableValue(key:valueType:message:)``.
    public func store(at step: Int) throws(JournalError) -> Store<PostsKey, AppAction, Void> {
        Store(initialValues: Self.inRange(try recording.state(at: step)), actionHandler: .none)
    }

    /// `state` with each value the live screen never holds brought into its range: a journal may be
    /// any program's, and the screen's arithmetic trusts its page size and positions.
    static func inRange(_ state: [PostsKey: Any]) -> [PostsKey: Any] {
        var state = state
        let posts = (state[.posts] as? [Post])?.count ?? 0
        if let pageSize = state[.pageSize] as? Int { state[.pageSize] = min(max(pageSize, 1), 1_000) }
        for key in [PostsKey.top, .selected] {
            if let index = state[key] as? Int { state[key] = min(max(index, 0), max(posts - 1, 0)) }
        }
        if case .post(let line)? = state[.view] as? PostsView { state[.view] = PostsView.post(line: max(line, 0)) }
        return state
    }

    /// The screen after the first `step` actions, naming the recorded source.
    ///
    /// - Parameters:
    ///   - step: How many actions the state shown follows: 0 is the state the session started
    ///     from, ``steps`` its last.
    ///   - travel: Whether the screen says which step it shows (and how to travel), or looks as
    ///     it looked in the session.
    ///   - isLive: The session is still being recorded (what the travel keys say).
    /// - Throws: As ``store(at:)``.
    public func screen(at step: Int, travel: Bool = false, isLive: Bool = false) throws(JournalError)
        -> PostsScreen
    {
        let store = try store(at: step)
        var screen = PostsScreen(store: store, source: store.source ?? "a recorded session")
        if travel { screen.travel = TravelPosition(step: step, steps: steps, isLive: isLive) }
        return screen
    }
}
