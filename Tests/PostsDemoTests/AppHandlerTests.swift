import CacheStoreTesting
import PostsFeature
import Testing

/// The whole screen through ``appHandler``: the list and the user filter in one store.
@Suite(.timeLimit(.minutes(2))) struct AppHandlerTests {
    @Test func aFilterChangeTakesTheListToItsFirstPage() async {
        let store = TestStore(
            initialValues: [.pageSize: 2], actionHandler: appHandler, dependency: client(.success(threePosts)))
        store.send(.list(.load)) { $0.set(value: true, forKey: .isLoading) }
        await store.receive(.list(.loaded(.success(threePosts)))) { state in
            state.set(value: false, forKey: .isLoading)
            state.set(value: threePosts, forKey: .posts)
            state.set(value: 0, forKey: .top)
            state.set(value: 0, forKey: .selected)
        }
        store.send(.list(.selectLast)) { state in
            state.set(value: 1, forKey: .top)
            state.set(value: 2, forKey: .selected)
        }
        // The filter writes its `.selectedUser`, which is the screen's `.userFilter`; then the list reacts.
        store.send(.userFilter(.selectNextUser)) { $0.set(value: 1, forKey: .userFilter) }
        await store.receive(.list(.firstPage)) { state in
            state.set(value: 0, forKey: .top)
            state.set(value: 0, forKey: .selected)
        }
        #expect(store.store.postsOnPage.map(\.id) == [1, 2])
        store.send(.userFilter(.selectNextUser)) { $0.set(value: 2, forKey: .userFilter) }
        await store.receive(.list(.firstPage))
        #expect(store.store.postsOnPage.map(\.id) == [3])
        store.send(.userFilter(.selectNextUser)) { $0.remove(.userFilter) }
        await store.receive(.list(.firstPage))
        #expect(store.store.visiblePosts == threePosts)
    }

    /// The list's fetch runs under the list lift's id: a new load replaces it, the list's cancel stops
    /// it, and the app reaches it through the lift.
    @Test func theListsFetchRunsUnderTheListsLift() {
        let store = TestStore(initialValues: [:], actionHandler: appHandler, dependency: client(.success(threePosts)))
        store.send(.list(.load)) { $0.set(value: true, forKey: .isLoading) }
        store.send(.list(.load))  // replaces the fetch in flight
        #expect(store.runningEffectIDs == [listFeature.effectID(PostsCancelID.fetch)])
        store.send(.list(.cancel)) { state in
            state.set(value: false, forKey: .isLoading)
            state.set(value: true, forKey: .wasCancelled)
        }
        #expect(store.runningEffectIDs.isEmpty)
    }

    @Test func aStoreShowsTheFirstPageBeforeTheFilterActionReturns() {
        let store = Store(
            initialValues: [.posts: threePosts, .pageSize: 1, .top: 2, .selected: 2], actionHandler: appHandler,
            dependency: client(.success([])))
        store.handle(action: .userFilter(.selectNextUser))
        #expect(store.userFilter == 1)
        #expect(store.top == 0)
        #expect(store.selected == 0)
        #expect(store.visiblePosts.map(\.id) == [1, 2])
    }

    @Test func aCancelledFetchNeverShowsWhatItReturns() async throws {
        // The fetch returns as soon as it is cancelled, with posts the screen must not show.
        let returnsWhenCancelled = PostsClient(sourceDescription: "test") {
            try? await Task.sleep(for: .seconds(30))
            return .success(threePosts)
        }
        let store = Store(initialValues: [:], actionHandler: appHandler, dependency: returnsWhenCancelled)
        store.handle(action: .list(.load))
        store.handle(action: .list(.cancel))
        try await Task.sleep(for: .milliseconds(300))
        #expect(!store.hasLoaded)
        #expect(store.wasCancelled)
        #expect(store.runningEffectIDs.isEmpty)
    }
}
