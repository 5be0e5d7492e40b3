import CacheStore
import Foundation

/// What the demo remembers across launches: the user filter, and where the list is (the first post
/// shown and the selected one). Nothing else of the screen outlives the process.
///
/// ```swift
/// let store = Store(
///     initialValues: [.pageSize: 10], actionHandler: appHandler, dependency: .sample(),
///     persistence: postsPersistence(folder: stateFolder))
/// ```
public func postsPersistence(folder: URL) -> Persistence<PostsKey> {
    Persistence(folder: folder)
        .persisting(.userFilter)
        .persisting(.top)
        .persisting(.selected)
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
}
