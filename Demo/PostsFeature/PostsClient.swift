/// Where posts come from: the dependency of the posts feature.
public struct PostsClient: Sendable {
    /// Fetches every post. Cancellation ends it early; its result is then ignored.
    public var fetch: @Sendable () async -> Result<[Post], PostsError>
    /// Names the source for people: a URL, or "sample posts".
    public var sourceDescription: String

    /// Creates a client from a fetch function.
    public init(sourceDescription: String, fetch: @escaping @Sendable () async -> Result<[Post], PostsError>) {
        self.sourceDescription = sourceDescription
        self.fetch = fetch
    }
}
