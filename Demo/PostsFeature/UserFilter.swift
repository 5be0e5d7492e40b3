import CacheStore

/// The user filter: a feature of its own, run as a scoped store over the posts screen's state.
///
/// It sees one key of the screen, `.userFilter`, as its `.selectedUser`, and the loaded posts as
/// `.posts` (read-only here), to know which users exist. When it changes the selection, it tells
/// the screen to show the first page.
public enum UserFilterKey: Hashable, Sendable {
    case selectedUser
    case posts
}

public enum UserFilterAction: Equatable, Sendable {
    /// Select the next user who has posts, then everyone again after the last.
    case selectNextUser
    case selectUser(Int?)
}

public let userFilterHandler = StoreActionHandler<UserFilterKey, UserFilterAction, Void> { state, action, _ in
    switch action {
    case .selectNextUser:
        let users = Set((state.get(.posts, as: [Post].self) ?? []).map(\.userId)).sorted()
        let current = state.get(.selectedUser, as: Int.self)
        let next = current.flatMap { current in users.first { $0 > current } } ?? (current == nil ? users.first : nil)
        state.set(value: next, forKey: .selectedUser)
    case .selectUser(let user):
        state.set(value: user, forKey: .selectedUser)
    }
    return .none
}

extension Store where Key == PostsKey, Action == PostsAction {
    /// The user filter's store, over this store's `.userFilter` and `.posts`.
    public func userFilterStore() -> Store<UserFilterKey, UserFilterAction, Void> {
        scope(
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
            dependencyTransformation: { _ in () },
            actionTransformation: { _ in .firstPage })
    }
}
