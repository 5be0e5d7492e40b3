/// A post, in the shape of jsonplaceholder's `/posts`.
public struct Post: Codable, Hashable, Sendable, Identifiable {
    public var id: Int
    public var userId: Int
    public var title: String
    public var body: String

    /// Creates a post.
    public init(id: Int, userId: Int, title: String, body: String) {
        self.id = id
        self.userId = userId
        self.title = title
        self.body = body
    }
}
