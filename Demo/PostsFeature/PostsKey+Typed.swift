import CacheStore

// The posts screen's keys with their values' types, for the APIs that need them: persistence
// (``postsPersistence(folder:)``) and the session journal (``postsJournal(file:)``).

extension TypedKey<PostsKey, [Post]> {
    /// Every post loaded; empty before the first fetch finished.
    public static var posts: Self { .init(.posts, default: []) }
}

extension TypedKey<PostsKey, Bool> {
    /// A fetch is in flight.
    public static var isLoading: Self { .init(.isLoading, default: false) }
    /// The last fetch was cancelled by the user.
    public static var wasCancelled: Self { .init(.wasCancelled, default: false) }
}

extension TypedKey<PostsKey, PostsError?> {
    /// Why the last fetch failed; `nil` after a success.
    public static var error: Self { .init(.error, default: nil) }
}

extension TypedKey<PostsKey, Int?> {
    /// The user whose posts are shown; `nil`: everyone's.
    public static var userFilter: Self { .init(.userFilter, default: nil) }
}

extension TypedKey<PostsKey, Int> {
    /// The index, among the visible posts, of the first post shown.
    public static var top: Self { .init(.top, default: 0) }
    /// The index, among the visible posts, of the selected post.
    public static var selected: Self { .init(.selected, default: 0) }
    /// Posts per page.
    public static var pageSize: Self { .init(.pageSize, default: 10) }
}

extension TypedKey<PostsKey, PostsView> {
    /// The list, a post, or the help.
    public static var view: Self { .init(.view, default: .list) }
}

extension TypedKey<PostsKey, String?> {
    /// Where the posts come from, for people.
    public static var source: Self { .init(.source, default: nil) }
}
