import CacheStore

/// The interactive screen, rendered as lines of text that fit a terminal.
public struct PostsScreen: Equatable, Sendable {
    public var source: String
    public var posts: [Post]
    public var page: Int
    public var pageCount: Int
    public var visibleCount: Int
    public var isLoading: Bool
    public var error: PostsError?
    public var userFilter: Int?

    /// Lines of chrome around the list: title, rule, rule, status, keys.
    public static let chromeLines = 5
    public static let spinnerFrames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// The screen for `store`'s state now.
    public init(store: Store<PostsKey, PostsAction, PostsClient>, source: String) {
        self.source = source
        posts = Array(store.postsOnPage)
        page = store.page
        pageCount = store.pageCount
        visibleCount = store.visiblePosts.count
        isLoading = store.isLoading
        error = store.error
        userFilter = store.userFilter
    }

    /// The screen's lines, each at most `width` characters; post text is sanitized.
    public func lines(width: Int, spinnerFrame: Int) -> [String] {
        let rule = String(repeating: "─", count: max(0, width))
        let list = posts.map { post in
            TerminalText.truncated("#\(post.id)  \(TerminalText.sanitized(post.title))", to: width)
        }
        let status: String
        if isLoading {
            status = "\(Self.spinnerFrames[spinnerFrame % Self.spinnerFrames.count]) Loading \(source)…"
        } else if let error {
            status = "error: \(TerminalText.sanitized(error.description))"
        } else {
            let user = userFilter.map { "user \($0)" } ?? "all users"
            status = "page \(page + 1)/\(pageCount) · \(visibleCount) posts · \(user)"
        }
        return [
            TerminalText.truncated("CacheStore posts — \(TerminalText.sanitized(source))", to: width), rule,
        ] + (list.isEmpty && !isLoading && error == nil ? ["(no posts)"] : list) + [
            rule, TerminalText.truncated(status, to: width),
            TerminalText.truncated("r refresh · c cancel · n/p page · u user · q quit", to: width),
        ]
    }
}
