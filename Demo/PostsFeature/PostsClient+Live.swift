import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension PostsClient {
    /// Fetches the posts at `url` over HTTP(S) with URLSession.
    ///
    /// A status outside 200–299, a transport error (no network, refused, timed out) and JSON that
    /// does not decode to posts each become a ``PostsError`` that says which.
    ///
    /// - Parameters:
    ///   - url: Where the posts are, for example `https://jsonplaceholder.typicode.com/posts`.
    ///   - timeout: How long a request may take.
    public static func live(url: URL, timeout: TimeInterval = 10) -> PostsClient {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let session = URLSession(configuration: configuration)
        let host = url.host ?? url.absoluteString
        return PostsClient(sourceDescription: url.absoluteString) {
            let data: Data
            let response: URLResponse
            do {
                (data, response) = try await session.data(from: url)
            } catch {
                return .failure(.transport(host: host, reason: Self.reason(for: error)))
            }
            if let status = (response as? HTTPURLResponse)?.statusCode, !(200..<300).contains(status) {
                return .failure(.http(status: status, host: host))
            }
            do {
                return .success(try JSONDecoder().decode([Post].self, from: data))
            } catch let error as DecodingError {
                return .failure(Self.decodingFailure(error))
            } catch {
                return .failure(.decoding(path: "$", reason: "\(error)"))
            }
        }
    }

    private static func reason(for error: any Error) -> String {
        guard let error = error as? URLError else { return error.localizedDescription }
        switch error.code {
        case .cannotConnectToHost: return "connection refused"
        case .timedOut: return "timed out"
        case .notConnectedToInternet: return "no network"
        case .cannotFindHost, .dnsLookupFailed: return "host not found"
        case .cancelled: return "cancelled"
        default: return "URL error \(error.code.rawValue)"
        }
    }

    private static func decodingFailure(_ error: DecodingError) -> PostsError {
        func path(_ context: DecodingError.Context) -> String {
            "$" + context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        }
        switch error {
        case .dataCorrupted(let context):
            return .decoding(path: path(context), reason: "not valid JSON")
        case .keyNotFound(let key, let context):
            return .decoding(path: path(context), reason: "no \"\(key.stringValue)\"")
        case .typeMismatch(let type, let context):
            return .decoding(path: path(context), reason: "expected \(type)")
        case .valueNotFound(let type, let context):
            return .decoding(path: path(context), reason: "expected \(type), found null")
        @unknown default:
            return .decoding(path: "$", reason: "\(error)")
        }
    }
}
