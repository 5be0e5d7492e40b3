import CacheStore

/// The keys of the posts screen's state.
public enum PostsKey: Hashable, Sendable, CaseIterable {
    /// `[Post]`: every post loaded (absent before the first fetch finished).
    case posts
    /// `Bool`: a fetch is in flight.
    case isLoading
    /// `PostsError`: why the last fetch failed (absent after a success).
    case error
    /// `Bool`: the last fetch was cancelled by the user.
    case wasCancelled
    /// `Int`: the index, among the visible posts, of the first post shown.
    case top
    /// `Int`: the index, among the visible posts, of the selected post.
    case selected
    /// `Int`: posts per page.
    case pageSize
    /// `Int`: the user whose posts are shown (absent: everyone's). Owned by the user filter.
    case userFilter
    /// `PostsView`: the list, a post, or the help (absent: the list).
    case view
    /// `String`: where the posts come from, for people (the client's ``PostsClient/sourceDescription``):
    /// part of the state, so that a recorded session's screen names its source.
    case source
}

/// Reads of the posts screen's state, typed.
extension Store where Key == PostsKey {
    public var posts: [Post] { self.get(.posts, as: [Post].self) ?? [] }
    /// A fetch has finished with posts at least once.
    public var hasLoaded: Bool { self.get(.posts, as: [Post].self) != nil }
    public var isLoading: Bool { self.get(.isLoading, as: Bool.self) ?? false }
    public var error: PostsError? { self.get(.error, as: PostsError.self) }
    public var wasCancelled: Bool { self.get(.wasCancelled, as: Bool.self) ?? false }
    /// The first post shown; a restored value outside the posts (a hand-edited file) reads as 0.
    public var top: Int {
        let top = self.get(.top, as: Int.self) ?? 0
        return (0...max(0, visiblePosts.count - 1)).contains(top) ? top : 0
    }
    public var selected: Int { self.get(.selected, as: Int.self) ?? 0 }
    public var pageSize: Int { self.get(.pageSize, as: Int.self) ?? 10 }
    public var userFilter: Int? { self.get(.userFilter, as: Int.self) }
    public var view: PostsView { self.get(.view, as: PostsView.self) ?? .list }
    /// Where the posts come from, when the state says.
    public var source: String? { self.get(.source, as: String.self) }

    /// The posts that pass the user filter.
    public var visiblePosts: [Post] {
        guard let user = userFilter else { return posts }
        return posts.filter { $0.userId == user }
    }

    /// How many pages the visible posts fill (at least 1).
    public var pageCount: Int {
        max(1, (visiblePosts.count + pageSize - 1) / pageSize)
    }

    /// The page shown, from 0: the one the first post shown is on, or the last when the last post shows.
    public var page: Int {
        top + pageSize >= visiblePosts.count ? pageCount - 1 : min(top / pageSize, pageCount - 1)
    }

    /// The visible posts shown now: a page's worth from the first post shown.
    public var postsOnPage: ArraySlice<Post> {
        let visible = visiblePosts
        let start = min(top, visible.count)
        return visible[start..<min(start + pageSize, visible.count)]
    }

    /// The selected post, if there are posts.
    public var selectedPost: Post? {
        let visible = visiblePosts
        return visible.indices.contains(selected) ? visible[selected] : nil
    }
}
