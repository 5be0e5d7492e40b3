extension PostsClient {
    /// 100 bundled posts in jsonplaceholder's shape (10 users, 10 posts each), served after `delay`,
    /// as a network would: the demo works with no network at all.
    public static func sample(delay: Duration = .milliseconds(600)) -> PostsClient {
        PostsClient(sourceDescription: "100 sample posts") {
            try? await Task.sleep(for: delay)
            return .success(samplePosts)
        }
    }

    /// The bundled posts.
    public static let samplePosts: [Post] = (1...100).map { id in
        let userId = (id - 1) / 10 + 1
        let words = sampleWords
        let title = (0..<4).map { words[(id * 7 + $0 * 13) % words.count] }.joined(separator: " ")
        let body = (0..<12).map { words[(id * 11 + $0 * 5) % words.count] }.joined(separator: " ")
        return Post(id: id, userId: userId, title: title.prefix(1).uppercased() + title.dropFirst(), body: body)
    }

    private static let sampleWords = [
        "state", "cache", "keys", "scope", "effect", "action", "store", "handler", "value", "test",
        "swift", "observe", "change", "live", "view", "cancel", "queue", "thread", "diff", "debug",
        "fetch", "post", "user", "page", "filter", "terminal", "screen", "render", "signal", "loop",
    ]
}
