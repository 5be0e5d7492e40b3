/// What can happen on the posts screen.
public enum PostsAction: Equatable, Sendable {
    /// Fetch the posts; a fetch in flight is cancelled first (same effect id).
    case load
    /// Stop the fetch in flight; the posts shown before stay.
    case cancel
    /// A fetch finished.
    case loaded(Result<[Post], PostsError>)
    /// Show the next page of posts, the selection moving with it.
    case nextPage
    /// Show the previous page of posts, the selection moving with it.
    case previousPage
    /// Show the first page: after the filter changed.
    case firstPage
    /// Fit pages to the terminal, keeping the first post shown in view.
    case setPageSize(Int)
    /// Select the post below the selected one, scrolling to it.
    case selectNext
    /// Select the post above the selected one, scrolling to it.
    case selectPrevious
    /// Select the first post.
    case selectFirst
    /// Select the last post, on the last page.
    case selectLast
    /// Read the selected post.
    case open
    /// Show the keys, and the whole of the last error.
    case showHelp
    /// Back to the list from a post or the help.
    case back
    /// Scroll the post or help being read to `line`, from 0.
    case scroll(to: Int)
}

/// Effect ids of the posts screen.
public enum PostsCancelID: Hashable, Sendable {
    case fetch
}
