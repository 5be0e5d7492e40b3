import CacheStore

/// The keys of the posts screen's state.
public enum PostsKey: Hashable, Sendable {
    /// `[Post]`: every post loaded.
    case posts
    /// `Bool`: a fetch is in flight.
    case isLoading
    /// `PostsError`: why the last fetch failed (absent after a success).
    case error
    /// `Int`: the page shown, from 0.
    case page
    /// `Int`: posts per page.
    case pageSize
    /// `Int`: the user whose posts are shown (absent: everyone's). Owned by the user filter.
    case userFilter
}

/// Reads of the posts screen's state, typed.
extension Store where Key == PostsKey {
    public var posts: [Post] { self.get(.posts, as: [Post].self) ?? [] }
    public var isLoading: Bool { self.get(.isLoading, as: Bool.self) ?? false }
    public var error: PostsError? { self.get(.error, as: PostsError.self) }
    public var page: Int { self.get(.page, as: Int.self) ?? 0 }
    public var pageSize: Int { self.get(.pageSize, as: Int.self) ?? 10 }
    public var userFilter: Int? { self.get(.userFilter, as: Int.self) }

    /// The posts that pass the user filter.
    public var visiblePosts: [Post] {
        guard let user = userFilter else { return posts }
        return posts.filter { $0.userId == user }
    }

    /// How many pages the visible posts fill (at least 1).
    public var pageCount: Int {
        max(1, (visiblePosts.count + pageSize - 1) / pageSize)
    }

    /// The visible posts on the current page.
    public var postsOnPage: ArraySlice<Post> {
        let visible = visiblePosts
        let start = min(page * pageSize, visible.count)
        return visible[start..<min(start + pageSize, visible.count)]
    }
}
