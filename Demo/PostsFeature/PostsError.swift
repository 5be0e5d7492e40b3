/// Why posts could not be loaded, with what a person needs to know to fix it.
public enum PostsError: Error, Codable, Equatable, Sendable, CustomStringConvertible {
    /// The server answered with a status outside 200–299.
    case http(status: Int, host: String)
    /// No answer: no network, refused connection, no answer in time.
    case transport(host: String, reason: String)
    /// The server answered, but the answer could not be used: cut short, too slow, redirects in a loop.
    case response(host: String, reason: String)
    /// The answer was not a JSON list of posts.
    case decoding(path: String, reason: String)

    public var description: String {
        switch self {
        case .http(let status, let host): "\(host) answered HTTP \(status)"
        case .transport(let host, let reason): "could not reach \(host): \(reason)"
        case .response(let host, let reason): "\(host) answered, but \(reason)"
        case .decoding(let path, let reason): "the response is not a list of posts (at \(path)): \(reason)"
        }
    }
}
