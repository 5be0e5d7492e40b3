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
    listFeature,
    userFilterFeature,
    // Whatever the filter did, the list then shows its first page: handled right after, in the same `handle`.
    StoreActionHandler { _, action, _ in
        guard case .userFilter = action else { return .none }
        return ActionEffect(.list(.firstPage))
    },
])

/// The posts list, lifted into the app. The list is the screen: it reads every key, the filter's too
/// (to count the posts it shows). Its effects run under the lift's own ids: the app reaches its fetch
/// as `listFeature.effectID(PostsCancelID.fetch)`.
public let listFeature = StoreActionHandler<PostsKey, AppAction, PostsClient>.scope(
    label: "list",
    keys: Set(PostsKey.allCases),
    actionHandler: postsHandler,
    extractAction: { action in
        if case .list(let listAction) = action { listAction } else { nil }
    },
    embedAction: AppAction.list,
    dependencyTransformation: { client in client }
)

/// The user filter, lifted into the app: it sees the screen's `.userFilter` as its `.selectedUser`,
/// and the posts, to know the users.
public let userFilterFeature = StoreActionHandler<PostsKey, AppAction, PostsClient>.scope(
    label: "userFilter",
    keyTransformation: (
        from: { key in
            switch key {
            case .userFilter: .selectedUser
            case .posts: .posts
            default: nil
            }
        },
        to: { key in
            switch key {
            case .selectedUser: .userFilter
            case .posts: .posts
            case nil: nil
            }
        }
    ),
    actionHandler: userFilterHandler,
    extractAction: { action in
        if case .userFilter(let filterAction) = action { filterAction } else { nil }
    },
    embedAction: AppAction.userFilter,
    dependencyTransformation: { _ in () }
)
