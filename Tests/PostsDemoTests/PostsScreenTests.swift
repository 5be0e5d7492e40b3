import CacheStore
import PostsFeature
import Testing

@Suite struct PostsScreenTests {
    @Test func theScreenFitsItsWidthAndSanitizesTitles() {
        let posts = [Post(id: 1, userId: 1, title: "\u{1B}[31mA long title that will not fit", body: "")]
        let store = Store(
            initialValues: [.posts: posts, .pageSize: 5], actionHandler: postsHandler,
            dependency: PostsClient(sourceDescription: "test") { .success([]) })
        let lines = PostsScreen(store: store, source: "test").lines(width: 24, spinnerFrame: 0)
        #expect(
            lines == [
                "CacheStore posts — test",
                String(repeating: "─", count: 24),
                "#1  A long title that w…",
                String(repeating: "─", count: 24),
                "page 1/1 · 1 posts · al…",
                "r refresh · c cancel · …",
            ])
    }

    @Test func loadingAndErrorStates() {
        var screen = PostsScreen(
            store: Store(
                initialValues: [.isLoading: true], actionHandler: postsHandler,
                dependency: PostsClient(sourceDescription: "x") { .success([]) }),
            source: "x")
        #expect(screen.lines(width: 80, spinnerFrame: 1).dropLast().last == "⠙ Loading x…")
        screen.isLoading = false
        screen.error = .http(status: 500, host: "example.com")
        #expect(screen.lines(width: 80, spinnerFrame: 0).dropLast().last == "error: example.com answered HTTP 500")
    }
}
