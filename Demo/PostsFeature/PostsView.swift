/// What the posts screen shows: the list, one post being read, or the help.
public enum PostsView: Codable, Equatable, Sendable {
    case list
    /// The selected post, scrolled down to `line`.
    case post(line: Int)
    /// The keys and the last error, scrolled down to `line`.
    case help(line: Int)
}
