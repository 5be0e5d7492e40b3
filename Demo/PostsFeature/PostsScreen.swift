import CacheStore

/// The interactive screen, rendered as lines of text that fit a terminal of any size.
public struct PostsScreen: Equatable, Sendable {
    public var source: String
    /// The posts shown now, from the first post shown.
    public var posts: [Post]
    /// The index of the first of ``posts`` among the visible posts.
    public var top: Int
    /// The index of the selected post among the visible posts.
    public var selected: Int
    public var selectedPost: Post?
    public var page: Int
    public var pageCount: Int
    public var visibleCount: Int
    public var isLoading: Bool
    public var hasLoaded: Bool
    public var error: PostsError?
    public var wasCancelled: Bool
    public var userFilter: Int?
    public var view: PostsView
    /// The recorded step shown, when travelling through a session; `nil`: the screen now.
    public var travel: TravelPosition?

    /// Lines around the list in a window of 6 rows or more: title, rule, rule, status, keys.
    public static let chromeLines = 5
    public static let spinnerFrames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// The screen for `store`'s state now: a live store's, or one holding a recorded step's state.
    public init<Action, Dependency>(store: Store<PostsKey, Action, Dependency>, source: String) {
        self.source = source
        posts = Array(store.postsOnPage)
        top = store.top
        selected = store.selected
        selectedPost = store.selectedPost
        page = store.page
        pageCount = store.pageCount
        visibleCount = store.visiblePosts.count
        isLoading = store.isLoading
        hasLoaded = store.hasLoaded
        error = store.error
        wasCancelled = store.wasCancelled
        userFilter = store.userFilter
        view = store.view
    }

    /// The rows a window of `height` rows has for posts (or a post's text): all but the title,
    /// rules, status and keys; all but status and keys below 6 rows; at least 1.
    public static func listRows(height: Int) -> Int {
        height >= 6 ? height - chromeLines : max(1, height - 2)
    }

    /// The screen's lines: exactly `height` of them, each at most `width` cells; post text is sanitized.
    ///
    /// - Parameters:
    ///   - width: The window's columns.
    ///   - height: The window's rows.
    ///   - spinnerFrame: Which frame of the loading spinner to show.
    /// - Returns: The lines, top to bottom.
    public func lines(width: Int, height: Int, spinnerFrame: Int) -> [String] {
        var screen: (title: String, body: [String], status: String, keys: String)
        switch view {
        case .list:
            screen = (header, listLines, status, footer(width: width, spinnerFrame: spinnerFrame))
        case .post(let line):
            let text = reading(width: width, height: height, from: line, post: true)
            let title = selectedPost.map(Self.heading) ?? header
            screen = (title, text.lines, text.position, "Up/Down PgUp/PgDn scroll · Esc back")
        case .help(let line):
            let text = reading(width: width, height: height, from: line, post: false)
            screen = ("CacheStore posts — keys", text.lines, text.position, "Esc or q back")
        }
        if let travel { screen.keys = travelFooter(travel) }
        let rows = Self.listRows(height: height)
        let body = screen.body.prefix(rows) + Array(repeating: "", count: max(0, rows - screen.body.count))
        let all: [String]
        switch height {
        case ...1: all = [screen.status]
        case 2: all = [screen.status, screen.keys]
        case 3..<6: all = body + [screen.status, screen.keys]
        default:
            let rule = String(repeating: "─", count: max(0, width))
            all = [screen.title, rule] + body + [rule, screen.status, screen.keys]
        }
        return all.prefix(max(1, height)).map { TerminalText.truncated($0, to: width) }
    }

    /// The last line a post or the help can be scrolled to in this window, so its end shows.
    ///
    /// - Returns: 0 when everything fits.
    public func lastScrollLine(width: Int, height: Int) -> Int {
        let post: Bool
        switch view {
        case .list: return 0
        case .post: post = true
        case .help: post = false
        }
        return max(0, readingText(width: width, post: post).count - Self.listRows(height: height))
    }

    private var header: String {
        "CacheStore posts — \(TerminalText.sanitized(source))"
    }

    private static func heading(_ post: Post) -> String {
        "#\(post.id)  \(TerminalText.sanitized(post.title))"
    }

    private var listLines: [String] {
        guard posts.isEmpty else {
            return posts.enumerated().map { offset, post in
                (top + offset == selected ? "> " : "  ") + Self.heading(post)
            }
        }
        if isLoading { return [] }
        if wasCancelled { return ["(fetch cancelled)"] }
        if error != nil { return ["(no posts: the fetch failed)"] }
        return hasLoaded ? ["(no posts)"] : []
    }

    private var status: String {
        let user = userFilter.map { "user \($0)" } ?? "all users"
        return "page \(page + 1)/\(pageCount) · \(visibleCount) posts · \(user)"
    }

    /// Which step is shown and the keys that travel, then what was happening at that step: the keys
    /// come first, so that a long error is what a narrow window cuts.
    private func travelFooter(_ travel: TravelPosition) -> String {
        var parts = ["step \(travel.step) of \(travel.steps)", "[ ] step", travel.isLive ? "Esc live" : "q quit"]
        if isLoading { parts.append("loading") }
        if let error { parts.append("error: \(TerminalText.sanitized(error.description))") }
        if wasCancelled { parts.append("fetch cancelled") }
        return parts.joined(separator: " · ")
    }

    /// The keys, or what happened: loading, the error (with `? more` when it does not fit), cancelled.
    private func footer(width: Int, spinnerFrame: Int) -> String {
        if isLoading {
            let frame = Self.spinnerFrames[spinnerFrame % Self.spinnerFrames.count]
            return "\(frame) Loading \(TerminalText.sanitized(source))…"
        }
        if let error {
            let message = "error: \(TerminalText.sanitized(error.description))"
            let more = " · ? more"
            guard TerminalText.width(of: message) > width, width > more.count + 8 else { return message }
            return TerminalText.truncated(message, to: width - more.count) + more
        }
        if wasCancelled { return "fetch cancelled · r fetch again" }
        return "r refresh · c cancel · n/p page · u user · q quit · ? help"
    }
}
