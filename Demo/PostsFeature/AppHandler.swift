import CacheStore

/// The demo's one handler, built from its features: the posts list and the user filter, each lifted
/// onto its keys of the screen's state (``listFeature``, ``userFilterFeature``), and the list's
/// reaction to the filter.
///
/// One `Store` with this handler runs the whole screen, and one `TestStore` tests it end to end:
///
/// ```swift
/// let store = Store(initialValues: [.pageSize: 10], actionHandler: appHandler, dependency: .sample())
/// store.handle(action: .list(.load))
/// store.handle(action: .userFilter(.selectNextUser))  // then the list shows its first page
/// ```
public let appHandler = StoreActionHandler<PostsKey, AppAction, PostsClient>(combining: [
    listFeature.handler(postsHandler, dependency: { client in client }),
    userFilterFeature.handler(userFilterHandler),
    // Whatever the filter did, the list then shows its first page: handled right after, in the same `handle`.
    StoreActionHandler { _, action, _ in
        guard case .userFilter = action else { return .none }
        return ActionEffect(.list(.firstPage))
    },
])

/// Where the posts list sits in the app. The list is the screen: it reads every key, the filter's
/// too (to count the posts it shows). Its effects run under the lift's own ids: the app reaches its
/// fetch as `listFeature.effectID(PostsCancelID.fetch)`.
public let listFeature = FeatureLift(label: "list", appKeys: Set(PostsKey.allCases), action: AppAction.list)

/// Where the user filter sits in the app: it sees the screen's `.userFilter` as its `.selectedUser`,
/// and the posts, to know the users.
public let userFilterFeature = FeatureLift(
    label: "userFilter",
    keys: [UserFilterKey.selectedUser: PostsKey.userFilter, .posts: .posts],
    action: AppAction.userFilter)
