/// What can happen in the demo: an action of one of its features, as ``appHandler`` runs them.
public enum AppAction: Codable, Equatable, Sendable {
    /// The posts list: loading, paging, selecting, reading.
    case list(PostsAction)
    /// The user filter.
    case userFilter(UserFilterAction)
}
