import CacheStore

/// Where the list is: the first post shown and the selected one, among `count` visible posts in
/// pages of `pageSize`. Every move keeps the selection on screen.
struct ListPosition {
    var top: Int
    var selected: Int
    let count: Int
    let pageSize: Int

    init(_ state: CacheStore<PostsKey>) {
        let posts = state.get(.posts, as: [Post].self) ?? []
        let user = state.get(.userFilter, as: Int.self)
        count = user.map { user in posts.filter { $0.userId == user }.count } ?? posts.count
        pageSize = max(1, state.get(.pageSize, as: Int.self) ?? 10)
        // Restored values may be anything an Int holds: brought within the posts, so no step overflows.
        top = min(max(0, state.get(.top, as: Int.self) ?? 0), max(0, count - 1))
        selected = min(max(0, state.get(.selected, as: Int.self) ?? 0), max(0, count - 1))
    }

    mutating func move(_ action: PostsAction) {
        switch action {
        case .nextPage where top + pageSize < count:
            top += pageSize
            select(selected + pageSize)
        case .previousPage:
            top = max(0, top - pageSize)
            select(selected - pageSize)
        case .selectNext: select(selected + 1)
        case .selectPrevious: select(selected - 1)
        case .selectFirst: (top, selected) = (0, 0)
        case .selectLast:  // a whole page, ending with the last post
            top = max(0, count - pageSize)
            select(count - 1)
        default: break
        }
    }

    /// Selects `index` (kept within the posts), scrolling the list as little as shows it.
    mutating func select(_ index: Int) {
        selected = min(max(0, index), max(0, count - 1))
        if selected < top { top = selected }
        if selected >= top + pageSize { top = selected - pageSize + 1 }
    }

    /// Keeps the first post shown (after the page size changed), moving the selection onto the page.
    mutating func keepTop() {
        selected = min(max(selected, top), max(top, min(top + pageSize, count) - 1))
    }

    func save(in state: inout CacheStore<PostsKey>) {
        state.set(value: top, forKey: .top)
        state.set(value: selected, forKey: .selected)
    }
}
