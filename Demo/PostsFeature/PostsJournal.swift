import CacheStore
import Foundation

/// The journal of a session of the posts screen, in `file`: every key the screen is drawn from, so
/// that the recorded state after any step draws the screen as it was then (``RecordedSession``).
///
/// ```swift
/// let recorder = try store.startRecording(postsJournal(file: sessionURL))
/// ```
///
/// A key the handler writes that the screen does not read would be noted by the recorder as
/// unrecorded: there is none, as the screen reads them all.
public func postsJournal(file: URL) -> Journal<PostsKey, AppAction> {
    Journal(file: file)
        .recording(.source)
        .recording(.posts)
        .recording(.isLoading)
        .recording(.error)
        .recording(.wasCancelled)
        .recording(.userFilter)
        .recording(.top)
        .recording(.selected)
        .recording(.pageSize)
        .recording(.view)
}
