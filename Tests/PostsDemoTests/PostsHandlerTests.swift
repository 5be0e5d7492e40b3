import CacheStoreTesting
import Foundation
import PostsFeature
import Testing

let threePosts = [
    Post(id: 1, userId: 1, title: "a", body: ""), Post(id: 2, userId: 1, title: "b", body: ""),
    Post(id: 3, userId: 2, title: "c", body: ""),
]

func client(_ result: Result<[Post], PostsError>) -> PostsClient {
    PostsClient(sourceDescription: "test") { result }
}

@Suite(.timeLimit(.minutes(2))) struct PostsHandlerTests {
    @Test func loadingShowsTheFirstPage() async {
        let store = TestStore(
            initialValues: [.pageSize: 2], actionHandler: postsHandler, dependency: client(.success(threePosts)))
        store.send(.load) { $0.set(value: true, forKey: .isLoading) }
        #expect(store.runningEffectIDs == [AnyHashable(PostsCancelID.fetch)])
        await store.receive(.loaded(.success(threePosts))) { state in
            state.set(value: false, forKey: .isLoading)
            state.set(value: threePosts, forKey: .posts)
            state.set(value: 0, forKey: .top)
            state.set(value: 0, forKey: .selected)
        }
        #expect(store.store.postsOnPage.map(\.id) == [1, 2])
        #expect(store.store.pageCount == 2)
    }

    @Test(arguments: [
        PostsError.http(status: 404, host: "example.com"),
        .transport(host: "example.com", reason: "connection refused"),
        .decoding(path: "$[0].id", reason: "expected Int"),
    ])
    func eachFailureBecomesAnErrorState(error: PostsError) async {
        let store = TestStore(initialValues: [:], actionHandler: postsHandler, dependency: client(.failure(error)))
        store.send(.load) { $0.set(value: true, forKey: .isLoading) }
        await store.receive(.loaded(.failure(error))) { state in
            state.set(value: false, forKey: .isLoading)
            state.set(value: error, forKey: .error)
        }
        // A new load clears the error while it runs.
        store.send(.load) { state in
            state.set(value: true, forKey: .isLoading)
            state.remove(.error)
        }
        store.cancel(id: PostsCancelID.fetch)
    }

    @Test func cancelStopsTheFetchInFlight() {
        let store = TestStore(initialValues: [:], actionHandler: postsHandler, dependency: client(.success(threePosts)))
        store.send(.load) { $0.set(value: true, forKey: .isLoading) }
        store.send(.cancel) { state in
            state.set(value: false, forKey: .isLoading)
            state.set(value: true, forKey: .wasCancelled)
        }
        #expect(store.runningEffectIDs.isEmpty)
    }

    @Test func refreshingWhileLoadingReplacesTheFetch() async {
        let store = TestStore(initialValues: [:], actionHandler: postsHandler, dependency: client(.success(threePosts)))
        store.send(.load) { $0.set(value: true, forKey: .isLoading) }
        store.send(.load)
        #expect(store.runningEffectIDs.count == 1)
        await store.receive(.loaded(.success(threePosts))) { state in
            state.set(value: false, forKey: .isLoading)
            state.set(value: threePosts, forKey: .posts)
            state.set(value: 0, forKey: .top)
            state.set(value: 0, forKey: .selected)
        }
    }

    @Test func refreshingWhileLoadingShowsOnlyTheNewerResult() async throws {
        // A real store: the first fetch is slow and would answer "old"; the refresh answers "new".
        let calls = LockedCount()
        let slowThenFast = PostsClient(sourceDescription: "test") {
            if calls.increment() == 1 {
                try? await Task.sleep(for: .milliseconds(300))
                return .success([Post(id: 1, userId: 1, title: "old", body: "")])
            }
            return .success([Post(id: 2, userId: 1, title: "new", body: "")])
        }
        let store = Store(initialValues: [:], actionHandler: postsHandler, dependency: slowThenFast)
        store.handle(action: .load)
        store.handle(action: .load)
        try await Task.sleep(for: .milliseconds(600))
        #expect(store.posts.map(\.title) == ["new"])
        #expect(!store.isLoading)
    }

    @Test func pagingStaysWithinThePagesAndTheSelectionMovesWithIt() {
        let store = TestStore(
            initialValues: [.posts: threePosts, .pageSize: 2, .top: 0, .selected: 0], actionHandler: postsHandler,
            dependency: client(.success([])))
        store.send(.previousPage)
        store.send(.nextPage) { state in
            state.set(value: 2, forKey: .top)
            state.set(value: 2, forKey: .selected)
        }
        store.send(.nextPage)
        #expect(store.store.page == 1)
        #expect(store.store.postsOnPage.map(\.id) == [3])
    }

    @Test func aNewPageSizeKeepsTheFirstPostShown() {
        let many = (1...20).map { Post(id: $0, userId: 1, title: "", body: "") }
        let store = TestStore(
            initialValues: [.posts: many, .pageSize: 11, .top: 11, .selected: 11], actionHandler: postsHandler,
            dependency: client(.success([])))
        store.send(.setPageSize(5)) { $0.set(value: 5, forKey: .pageSize) }
        #expect(store.store.postsOnPage.map(\.id) == [12, 13, 14, 15, 16])
        #expect(store.store.page == 2)
        store.send(.nextPage) { state in
            state.set(value: 16, forKey: .top)
            state.set(value: 16, forKey: .selected)
        }
        store.send(.selectLast) { state in
            state.set(value: 15, forKey: .top)
            state.set(value: 19, forKey: .selected)
        }
        // A page that no longer reaches the selection keeps its first post and takes the selection along.
        store.send(.setPageSize(2)) { state in
            state.set(value: 2, forKey: .pageSize)
            state.set(value: 16, forKey: .selected)
        }
        #expect(store.store.postsOnPage.map(\.id) == [16, 17])
    }

    @Test func selectingScrollsAsLittleAsShowsTheSelection() {
        let many = (1...10).map { Post(id: $0, userId: 1, title: "", body: "") }
        let store = TestStore(
            initialValues: [.posts: many, .pageSize: 3], actionHandler: postsHandler, dependency: client(.success([])))
        store.send(.selectPrevious) { state in
            state.set(value: 0, forKey: .top)
            state.set(value: 0, forKey: .selected)
        }
        store.send(.selectNext) { $0.set(value: 1, forKey: .selected) }
        store.send(.selectNext) { $0.set(value: 2, forKey: .selected) }
        store.send(.selectNext) { state in
            state.set(value: 1, forKey: .top)
            state.set(value: 3, forKey: .selected)
        }
        store.send(.selectLast) { state in
            state.set(value: 7, forKey: .top)
            state.set(value: 9, forKey: .selected)
        }
        #expect(store.store.page == 3)
        #expect(store.store.pageCount == 4)
        store.send(.selectFirst) { state in
            state.set(value: 0, forKey: .top)
            state.set(value: 0, forKey: .selected)
        }
    }

    @Test func readingAPostAndTheHelpAndGoingBack() {
        let store = TestStore(
            initialValues: [.posts: threePosts, .selected: 1], actionHandler: postsHandler,
            dependency: client(.success([])))
        store.send(.open) { $0.set(value: PostsView.post(line: 0), forKey: .view) }
        #expect(store.store.selectedPost?.id == 2)
        store.send(.scroll(to: 3)) { $0.set(value: PostsView.post(line: 3), forKey: .view) }
        store.send(.scroll(to: -1)) { $0.set(value: PostsView.post(line: 0), forKey: .view) }
        store.send(.back) { $0.remove(.view) }
        store.send(.scroll(to: 2))  // nothing to scroll in the list
        store.send(.showHelp) { $0.set(value: PostsView.help(line: 0), forKey: .view) }
        store.send(.back) { $0.remove(.view) }

        let empty = TestStore(initialValues: [:], actionHandler: postsHandler, dependency: client(.success([])))
        empty.send(.open)  // no post to read
    }

    @Test func cancellingSaysSoAndKeepsThePosts() {
        let store = TestStore(
            initialValues: [.posts: threePosts], actionHandler: postsHandler, dependency: client(.success([])))
        store.send(.load) { $0.set(value: true, forKey: .isLoading) }
        store.send(.cancel) { state in
            state.set(value: false, forKey: .isLoading)
            state.set(value: true, forKey: .wasCancelled)
        }
        #expect(store.store.posts == threePosts)
        store.send(.cancel)  // nothing in flight: nothing to say
        store.send(.load) { state in
            state.set(value: true, forKey: .isLoading)
            state.remove(.wasCancelled)
        }
        store.cancel(id: PostsCancelID.fetch)
    }
}

final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}
