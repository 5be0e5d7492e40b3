import CacheStoreTesting
import PostsFeature
import Testing

/// The user filter on its own keys, as a feature is tested before it is lifted into the app.
@Suite(.timeLimit(.minutes(2))) struct UserFilterHandlerTests {
    @Test func nextUserCyclesThroughTheUsersWithPostsThenEveryone() {
        let store = TestStore(initialValues: [.posts: threePosts], actionHandler: userFilterHandler, dependency: ())
        store.send(.selectNextUser) { $0.set(value: 1, forKey: .selectedUser) }
        store.send(.selectNextUser) { $0.set(value: 2, forKey: .selectedUser) }
        store.send(.selectNextUser) { $0.remove(.selectedUser) }
    }

    @Test func aUserCanBeChosenAndEveryoneAgain() {
        let store = TestStore(initialValues: [:], actionHandler: userFilterHandler, dependency: ())
        store.send(.selectNextUser)  // no posts, no users: everyone still
        store.send(.selectUser(2)) { $0.set(value: 2, forKey: .selectedUser) }
        store.send(.selectUser(nil)) { $0.remove(.selectedUser) }
    }
}
