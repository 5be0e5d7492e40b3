import CacheStore

/// The posts screen's handler: loading with cancel-in-flight, paging.
public let postsHandler = StoreActionHandler<PostsKey, PostsAction, PostsClient> { state, action, client in
    switch action {
    case .load:
        state.set(value: true, forKey: .isLoading)
        state.remove(.error)
        return ActionEffect(id: PostsCancelID.fetch) {
            let result = await client.fetch()
            return Task.isCancelled ? nil : .loaded(result)
        }
    case .cancel:
        state.set(value: false, forKey: .isLoading)
        return .cancel(id: PostsCancelID.fetch)
    case .loaded(.success(let posts)):
        state.set(value: false, forKey: .isLoading)
        state.set(value: posts, forKey: .posts)
        state.set(value: 0, forKey: .page)
    case .loaded(.failure(let error)):
        state.set(value: false, forKey: .isLoading)
        state.set(value: error, forKey: .error)
    case .nextPage:
        movePage(in: &state, by: 1)
    case .previousPage:
        movePage(in: &state, by: -1)
    case .firstPage:
        state.set(value: 0, forKey: .page)
    case .setPageSize(let size):
        state.set(value: max(1, size), forKey: .pageSize)
        state.set(value: 0, forKey: .page)
    }
    return .none
}

/// Moves the page by `delta`, staying within the pages the visible posts fill.
private func movePage(in state: inout CacheStore<PostsKey>, by delta: Int) {
    let posts = state.get(.posts, as: [Post].self) ?? []
    let user = state.get(.userFilter, as: Int.self)
    let visible = user.map { user in posts.filter { $0.userId == user }.count } ?? posts.count
    let pageSize = state.get(.pageSize, as: Int.self) ?? 10
    let lastPage = max(0, (visible + pageSize - 1) / pageSize - 1)
    let page = state.get(.page, as: Int.self) ?? 0
    state.set(value: min(max(0, page + delta), lastPage), forKey: .page)
}
