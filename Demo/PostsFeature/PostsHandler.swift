import CacheStore

/// The posts list's handler: loading with cancel-in-flight, paging, selecting, reading. The app runs
/// it lifted into ``appHandler``.
///
/// A fetch runs under ``PostsCancelID/fetch``: a new `.load` replaces the fetch in flight and
/// `.cancel` stops it, and the store never handles what a cancelled fetch returns.
public let postsHandler = StoreActionHandler<PostsKey, PostsAction, PostsClient> { state, action, client in
    switch action {
    case .load:
        state.set(value: true, forKey: .isLoading)
        state.remove(.error)
        state.remove(.wasCancelled)
        return ActionEffect(id: PostsCancelID.fetch) { .loaded(await client.fetch()) }
    case .cancel:
        if state.get(.isLoading, as: Bool.self) == true { state.set(value: true, forKey: .wasCancelled) }
        state.set(value: false, forKey: .isLoading)
        return .cancel(id: PostsCancelID.fetch)
    case .loaded(.success(let posts)):
        state.set(value: false, forKey: .isLoading)
        // The first posts of a launch show where the last launch left the list; a refresh, the top.
        let isFirstLoad = !state.contains(.posts)
        state.set(value: posts, forKey: .posts)
        if isFirstLoad {
            var list = ListPosition(state)
            list.select(list.selected)
            list.save(in: &state)
        } else {
            state.set(value: 0, forKey: .top)
            state.set(value: 0, forKey: .selected)
        }
    case .loaded(.failure(let error)):
        state.set(value: false, forKey: .isLoading)
        state.set(value: error, forKey: .error)
    case .firstPage:
        state.set(value: 0, forKey: .top)
        state.set(value: 0, forKey: .selected)
    case .setPageSize(let size):
        state.set(value: max(1, size), forKey: .pageSize)
        // Before the first posts, the position the last launch left waits for them.
        guard state.contains(.posts) else { break }
        var list = ListPosition(state)
        list.keepTop()
        list.save(in: &state)
    case .nextPage, .previousPage, .selectNext, .selectPrevious, .selectFirst, .selectLast:
        var list = ListPosition(state)
        list.move(action)
        list.save(in: &state)
    case .open:
        if ListPosition(state).count > 0 { state.set(value: PostsView.post(line: 0), forKey: .view) }
    case .showHelp:
        state.set(value: PostsView.help(line: 0), forKey: .view)
    case .back:
        state.remove(.view)
    case .scroll(let line):
        switch state.get(.view, as: PostsView.self) {
        case .post: state.set(value: PostsView.post(line: max(0, line)), forKey: .view)
        case .help: state.set(value: PostsView.help(line: max(0, line)), forKey: .view)
        case .list, nil: break
        }
    }
    return .none
}
