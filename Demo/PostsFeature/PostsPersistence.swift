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
