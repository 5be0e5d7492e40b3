import CacheStore

/// The user filter: a feature of its own, with its own keys, lifted into ``appHandler``.
///
/// It sees one key of the screen, `.userFilter`, as its `.selectedUser`, and the loaded posts as
/// `.posts` (read-only here), to know which users exist. It knows nothing of the list: the app
/// makes the list show its first page after each filter action.
public enum UserFilterKey: Hashable, Sendable {
    case selectedUser
    case posts
}

public enum UserFilterAction: Codable, Equatable, Sendable {
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
