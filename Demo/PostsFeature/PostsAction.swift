/// What can happen on the posts screen.
public enum PostsAction: Equatable, Sendable {
    /// Fetch the posts; a fetch in flight is cancelled first (same effect id).
    case load
    /// Stop the fetch in flight.
    case cancel
    /// A fetch finished.
    case loaded(Result<[Post], PostsError>)
    case nextPage
    case previousPage
    /// Show the first page: after the filter changed.
    case firstPage
    /// Fit pages to the terminal.
    case setPageSize(Int)
}

/// Effect ids of the posts screen.
public enum PostsCancelID: Hashable, Sendable {
    case fetch
}
